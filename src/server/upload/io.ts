import { Logger, NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';

/**
 * Reading and writing GLBs with gltf-transform: every extension it knows, the meshopt codec, and
 * Draco (WASM, loaded once and only for files that use it).
 */

interface DracoModules {
  decoder: unknown;
  encoder: unknown;
}
interface DracoFactory {
  createDecoderModule(): Promise<unknown>;
  createEncoderModule(): Promise<unknown>;
}
let dracoModules: Promise<DracoModules> | undefined;

/** The Draco decoder and encoder (WASM), loaded once per thread and only for files that use Draco. */
export function loadDraco(): Promise<DracoModules> {
  dracoModules ??= (async () => {
    const specifier = 'draco3dgltf';
    const mod = (await import(specifier)) as { default?: DracoFactory } & DracoFactory;
    const draco = mod.default ?? mod;
    const [decoder, encoder] = await Promise.all([draco.createDecoderModule(), draco.createEncoderModule()]);
    return { decoder, encoder };
  })();
  return dracoModules;
}

/** A NodeIO with every extension gltf-transform knows and the meshopt (and, when used, Draco) codecs. */
export async function createModelIO(usesDraco: boolean): Promise<NodeIO> {
  await Promise.all([MeshoptDecoder.ready, MeshoptEncoder.ready]);
  const io = new NodeIO()
    .setLogger(new Logger(Logger.Verbosity.ERROR))
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder });
  if (usesDraco) {
    const draco = await loadDraco();
    io.registerDependencies({ 'draco3d.decoder': draco.decoder, 'draco3d.encoder': draco.encoder });
  }
  return io;
}

/**
 * The GLB without the bytes after the length its header declares. Such bytes are only a warning for
 * the validator (GLB_EXTRA_DATA) and the viewer ignores them (src/protocol/glb.ts), but
 * gltf-transform reads chunks up to the end of the array and fails on them.
 */
export function withoutExtraData(glb: Uint8Array): Uint8Array {
  if (glb.byteLength < 12) return glb;
  const declared = new DataView(glb.buffer, glb.byteOffset, glb.byteLength).getUint32(8, true);
  return declared >= 12 && declared < glb.byteLength ? glb.subarray(0, declared) : glb;
}

/** The extensionsUsed of a GLB, read from its JSON chunk without parsing the rest. */
export function extensionsUsed(glb: Uint8Array): string[] {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const length = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as { extensionsUsed?: string[] };
  return json.extensionsUsed ?? [];
}
