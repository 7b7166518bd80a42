import { Document, Logger, NodeIO, Primitive } from '@gltf-transform/core';
import type { Material, Mesh, Node, Property, Scene } from '@gltf-transform/core';
import { ALL_EXTENSIONS, EXTMeshGPUInstancing, EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import type { Anisotropy, Clearcoat } from '@gltf-transform/extensions';
import * as gltfFunctions from '@gltf-transform/functions';
import { dedup, prune, quantize, reorder, weldPrimitive } from '@gltf-transform/functions';
import validator from 'gltf-validator';
import type { ValidatorMessage, ValidatorReport } from 'gltf-validator';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import type { OptimizationSummary, ValidationMessage, ValidationReport, ValidationSeverity } from '../protocol/upload.ts';
import { hasStableId, indexId, INSTANCE_NAMES_KEY, INSTANCE_NODE_IDS_KEY, instancedNodeId, MATERIAL_ID_KEY, NODE_ID_KEY } from '../protocol/stable-ids.ts';

/**
 * The model service's processing of an uploaded model:
 *
 * 1. `validateModel`: Khronos's glTF-Validator on the file as uploaded (GLB, or .gltf with its
 *    files). Its messages go back to the user as they are. Errors refuse the upload, except the
 *    few that step 2 repairs for certain (REPAIRED_ERRORS): they are reported with `repaired`.
 * 2. `optimizeModel`: with gltf-transform, on the GLB:
 *    - stable ids: every node gets `extras.nodeId` = its index in the uploaded file and every
 *      material `extras.materialId` = its index, unless it already has one. These are exactly the
 *      ids the viewer gives an unoptimised file (one rule for both: src/protocol/stable-ids.ts falls
 *      back to the index), so saved mutations mean the same node before and after optimisation.
 *    - repairs (tangents where a material needs them, skeletons outside their scene), dedup,
 *      instancing of repeated sibling meshes (EXT_mesh_gpu_instancing, see `instanceSiblings`),
 *      prune, then meshopt compression (EXT_meshopt_compression) with KHR_mesh_quantization of
 *      the attributes whose quantization leaves node transforms alone (see `compress`).
 *    - Draco and meshopt inputs are decoded and re-encoded with meshopt; KTX2 (KHR_texture_basisu)
 *      and other images are kept as they are.
 *    - the result is validated again before compression; it must have no error.
 */

// ---------------------------------------------------------------------------------------------
// Validation

/** At most this many messages go back in a report (the counts cover all of them). */
export const MAX_REPORTED_MESSAGES = 200;

/**
 * Validator errors that `optimizeModel` repairs for certain, with what it does. Files in the field
 * have them (several corpus models do) and three.js draws them fine; refusing them would refuse
 * good models, and the stored model no longer has them (the tests check that).
 */
export const REPAIRED_ERRORS: Readonly<Record<string, string>> = {
  ACCESSOR_MIN_MISMATCH: 'accessor bounds are recomputed from the data',
  ACCESSOR_MAX_MISMATCH: 'accessor bounds are recomputed from the data',
  ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND: 'accessor bounds are recomputed from the data',
  ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND: 'accessor bounds are recomputed from the data',
  SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE: 'buffer views are rewritten',
  ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE: 'buffer views are rewritten',
  ACCESSOR_WEIGHTS_NON_NORMALIZED: 'skin weights are normalised',
  MESH_PRIMITIVE_NO_TANGENT_SPACE: 'tangents are generated (MikkTSpace)',
  NODE_SKIN_NO_SCENE: "the skeleton's root node is added to the scene",
};

const SEVERITIES: readonly ValidationSeverity[] = ['error', 'warning', 'info', 'hint'];

export interface ValidateOptions {
  /** The uploaded file's name: the report's uri, and the format when the bytes do not tell. */
  fileName: string;
  /** Files a .gltf refers to, by their uri as written in the glTF (URL-decoded or not). */
  resources?: Record<string, Uint8Array>;
  /** Mark REPAIRED_ERRORS as repaired (default true). */
  repairs?: boolean;
}

/** 'glb' when the bytes start with the GLB magic, 'gltf' when they look like JSON, else by name. */
function detectFormat(bytes: Uint8Array, fileName: string): 'glb' | 'gltf' {
  if (bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46) return 'glb';
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (bytes[i] === 0x7b) return 'gltf';
  return /\.gltf$/i.test(fileName) ? 'gltf' : 'glb';
}

function lookupResource(resources: Record<string, Uint8Array>, uri: string): Uint8Array | undefined {
  if (uri in resources) return resources[uri];
  try {
    const decoded = decodeURIComponent(uri);
    if (decoded in resources) return resources[decoded];
  } catch {
    // not percent-encoded
  }
  return undefined;
}

function toReport(raw: ValidatorReport, repairs: boolean): ValidationReport {
  const all = raw.issues.messages.map((m: ValidatorMessage): ValidationMessage => {
    const message: ValidationMessage = { severity: SEVERITIES[m.severity] ?? 'info', code: m.code, message: m.message };
    if (m.pointer !== undefined) message.pointer = m.pointer;
    if (m.offset !== undefined) message.offset = m.offset;
    if (repairs && m.severity === 0 && m.code in REPAIRED_ERRORS) message.repaired = true;
    return message;
  });
  // Refusing errors first, then repaired ones, then the other severities; stable within each.
  const rank = (m: ValidationMessage) => SEVERITIES.indexOf(m.severity) * 2 + (m.repaired ? 1 : 0);
  const sorted = all.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i).map(({ m }) => m);
  return {
    validatorVersion: raw.validatorVersion,
    errors: raw.issues.numErrors,
    warnings: raw.issues.numWarnings,
    infos: raw.issues.numInfos,
    hints: raw.issues.numHints,
    repaired: all.filter((m) => m.repaired).length,
    messages: sorted.slice(0, MAX_REPORTED_MESSAGES),
    truncated: raw.issues.truncated || sorted.length > MAX_REPORTED_MESSAGES,
  };
}

