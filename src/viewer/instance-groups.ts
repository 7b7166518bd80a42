import { BackSide, DoubleSide, FrontSide, Group, InstancedBufferAttribute, InstancedMesh, MeshDepthMaterial, MeshDistanceMaterial, WebGLRenderTarget, type Camera, type Light, type Material, type Object3D, type Scene, type Side, type WebGLRenderer } from 'three';
import { patchMaterialForCulling, shadowMaterialsFor } from '../engine/instance-culling-shaders';
import { cardBatchGeometry, patchImpostorMaterial } from '../engine/instance-impostor';
import { createInstanceGroup, prepareInstances, type InstanceGroupRecord } from '../engine/instances';
import type { ViewerWorld } from '../engine/world';
import type { ClientConfig } from '../protocol/config';
import type { SceneObject } from '../protocol/scene-objects';
import type { AssetCache, LoadedAsset, LoadedInstances } from '../scene/instance-assets';
import { fetchGroupInstances } from '../scene/instance-assets';
import { mark } from '../scene/load-scene';
import { sceneObjectsOf } from './scene-objects';
import { yieldToMain } from '../engine/yield';

/**
 * Loads the instanced asset groups of a scene into their scene objects' entities (put by the load
 * before): each group's asset (through the viewer's asset cache: one download per asset) and its
 * instances in parallel, then the engine's group (src/engine/instances.ts). An asset that failed
 * draws the red placeholder cube at each instance, with one notice naming it; a group whose
 * instances could not be loaded stays empty, with a notice naming it. The rest of the scene loads.
 */
export interface InstanceGroupsLoad {
  groups: InstanceGroupRecord[];
  /** Asset ids drawn as the placeholder cube. */
  failedAssets: string[];
  /** Group uuids whose instances could not be loaded. */
  failedGroups: string[];
}

/** Each group's asset and instances, downloading: started by the load before anything else. */
export type InstanceGroupDownloads = Map<string, Promise<[LoadedAsset, LoadedInstances | Error]>>;

/**
 * Starts the downloads of the groups' assets (through the cache: one per asset) and instance sets
 * at once, so that they overlap the rest of the load (models, environment, the first picture).
 */
export function startInstanceGroupDownloads(config: ClientConfig, sceneId: string, objects: readonly SceneObject[], assets: AssetCache, signal?: AbortSignal): InstanceGroupDownloads {
  const downloads: InstanceGroupDownloads = new Map();
  for (const object of objects) {
    if (object.type !== 'InstancedAssetGroup' || !object.assetId) continue;
    const both = Promise.all([
      assets.get(object.assetId),
      fetchGroupInstances(config, sceneId, object, signal).catch((error: unknown) => (signal?.aborted ? Promise.reject(error) : (error as Error))),
    ]);
    both.catch(() => undefined);
    downloads.set(object.uuid, both);
  }
  return downloads;
}

export async function loadInstanceGroups(
  world: ViewerWorld,
  scene: Scene,
  config: ClientConfig,
  sceneId: string,
  objects: readonly SceneObject[],
  assets: AssetCache,
  options: {
    onNotice?: (text: string) => void;
    signal?: AbortSignal;
    downloads?: InstanceGroupDownloads;
    /** Awaited before a group of this asset is made (the load compiles the asset's programs then). */
    assetReady?: (loaded: LoadedAsset) => Promise<void>;
    /** Called once all downloads are in, just before the first group is made (the load holds the picture then). */
    beforeCreate?: () => void;
  } = {},
): Promise<InstanceGroupsLoad> {
  const result: InstanceGroupsLoad = { groups: [], failedAssets: [], failedGroups: [] };
  const registry = sceneObjectsOf(world, scene);
  const told = new Set<string>();
  let sets = 0;
  let assetsLoaded = 0;
  const total = objects.filter((o) => o.type === 'InstancedAssetGroup' && o.assetId).length;
  // Every group's downloads first, then all groups made in a row: a frame between two groups would
  // draw (and shadow) the groups made so far once more, which at a million instances on a
  // software GPU costs as much as the picture itself.
  const makes = await Promise.all(
    objects
      .filter((o) => o.type === 'InstancedAssetGroup' && o.assetId)
      .map(async (object): Promise<(() => void) | null> => {
        const entry = registry.get(object.uuid);
        if (!entry) return null;
        const started = options.downloads?.get(object.uuid);
        const [loaded, instances] = await Promise.all([
          (started ? started.then(([a]) => a) : assets.get(object.assetId!)).then((a) => {
            if (++assetsLoaded === total) mark('instance-assets');
            return a;
          }),
          (started
            ? started.then(([, i]) => i)
            : fetchGroupInstances(config, sceneId, object, options.signal).catch((error: unknown) => (options.signal?.aborted ? Promise.reject(error) : (error as Error)))
          ).then((i) => {
            if (++sets === total) mark('instance-sets');
            if (i instanceof Error) return i;
            // Unpacked and indexed now, in the task its set arrived in, while other sets still
            // download: after the last one, making the groups is only attaching them.
            try {
              return { prepared: prepareInstances(object.uuid, i.ids, i.matrices, i.nextId), revision: i.revision };
            } catch (error) {
              return error instanceof Error ? error : new Error(String(error));
            }
          }),
        ]);
        options.signal?.throwIfAborted();
        if (loaded.error && !told.has(object.assetId!)) {
          told.add(object.assetId!);
          result.failedAssets.push(object.assetId!);
          console.error(`Asset ${object.assetId} could not be loaded:`, loaded.error);
          options.onNotice?.(`The asset "${object.assetId}" could not be loaded, so a red placeholder cube stands in for each of its instances: ${loaded.error.message}`);
        }
        if (instances instanceof Error) {
          result.failedGroups.push(object.uuid);
          console.error(`The instances of group ${object.uuid} could not be loaded:`, instances);
          options.onNotice?.(`The instances of "${object.name || object.uuid}" could not be loaded: ${instances.message}`);
          return null;
        }
        await options.assetReady?.(loaded);
        options.signal?.throwIfAborted();
        return () => {
          // The group's entity may have been removed or replaced while this loaded (an editor, a new scene).
          if (registry.get(object.uuid) !== entry) return;
          const group = createInstanceGroup(world, entry.eid, {
            uuid: object.uuid,
            asset: loaded.asset,
            prepared: instances.prepared,
            revision: instances.revision,
            castShadow: object.castShadow ?? true,
            receiveShadow: true,
          });
          result.groups.push(group);
        };
      }),
  );
  options.signal?.throwIfAborted();
  const ready = makes.filter((make): make is () => void => make !== null);
  if (ready.length > 0) options.beforeCreate?.();
  for (let i = 0; i < ready.length; i++) {
    // One group per task: input stays answered while a million instances are unpacked and indexed.
    if (i > 0) await yieldToMain();
    options.signal?.throwIfAborted();
    ready[i]!();
  }
  mark('instance-groups');
  return result;
}

