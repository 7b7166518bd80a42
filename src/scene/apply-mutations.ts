import { Color, Matrix4, MeshPhysicalMaterial, Quaternion, Vector2, Vector3, type Material, type Mesh, type Object3D, type Texture } from 'three';
import { setParent } from '../engine/hierarchy';
import { setLocalTransform } from '../engine/local-transform';
import { materialTextures, refCount, release, retain } from '../engine/resources';
import type { ModelRecord, ViewerWorld } from '../engine/world';
import {
  describeZodError,
  Mutation,
  TEXTURE_MAP_PROPERTIES,
  type MaterialProperties,
  type NodeProperties,
  type TextureMap,
} from '../protocol/mutation';
import { fetchJson } from './fetch';
import { MUTATION_LOG_PAGE, mutationLogUrl } from './load-requests';
import { mapTexture } from './uploaded-textures';
import { isUploadedTextureId } from '../protocol/textures';
import { materialById, nodeEid, registerMaterial } from '../engine/stable-ids';
import { flagObject, setShadows, setVisible } from '../engine/object-flags';
import { getEid } from '../engine/registry';

/**
 * Applies a model's saved edits (the mutation log of the model service, src/protocol/mutation.ts)
 * to the entities and three.js objects of that loaded model, in order, so that a reload shows
 * every saved edit. Each mutation is validated first; an invalid one, or one naming a node,
 * material or texture the model does not have, is reported in `problems` (one sentence each) and
 * skipped, and the rest still applies. Nothing here throws for bad input.
 */
export interface ApplyMutationsResult {
  /** Mutations applied (possibly with some of their properties reported as problems). */
  applied: number;
  problems: string[];
}

export function applyMutations(world: ViewerWorld, record: ModelRecord, mutations: readonly unknown[]): ApplyMutationsResult {
  const problems: string[] = [];
  let applied = 0;
  mutations.forEach((raw, index) => {
    const parsed = Mutation.safeParse(raw);
    const label = describe(raw, index);
    if (!parsed.success) {
      problems.push(`${label} is invalid and was skipped: ${describeZodError(parsed.error)}.`);
      return;
    }
    const mutation = parsed.data;
    const before = problems.length;
    try {
      let ok: boolean;
      if (mutation.type === 'updateNode') ok = updateNode(world, record, mutation.nodeId, mutation.properties, label, problems);
      else if (mutation.type === 'updateMaterial') ok = updateMaterial(world, record, mutation.materialId, mutation.properties, label, problems);
      else ok = createMaterial(world, record, mutation.materialId, mutation.name, mutation.properties, label, problems);
      if (ok) applied++;
    } catch (error) {
      // A bug or an unexpected object shape must not stop the rest of the log.
      problems.splice(before);
      problems.push(`${label} could not be applied: ${error instanceof Error ? error.message : String(error)}.`);
    }
  });
  if (applied > 0) world.render.needsRender = true;
  return { applied, problems };
}

/** "Mutation 3 (updateNode of node '5')" for messages; works on invalid input too. */
function describe(raw: unknown, index: number): string {
  const m = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const seq = typeof m.seq === 'number' ? ` (seq ${m.seq})` : '';
  const type = typeof m.type === 'string' ? m.type : 'unknown type';
  const target =
    typeof m.nodeId === 'string' ? ` of node '${m.nodeId}'` : typeof m.materialId === 'string' ? ` of material '${m.materialId}'` : '';
  return `Saved edit ${index + 1}${seq} (${type}${target})`;
}

// ---- nodes ----------------------------------------------------------------------------------

const matrix = new Matrix4();
const position = new Vector3();
const rotation = new Quaternion();
const scale = new Vector3();