/** Runs Khronos's glTF-Validator over a GLB or a .gltf (with `resources`). Never throws for bad content. */
export async function validateModel(bytes: Uint8Array, options: ValidateOptions): Promise<ValidationReport> {
  const resources = options.resources ?? {};
  let raw: ValidatorReport;
  try {
    raw = await validator.validateBytes(bytes, {
      uri: options.fileName,
      format: detectFormat(bytes, options.fileName),
      maxIssues: 0,
      writeTimestamp: false,
      externalResourceFunction: async (uri: string) => {
        const data = lookupResource(resources, uri);
        if (!data) throw new Error(`The file "${uri}" was not uploaded with the glTF.`);
        return data;
      },
    });
  } catch (error) {
    // The validator rejects (with a string) only when it cannot start; say so as one error.
    return {
      validatorVersion: validator.version(),
      errors: 1,
      warnings: 0,
      infos: 0,
      hints: 0,
      repaired: 0,
      messages: [{ severity: 'error', code: 'VALIDATOR_FAILED', message: String(error instanceof Error ? error.message : error), pointer: '' }],
      truncated: false,
    };
  }
  return toReport(raw, options.repairs ?? true);
}

/** True when the report has errors that refuse the file (errors the optimisation does not repair). */
export function refuses(report: ValidationReport): boolean {
  return report.errors - report.repaired > 0;
}

/** One line for the user: how many refusing errors and the first of them. */
export function describeRefusal(fileName: string, report: ValidationReport): string {
  const count = report.errors - report.repaired;
  const first = report.messages.find((m) => m.severity === 'error' && !m.repaired);
  const where = first?.pointer ? ` at ${first.pointer}` : '';
  const detail = first ? `: ${first.code}${where}: ${first.message}` : '';
  return `${fileName}: the glTF validator found ${count} error${count === 1 ? '' : 's'}${detail}`;
}

// ---------------------------------------------------------------------------------------------
// Reading and writing

interface DracoModules {
  decoder: unknown;
  encoder: unknown;
}
let dracoModules: Promise<DracoModules> | undefined;

/** The Draco decoder and encoder (WASM), loaded once and only for files that use Draco. */
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
interface DracoFactory {
  createDecoderModule(): Promise<unknown>;
  createEncoderModule(): Promise<unknown>;
}