/** The Object3Ds of the loaded groups (fitting and picking trees take them). */
export function groupRoots(world: ViewerWorld): Object3D[] {
  return [...world.instanceGroups.values()].map((g) => g.object);
}

/** What compiling a group's programs before it is drawn needs of the viewer. */
export interface GroupProgramsTarget {
  renderer: WebGLRenderer;
  camera: Camera;
  /** The scene the groups are drawn in: its lights, environment and fog choose the programs. */
  scene: Scene;
  /** The buffer the scene is drawn into (post-processing's), null for the screen. */
  sceneTarget: WebGLRenderTarget | null;
}

/** How three's shadow pass turns a material's side (PCF and basic shadow maps: the back faces cast). */
const SHADOW_SIDE: Record<Side, Side> = { [FrontSide]: BackSide, [BackSide]: FrontSide, [DoubleSide]: DoubleSide };

/**
 * Compiles the programs an asset's instanced groups will be drawn with, before any group of it is
 * drawn: each part as an InstancedMesh (instancing, the shadows it receives) for the scene's lights,
 * environment and target, and, when it casts shadows and a light casts them, the shadow pass's
 * depth (or point-light distance) program for it. three.js keeps programs by their variant, so the
 * first frame with the groups finds these and links nothing (without KHR_parallel_shader_compile,
 * as on SwiftShader, a link the first frame needs blocks it; one queued here links in the GPU
 * process while the instance sets still download). The scene's lights and shadow budget must be
 * settled: the load calls this after its settled frame.
 *
 * The depth material follows three's WebGLShadowMap (r187, getDepthMaterial): a MeshDepthMaterial
 * (MeshDistanceMaterial for point lights) on the material's shadow side, with its alpha test, maps
 * and displacement; drawn into a render target (no tone mapping, linear output).
 */