function updateNode(world: ViewerWorld, record: ModelRecord, nodeId: string, props: NodeProperties, label: string, problems: string[]): boolean {
  const eid = nodeEid(record, nodeId);
  const object = eid === 0 ? undefined : world.objects[eid];
  if (eid === 0 || !object) {
    problems.push(`${label} was skipped: the model has no node '${nodeId}'.`);
    return false;
  }
  if (props.name !== undefined) object.name = props.name;
  // The components are the truth; the sync system applies them to the objects in the next frame.
  if (props.visible !== undefined) setVisible(world, eid, props.visible);
  if (props.castShadow !== undefined || props.receiveShadow !== undefined) {
    setShadows(world, eid, props.castShadow, props.receiveShadow);
    for (const mesh of nodeMeshes(record, object)) {
      const meshEid = getEid(mesh);
      if (meshEid !== 0 && meshEid !== eid) setShadows(world, meshEid, props.castShadow, props.receiveShadow);
    }
  }
  if (props.matrix !== undefined) setLocalMatrix(world, eid, props.matrix, label, problems);
  if (props.parent !== undefined) reparent(world, record, eid, object, props.parent, label, problems);
  if (props.material !== undefined) {
    const material = materialById(record, props.material);
    if (!material) problems.push(`${label}: the model has no material '${props.material}', so the node keeps its material.`);
    else {
      for (const mesh of nodeMeshes(record, object)) {
        assignMaterial(mesh, material);
        // Flagged: the sync step takes it out of its batch if the material is no longer the batch's (src/engine/model-batches.ts).
        const meshEid = getEid(mesh);
        if (meshEid !== 0) flagObject(world, meshEid);
      }
    }
  }
  world.render.needsRender = true;
  return true;
}

function setLocalMatrix(world: ViewerWorld, eid: number, elements: number[], label: string, problems: string[]): void {
  matrix.fromArray(elements);
  if (matrix.determinant() === 0) {
    problems.push(`${label}: the matrix is singular (it scales to nothing), so the node keeps its transform.`);
    return;
  }
  matrix.decompose(position, rotation, scale);
  setLocalTransform(world, eid, position, rotation, scale);
}

function reparent(
  world: ViewerWorld,
  record: ModelRecord,
  eid: number,
  object: Object3D,
  parentId: string | null,
  label: string,
  problems: string[],
): void {
  const parentEid = parentId === null ? record.eid : nodeEid(record, parentId);
  const parentObject = parentEid === 0 ? undefined : world.objects[parentEid];
  if (parentEid === 0 || !parentObject) {
    problems.push(`${label}: the model has no node '${parentId}' to become the parent, so the node stays where it is.`);
    return;
  }
  if (parentEid === eid) {
    problems.push(`${label}: a node cannot be its own parent, so it stays where it is.`);
    return;
  }
  for (let p: Object3D | null = parentObject; p; p = p.parent) {
    if (p === object) {
      problems.push(`${label}: node '${parentId}' is inside this node and cannot become its parent, so the node stays where it is.`);
      return;
    }
  }
  // The local transform is kept as stored: the editor saves the matrix as its own mutation.
  setParent(world, eid, parentEid);
  parentObject.add(object);
}

const isDrawable = (o: Object3D) =>
  (o as Mesh).isMesh === true || (o as { isPoints?: boolean }).isPoints === true || (o as { isLine?: boolean }).isLine === true;

/** The drawables of a node: the node's object itself and its primitives (descendants that are
 *  not nodes themselves, nor inside another node). */
function nodeMeshes(record: ModelRecord, node: Object3D): Mesh[] {
  const out: Mesh[] = [];
  const visit = (o: Object3D) => {
    if (isDrawable(o)) out.push(o as Mesh);
    for (const child of o.children) {
      if (record.nodeIds.has(child.userData.eid as number)) continue;
      visit(child);
    }
  };
  visit(node);
  return out;
}

/** Puts a material on a mesh, moving the resource counts (src/engine/resources.ts) with it. */
function assignMaterial(mesh: Mesh, material: Material): void {
  const old = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
  if (old.length === 1 && old[0] === material) return;
  // Retain first: a texture both materials share must not be disposed on the way.
  retain(material);
  for (const texture of materialTextures(material)) retain(texture);
  for (const m of old) {
    if (!m) continue;
    const textures = materialTextures(m);
    if (refCount(m) > 0) release(m);
    for (const texture of textures) if (refCount(texture) > 0) release(texture);
  }
  mesh.material = material;
}