type TangentGenerator = (position: Float32Array, normal: Float32Array, texcoord: Float32Array) => Float32Array;
let mikktspace: Promise<TangentGenerator> | undefined;

function loadMikktspace(): Promise<TangentGenerator> {
  mikktspace ??= import('mikktspace').then((mod) => mod.generateTangents as TangentGenerator);
  return mikktspace;
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

/** The extensionsUsed of a GLB, read from its JSON chunk without parsing the rest. */
function extensionsUsed(glb: Uint8Array): string[] {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const length = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as { extensionsUsed?: string[] };
  return json.extensionsUsed ?? [];
}

// ---------------------------------------------------------------------------------------------
// Stable ids

function extrasOf(property: Property): Record<string, unknown> {
  const extras = property.getExtras();
  return typeof extras === 'object' && extras !== null && !Array.isArray(extras) ? (extras as Record<string, unknown>) : {};
}

function hasId(property: Property, key: typeof NODE_ID_KEY | typeof MATERIAL_ID_KEY): boolean {
  return hasStableId(extrasOf(property), key);
}

/**
 * Stamps `extras.nodeId` on every node and `extras.materialId` on every material from its index in
 * the file, keeping ids already there (a model exported from a derivative keeps its ids).
 * Returns how many were stamped.
 */
export function stampStableIds(doc: Document): { nodes: number; materials: number } {
  const root = doc.getRoot();
  let nodes = 0;
  let materials = 0;
  root.listNodes().forEach((node, index) => {
    if (hasId(node, NODE_ID_KEY)) return;
    node.setExtras({ ...extrasOf(node), [NODE_ID_KEY]: indexId(index) });
    nodes++;
  });
  root.listMaterials().forEach((material, index) => {
    if (hasId(material, MATERIAL_ID_KEY)) return;
    material.setExtras({ ...extrasOf(material), [MATERIAL_ID_KEY]: indexId(index) });
    materials++;
  });
  return { nodes, materials };
}

// ---------------------------------------------------------------------------------------------
// Repairs

/** Materials whose textures need a tangent space even without a normal map (the validator's rule). */
function needsTangentsWithoutNormalMap(material: Material | null): boolean {
  if (!material || material.getNormalTexture()) return false;
  if (material.getExtension<Clearcoat>('KHR_materials_clearcoat')?.getClearcoatNormalTexture()) return true;
  return !!material.getExtension<Anisotropy>('KHR_materials_anisotropy')?.getAnisotropyTexture();
}

/** Exported by @gltf-transform/functions 4.5.1 at run time, missing from its type declarations. */
const unweldPrimitive = (gltfFunctions as unknown as { unweldPrimitive: (prim: Primitive) => void }).unweldPrimitive;

/** MESH_PRIMITIVE_NO_TANGENT_SPACE: MikkTSpace tangents for triangle primitives that lack them. */
async function generateMissingTangents(doc: Document): Promise<number> {
  const targets: Primitive[] = [];
  for (const mesh of doc.getRoot().listMeshes()) {
    for (const prim of mesh.listPrimitives()) {
      if (prim.getAttribute('TANGENT') || !needsTangentsWithoutNormalMap(prim.getMaterial())) continue;
      if (prim.getMode() !== Primitive.Mode.TRIANGLES || !prim.getAttribute('NORMAL') || !prim.getAttribute('TEXCOORD_0')) continue;
      targets.push(prim);
    }
  }
  if (targets.length === 0) return 0;
  const generateTangents = await loadMikktspace();
  for (const prim of targets) {
    unweldPrimitive(prim);
    const floats = (name: string) => {
      const array = prim.getAttribute(name)!.getArray()!;
      return array instanceof Float32Array ? array : new Float32Array(array);
    };
    const tangents = generateTangents(floats('POSITION'), floats('NORMAL'), floats('TEXCOORD_0'));
    // MikkTSpace's handedness is the opposite of glTF's UV convention (V flipped).
    for (let i = 3; i < tangents.length; i += 4) tangents[i] *= -1;
    const buffer = prim.getAttribute('POSITION')!.getBuffer();
    prim.setAttribute('TANGENT', doc.createAccessor().setType('VEC4').setArray(new Float32Array(tangents)).setBuffer(buffer));
    weldPrimitive(prim);
  }
  return targets.length;
}

/** NODE_SKIN_NO_SCENE: adds the root of a skin's joint hierarchy to the scenes of its skinned nodes. */
function addSkeletonsToScenes(doc: Document): number {
  let added = 0;
  const topOf = (node: Node): Node => {
    let top = node;
    for (let parent = top.getParentNode(); parent; parent = parent.getParentNode()) top = parent;
    return top;
  };
  for (const scene of doc.getRoot().listScenes()) {
    const inScene = new Set<Node>();
    scene.traverse((node) => inScene.add(node));
    for (const node of [...inScene]) {
      const joint = node.getSkin()?.listJoints()[0];
      if (!joint || inScene.has(joint)) continue;
      const top = topOf(joint);
      scene.addChild(top);
      top.traverse((n) => inScene.add(n));
      added++;
    }
  }
  return added;
}

// ---------------------------------------------------------------------------------------------
// Instancing

export interface InstancingResult {
  /** Nodes with EXT_mesh_gpu_instancing made here. */
  batches: number;
  /** Source nodes they replace. */
  instances: number;
}

/**
 * Turns repeated meshes into EXT_mesh_gpu_instancing: among the children of one parent (a scene or
 * a node), at least `min` leaf nodes drawing the same mesh become one node whose instances carry
 * their local translation, rotation and scale. Staying under the same parent keeps the hierarchy
 * meaningful: moving the parent in the editor still moves the instances, and animated parents
 * still carry them. A node is left alone when instancing would lose something: it has children, a
 * skin, a camera, a light or another extension, its own morph weights, an animation, is a joint, is
 * shared by several scenes, or its mesh has morph targets.
 *
 * The instanced node replaces its source nodes, whose ids survive in its extras:
 * `extras.instanceNodeIds[i]` is the `nodeId` of the node drawn by instance i (the row order of the
 * instance attributes, which three.js's InstancedMesh keeps), `extras.instanceNames[i]` its name.
 * Its own `nodeId` is `instances:{first source id}`; other extras (equal for all sources) are kept.
 */
export function instanceSiblings(doc: Document, min = 5): InstancingResult {
  const root = doc.getRoot();
  const animated = new Set<Node>();
  for (const animation of root.listAnimations()) {
    for (const channel of animation.listChannels()) {
      const target = channel.getTargetNode();
      if (target) animated.add(target);
    }
  }
  const joints = new Set<Node>();
  for (const skin of root.listSkins()) {
    for (const joint of skin.listJoints()) joints.add(joint);
    const skeleton = skin.getSkeleton();
    if (skeleton) joints.add(skeleton);
  }
  const sceneCount = (node: Node) => node.listParents().filter((p) => p.propertyType === 'Scene').length;

  const eligible = (node: Node): boolean => {
    const mesh = node.getMesh();
    if (!mesh) return false;
    if (node.listChildren().length > 0 || node.getSkin() || node.getCamera() || node.listExtensions().length > 0) return false;
    if (node.getWeights().length > 0 || animated.has(node) || joints.has(node) || sceneCount(node) > 1) return false;
    return !mesh.listPrimitives().some((prim) => prim.listTargets().length > 0);
  };

  const parents: (Scene | Node)[] = [...root.listScenes(), ...root.listNodes()];
  let batches = 0;
  let instances = 0;
  let extension: EXTMeshGPUInstancing | undefined;

  for (const parent of parents) {
    const groups = new Map<string, { mesh: Mesh; nodes: Node[] }>();
    const meshKeys = new Map<Mesh, number>();
    for (const child of parent.listChildren()) {
      if (!eligible(child)) continue;
      const mesh = child.getMesh()!;
      if (!meshKeys.has(mesh)) meshKeys.set(mesh, meshKeys.size);
      const { nodeId: _nodeId, ...rest } = extrasOf(child);
      const key = `${meshKeys.get(mesh)}|${JSON.stringify(rest)}`;
      const group = groups.get(key) ?? { mesh, nodes: [] };
      group.nodes.push(child);
      groups.set(key, group);
    }
    for (const { mesh, nodes } of groups.values()) {
      if (nodes.length < min) continue;
      // KHR_materials_volume thickness cannot follow a per-instance scale.
      const scaled = nodes.some((n) => n.getScale().some((s) => Math.abs(s - 1) > 1e-7));
      if (scaled && mesh.listPrimitives().some((p) => p.getMaterial()?.getExtension('KHR_materials_volume'))) continue;

      extension ??= doc.createExtension(EXTMeshGPUInstancing);
      const buffer = mesh.listPrimitives()[0]?.getAttribute('POSITION')?.getBuffer() ?? root.listBuffers()[0] ?? doc.createBuffer();
      const count = nodes.length;
      const t = new Float32Array(count * 3);
      const r = new Float32Array(count * 4);
      const s = new Float32Array(count * 3);
      let needT = false;
      let needR = false;
      let needS = false;
      nodes.forEach((node, i) => {
        const [tx, ty, tz] = node.getTranslation();
        const [rx, ry, rz, rw] = node.getRotation();
        const [sx, sy, sz] = node.getScale();
        t.set([tx, ty, tz], i * 3);
        r.set([rx, ry, rz, rw], i * 4);
        s.set([sx, sy, sz], i * 3);
        if (tx !== 0 || ty !== 0 || tz !== 0) needT = true;
        if (rx !== 0 || ry !== 0 || rz !== 0 || rw !== 1) needR = true;
        if (sx !== 1 || sy !== 1 || sz !== 1) needS = true;
      });
      if (!needR && !needS) needT = true; // at least one attribute
      const batch = extension.createInstancedMesh();
      if (needT) batch.setAttribute('TRANSLATION', doc.createAccessor().setType('VEC3').setArray(t).setBuffer(buffer));
      if (needR) batch.setAttribute('ROTATION', doc.createAccessor().setType('VEC4').setArray(r).setBuffer(buffer));
      if (needS) batch.setAttribute('SCALE', doc.createAccessor().setType('VEC3').setArray(s).setBuffer(buffer));

      const ids = nodes.map((n) => extrasOf(n).nodeId as string);
      const names = nodes.map((n) => n.getName());
      const { nodeId: _nodeId, ...shared } = extrasOf(nodes[0]);
      const batchNode = doc
        .createNode(names[0] || mesh.getName())
        .setMesh(mesh)
        .setExtension('EXT_mesh_gpu_instancing', batch)
        .setExtras({
          ...shared,
          [NODE_ID_KEY]: instancedNodeId(ids[0]),
          [INSTANCE_NODE_IDS_KEY]: ids,
          ...(names.some((n) => n !== '') ? { [INSTANCE_NAMES_KEY]: names } : {}),
        });
      parent.addChild(batchNode);
      for (const node of nodes) node.dispose();
      batches++;
      instances += count;
    }
  }
  return { batches, instances };
}

// ---------------------------------------------------------------------------------------------
// Compression

/**
 * Prune what nothing uses (accessors, meshes, materials, textures...), but keep empty leaf nodes
 * (pivots and anchors someone may refer to), vertex attributes no material reads yet (the editor
 * may add a texture) and single-colour textures (the editor shows the texture the author set).
 */
const PRUNE_OPTIONS = { keepLeaves: true, keepAttributes: true, keepSolidTextures: true } as const;

/**
 * Meshopt compression where it is safe. Quantizing POSITION (and morph position deltas) would move
 * a dequantization offset and scale into the transforms of the nodes that draw the mesh, and the
 * editor shows and saves those transforms (a node's scale would read 0.0031): positions stay
 * float, EXT_meshopt_compression still compresses them losslessly. Texture coordinates, colours,
 * joints and weights are quantized (KHR_mesh_quantization; weights renormalised); normals and
 * tangents use meshopt's octahedral filter; animation rotations, translations and scales its
 * quaternion and exponential filters. Nothing is done for KHR_mesh_primitive_restart, which meshopt
 * does not support.
 */
async function quantizeForMeshopt(doc: Document): Promise<boolean> {
  if (doc.getRoot().listAccessors().length === 0) return false;
  if (doc.getRoot().listExtensionsUsed().some((e) => e.extensionName === 'KHR_mesh_primitive_restart')) return false;
  await doc.transform(
    reorder({ encoder: MeshoptEncoder, target: 'size' }),
    quantize({
      pattern: /^(TEXCOORD|JOINTS|WEIGHTS|COLOR)(_\d+)?$/,
      patternTargets: /^(TEXCOORD|JOINTS|WEIGHTS|COLOR|NORMAL|TANGENT)(_\d+)?$/,
      quantizeNormal: 8,
      // quantize()'s own cleanup prunes with the default options, which drop empty leaf nodes.
      cleanup: false,
    }),
    prune(PRUNE_OPTIONS),
  );
  // quantize() declares the extension only for quantized base attributes, not morph targets; and
  // meshopt's octahedral filter stores normals and tangents as normalised bytes.
  doc.createExtension(KHRMeshQuantization).setRequired(true);
  return true;
}

function enableMeshopt(doc: Document): void {
  doc
    .createExtension(EXTMeshoptCompression)
    .setRequired(true)
    .setEncoderOptions({ method: EXTMeshoptCompression.EncoderMethod.FILTER });
}

// ---------------------------------------------------------------------------------------------
// The pipeline

export interface OptimizeOptions {
  /** Sibling nodes drawing the same mesh become one instanced node from this many on (default 5). */
  minInstances?: number;
  /** The input's validation report: its repaired error codes are listed in the summary. */
  inputReport?: ValidationReport;
  /** The file name, for the output report (default 'model.glb'). */
  fileName?: string;
}

export interface OptimizeResult {
  glb: Uint8Array;
  summary: OptimizationSummary;
  /** The validator's report on the optimised model before compression (no errors, or optimizeModel threw). */
  validation: ValidationReport;
}

/** The optimised model does not pass validation: a bug of ours, never the user's file. */
export class OptimizeError extends Error {
  readonly report: ValidationReport;
  constructor(message: string, report: ValidationReport) {
    super(message);
    this.name = 'OptimizeError';
    this.report = report;
  }
}

/** Optimises a GLB (see the top of this file). The input should have passed `validateModel`. */
export async function optimizeModel(glb: Uint8Array, options: OptimizeOptions = {}): Promise<OptimizeResult> {
  const started = performance.now();
  const used = extensionsUsed(glb);
  const io = await createModelIO(used.includes('KHR_draco_mesh_compression'));
  const doc = await io.readBinary(glb);
  const root = doc.getRoot();
  const nodesBefore = root.listNodes().length;

  stampStableIds(doc);
  await generateMissingTangents(doc);
  addSkeletonsToScenes(doc);

  // Decoded on read; re-encoded with meshopt below.
  for (const extension of root.listExtensionsUsed()) {
    if (extension.extensionName === 'KHR_draco_mesh_compression' || extension.extensionName === 'EXT_meshopt_compression') extension.dispose();
  }

  await doc.transform(dedup());
  const instancing = instanceSiblings(doc, options.minInstances ?? 5);
  await doc.transform(prune(PRUNE_OPTIONS));
  const compressed = await quantizeForMeshopt(doc);

  const fileName = options.fileName ?? 'model.glb';
  const plain = await io.writeBinary(doc);
  const validation = await validateModel(plain, { fileName, repairs: false });
  if (validation.errors > 0) {
    throw new OptimizeError(`${fileName}: the optimised model does not pass validation (${describeRefusal(fileName, validation)})`, validation);
  }
  let output = plain;
  if (compressed) {
    enableMeshopt(doc);
    output = await io.writeBinary(doc);
  }

  const repairs = [...new Set((options.inputReport?.messages ?? []).filter((m) => m.repaired).map((m) => m.code))].sort();
  return {
    glb: output,
    validation,
    summary: {
      inputBytes: glb.byteLength,
      outputBytes: output.byteLength,
      nodesBefore,
      nodesAfter: root.listNodes().length,
      instancedNodes: instancing.batches,
      instances: instancing.instances,
      compression: root
        .listExtensionsUsed()
        .map((e) => e.extensionName)
        .filter((name) => ['EXT_meshopt_compression', 'KHR_mesh_quantization', 'KHR_texture_basisu', 'EXT_mesh_gpu_instancing'].includes(name))
        .sort(),
      repairs,
      milliseconds: Math.round(performance.now() - started),
    },
  };
}