export function compileGroupPrograms(target: GroupProgramsTarget, asset: LoadedAsset['asset'], castShadow: boolean): CompiledGroupPrograms {
  const { renderer, camera, scene } = target;
  const holder = new Group();
  const shadowHolder = new Group();
  const casters = castShadow && renderer.shadowMap.enabled ? shadowCasters(scene) : { depth: false, distance: false };
  const made: Material[] = [];
  // As a culled group's mesh draws (src/engine/instance-culling.ts): patched materials, a slot list
  // in instanceColor, and its own shadow materials where the part has one material.
  const slots = new InstancedBufferAttribute(new Float32Array(1), 1);
  // The simplified levels' parts too (their geometry may lack an attribute the full one has: another
  // variant), and the impostor's card (its own program; it casts no shadow).
  const parts = [...asset.parts, ...(asset.levels ?? []).flatMap((level) => level.parts)];
  if (asset.impostor) {
    patchImpostorMaterial(asset.impostor);
    // Drawn as pulled cards (src/engine/instance-impostor.ts): their batch geometry, no slot list in instanceColor.
    const card = new InstancedMesh(cardBatchGeometry(asset.impostor), asset.impostor.material, 0);
    card.receiveShadow = false;
    holder.add(card);
  }
  for (const part of parts) {
    const mesh = new InstancedMesh(part.geometry, part.material, 0);
    mesh.castShadow = castShadow;
    mesh.receiveShadow = true;
    mesh.instanceColor = slots;
    holder.add(mesh);
    const materials = Array.isArray(part.material) ? part.material : [part.material];
    for (const material of materials) {
      patchMaterialForCulling(material);
      for (const [wanted, Kind, kind] of [
        [casters.depth, MeshDepthMaterial, 'depth'],
        [casters.distance, MeshDistanceMaterial, 'distance'],
      ] as const) {
        if (!wanted) continue;
        const own = Array.isArray(part.material) ? null : shadowMaterialsFor(material)[kind];
        const depth = shadowMaterialFor(own ?? new Kind(), material);
        if (!own) made.push(depth);
        const depthMesh = new InstancedMesh(part.geometry, depth, 0);
        depthMesh.castShadow = castShadow;
        depthMesh.receiveShadow = true;
        // A part of several materials casts through three's own depth material, which reads no
        // slot list: its program has no instanceColor (src/engine/instance-culling.ts falls back).
        depthMesh.instanceColor = own ? slots : null;
        shadowHolder.add(depthMesh);
      }
    }
  }
  const previous = renderer.getRenderTarget();
  const scratch = shadowHolder.children.length > 0 && !target.sceneTarget ? new WebGLRenderTarget(1, 1) : null;
  const waits: Promise<unknown>[] = [];
  try {
    renderer.setRenderTarget(target.sceneTarget);
    waits.push(renderer.compileAsync(holder, camera, scene));
    if (shadowHolder.children.length > 0) {
      renderer.setRenderTarget(target.sceneTarget ?? scratch);
      waits.push(renderer.compileAsync(shadowHolder, camera, scene));
    }
  } finally {
    renderer.setRenderTarget(previous);
    scratch?.dispose();
  }
  const materials = [...holder.children, ...shadowHolder.children].flatMap((o) => {
    const material = (o as InstancedMesh).material;
    return Array.isArray(material) ? material : [material];
  });
  return {
    ready: Promise.all(waits).then(() => awaitLinks(renderer, materials)),
    dispose() {
      // Disposing a material releases its program: only once the groups' own materials hold them.
      for (const m of made) m.dispose();
      made.length = 0;
    },
  };
}

export interface CompiledGroupPrograms {
  /** Resolves when the programs are ready (at once where three cannot tell: then they link in the GPU process). */
  ready: Promise<void>;
  /** Lets go of the stand-in shadow materials: call after the first frame with the groups drawn. */
  dispose(): void;
}

/**
 * Takes each compiled program's first use (three checks its link status then, a call that waits
 * for the GPU process to finish the link) out of the first frame: one program per task, while the
 * instance sets still download. Without KHR_parallel_shader_compile (SwiftShader) compileAsync
 * resolves before any link is done, and the first draw would wait for the links, and in the main
 * pass behind the shadow pass's draws as well. The load does the same for the models' programs
 * (src/viewer/load.ts issuePrograms).
 */
export async function awaitLinks(renderer: WebGLRenderer, materials: Material[]): Promise<void> {
  const seen = new Set<unknown>();
  for (const material of materials) {
    const program = (renderer.properties.get(material) as { currentProgram?: { getUniforms(): unknown } }).currentProgram;
    if (!program || seen.has(program)) continue;
    seen.add(program);
    await yieldToMain();
    program.getUniforms();
  }
}

/** Which shadow programs the scene's visible shadow-casting lights need. */
function shadowCasters(scene: Scene): { depth: boolean; distance: boolean } {
  const out = { depth: false, distance: false };
  scene.traverseVisible((o) => {
    const light = o as Light;
    if (!light.isLight || !light.castShadow || !(light as { shadow?: unknown }).shadow) return;
    if ((light as { isPointLight?: boolean }).isPointLight) out.distance = true;
    else out.depth = true;
  });
  return out;
}

/** A shadow material as three's shadow pass sets it up for `material` (WebGLShadowMap getDepthMaterial). */
function shadowMaterialFor<T extends MeshDepthMaterial | MeshDistanceMaterial>(result: T, material: Material): T {
  const m = material as Material & Partial<Pick<MeshDepthMaterial, 'map' | 'alphaMap' | 'displacementMap' | 'displacementScale' | 'displacementBias' | 'wireframe'>>;
  result.visible = material.visible;
  (result as { wireframe?: boolean }).wireframe = m.wireframe ?? false;
  result.side = material.shadowSide ?? SHADOW_SIDE[material.side];
  result.alphaMap = m.alphaMap ?? null;
  result.alphaTest = material.alphaToCoverage ? 0.5 : material.alphaTest;
  result.map = m.map ?? null;
  result.clipShadows = material.clipShadows;
  result.clippingPlanes = material.clippingPlanes;
  result.clipIntersection = material.clipIntersection;
  result.displacementMap = m.displacementMap ?? null;
  result.displacementScale = m.displacementScale ?? 1;
  result.displacementBias = m.displacementBias ?? 0;
  return result;
}