// ---- materials ------------------------------------------------------------------------------

function updateMaterial(world: ViewerWorld, record: ModelRecord, materialId: string, props: MaterialProperties, label: string, problems: string[]): boolean {
  const material = materialById(record, materialId);
  if (!material) {
    problems.push(`${label} was skipped: the model has no material '${materialId}'.`);
    return false;
  }
  applyMaterialProperties(record, material, props, label, problems);
  world.render.needsRender = true;
  return true;
}

function createMaterial(
  world: ViewerWorld,
  record: ModelRecord,
  materialId: string,
  name: string,
  props: MaterialProperties,
  label: string,
  problems: string[],
): boolean {
  if (record.materials.has(materialId)) {
    problems.push(`${label} was skipped: the model already has a material '${materialId}'.`);
    return false;
  }
  const material = new MeshPhysicalMaterial({ name });
  material.userData.materialId = materialId;
  applyMaterialProperties(record, material, props, label, problems);
  registerMaterial(record, materialId, material);
  world.render.needsRender = true;
  return true;
}

const COLOR_PROPERTIES = new Set(['color', 'emissive', 'attenuationColor']);
/** Properties whose step from 0 to above 0 (or back) switches a shader feature on or off. */
const SHADER_FEATURES = new Set(['transmission', 'clearcoat', 'sheen', 'iridescence', 'dispersion']);
const TEXTURE_MAPS = new Set<string>(TEXTURE_MAP_PROPERTIES);

type Bag = Record<string, unknown>;

function applyMaterialProperties(record: ModelRecord, material: Material, props: MaterialProperties, label: string, problems: string[]): void {
  const bag = material as unknown as Bag;
  const texturesBefore = materialTextures(material);
  let shaderChanged = false;
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined) continue;
    // Only properties this kind of material has (a MeshStandardMaterial has no transmission).
    if (!(key in material)) continue;
    if (key === 'name') {
      material.name = value as string;
    } else if (COLOR_PROPERTIES.has(key)) {
      const target = bag[key];
      if (target instanceof Color) target.setHex(colorNumber(value as number | string));
    } else if (key === 'normalScale') {
      const target = bag[key];
      const [x, y] = value as [number, number];
      if (target instanceof Vector2) target.set(x, y);
    } else if (TEXTURE_MAPS.has(key)) {
      const previous = (bag[key] as Texture | null | undefined) ?? null;
      const next = textureFor(record, previous, value as TextureMap, key, label, problems);
      if (next === undefined) continue;
      if ((previous === null) !== (next === null)) shaderChanged = true;
      bag[key] = next;
    } else if (typeof value === 'number') {
      const previous = bag[key];
      if (typeof previous !== 'number') continue;
      if (SHADER_FEATURES.has(key) && previous > 0 !== value > 0) shaderChanged = true;
      bag[key] = value;
      if (key === 'opacity' && value < 1 && !material.transparent) {
        // An opacity below 1 shows only on a transparent material.
        material.transparent = true;
        shaderChanged = true;
      }
    }
  }
  moveTextureCounts(material, texturesBefore);
  if (shaderChanged) material.needsUpdate = true;
}

/**
 * The texture a map property gets: null removes it; otherwise the texture named by textureId (or
 * the current map) with the texture info applied. undefined: leave the property as it is.
 */
function textureFor(
  record: ModelRecord,
  current: Texture | null,
  value: TextureMap,
  key: string,
  label: string,
  problems: string[],
): Texture | null | undefined {
  if (value === null) return null;
  let texture: Texture | null = current;
  if (value.textureId !== undefined) {
    texture = record.textures.get(value.textureId) ?? null;
    if (!texture) {
      const what = isUploadedTextureId(value.textureId) ? `the uploaded texture '${value.textureId}' is not loaded` : `the model has no texture '${value.textureId}'`;
      problems.push(`${label}: ${what}, so ${key} stays as it was.`);
      return undefined;
    }
    // An uploaded texture is sampled in the colour space this map needs.
    texture = mapTexture(texture, key);
  } else if (!texture) {
    problems.push(`${label}: ${key} has texture settings but the material has no ${key} and no textureId was given, so they were not applied.`);
    return undefined;
  }
  let upload = false;
  if (value.wrapS !== undefined && texture.wrapS !== value.wrapS) {
    texture.wrapS = value.wrapS as Texture['wrapS'];
    upload = true;
  }
  if (value.wrapT !== undefined && texture.wrapT !== value.wrapT) {
    texture.wrapT = value.wrapT as Texture['wrapT'];
    upload = true;
  }
  if (value.magFilter !== undefined && texture.magFilter !== value.magFilter) {
    texture.magFilter = value.magFilter as Texture['magFilter'];
    upload = true;
  }
  if (value.minFilter !== undefined && texture.minFilter !== value.minFilter) {
    texture.minFilter = value.minFilter as Texture['minFilter'];
    upload = true;
  }
  if (value.scale !== undefined) {
    const [u, v] = typeof value.scale === 'number' ? [value.scale, value.scale] : value.scale;
    texture.repeat.set(u, v);
  }
  if (value.rotation !== undefined) texture.rotation = value.rotation;
  if (value.scale !== undefined || value.rotation !== undefined) texture.updateMatrix();
  if (upload) texture.needsUpdate = true;
  return texture;
}

/**
 * A material's textures are retained once per object drawing with it (src/engine/resources.ts):
 * when its maps change, the counts follow, so that despawning releases exactly what it retained.
 */
function moveTextureCounts(material: Material, before: Texture[]): void {
  const after = materialTextures(material);
  const users = refCount(material);
  if (users === 0) return;
  for (const texture of after) if (!before.includes(texture)) for (let i = 0; i < users; i++) retain(texture);
  for (const texture of before) {
    if (after.includes(texture)) continue;
    for (let i = 0; i < users && refCount(texture) > 0; i++) release(texture);
  }
}

function colorNumber(value: number | string): number {
  return typeof value === 'number' ? value : parseInt(value.replace(/^#/, ''), 16);
}

// ---- the saved log --------------------------------------------------------------------------

export { MUTATION_LOG_PAGE } from './load-requests';

/**
 * The whole mutation log of a model from the model service
 * (GET {modelService}/v1/models/{modelId}/mutations?after=SEQ&limit=N), page by page, in order.
 * Entries are returned as the server sent them: applyMutations validates each one, so that one
 * bad entry costs that entry only. A failed request (network, 4xx/5xx) rejects.
 */
export async function fetchMutationLog(
  modelService: string,
  modelId: string,
  options: { signal?: AbortSignal; pageSize?: number } = {},
): Promise<unknown[]> {
  const limit = options.pageSize ?? MUTATION_LOG_PAGE;
  const out: unknown[] = [];
  let after = 0;
  for (;;) {
    const url = mutationLogUrl(modelService, modelId, after, limit);
    const body = (await fetchJson(url, options.signal)) as { mutations?: unknown; lastSeq?: unknown } | undefined;
    if (!body || typeof body !== 'object' || !Array.isArray(body.mutations) || typeof body.lastSeq !== 'number') {
      throw new Error(`${url} did not answer with a mutation log ({ modelId, mutations, lastSeq }).`);
    }
    const page = body.mutations as unknown[];
    out.push(...page);
    const last = page.length > 0 ? (page[page.length - 1] as { seq?: unknown }).seq : undefined;
    if (page.length === 0 || typeof last !== 'number' || last <= after || last >= body.lastSeq) break;
    after = last;
  }
  return out;
}
