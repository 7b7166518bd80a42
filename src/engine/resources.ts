import type { BufferGeometry, Material, Object3D, Texture } from 'three';

/**
 * Reference counts for GPU resources shared between entities (a glTF mesh reused by many nodes
 * shares its geometry; materials share textures). Spawn code retains what an entity's object uses,
 * dispose code releases it, and a resource is disposed when its count returns to zero.
 */
type Disposable = BufferGeometry | Material | Texture;

const counts = new Map<Disposable, number>();

export function retain(resource: Disposable): void {
  counts.set(resource, (counts.get(resource) ?? 0) + 1);
}

/** Returns true when this release disposed the resource. */
export function release(resource: Disposable): boolean {
  const n = counts.get(resource);
  if (n === undefined) throw new Error(`Released a resource that was never retained (${resource.type}).`);
  if (n > 1) {
    counts.set(resource, n - 1);
    return false;
  }
  counts.delete(resource);
  resource.dispose();
  return true;
}

export function refCount(resource: Disposable): number {
  return counts.get(resource) ?? 0;
}

/** The textures a material uses (map, normalMap, ... any texture-valued property). */
export function materialTextures(material: Material, out: Texture[] = []): Texture[] {
  for (const value of Object.values(material)) {
    if (value && (value as Texture).isTexture && !out.includes(value as Texture)) out.push(value as Texture);
  }
  return out;
}

function objectMaterials(object: Object3D): Material[] {
  const m = (object as Object3D & { material?: Material | Material[] }).material;
  return m ? (Array.isArray(m) ? m : [m]) : [];
}

/** Retains the geometry, materials and textures an object draws with. */
export function retainObjectResources(object: Object3D): void {
  forEachResource(object, retain);
}

/** Releases what retainObjectResources retained, disposing what nothing else uses. */
export function releaseObjectResources(object: Object3D): void {
  forEachResource(object, release);
  const skeleton = (object as Object3D & { skeleton?: { dispose(): void } }).skeleton;
  if (skeleton) skeleton.dispose();
  // An instanced mesh's instanceMatrix/instanceColor buffers are freed by its own dispose event
  // (the geometry and materials stay with the counts above).
  const instanced = object as Object3D & { isInstancedMesh?: boolean; dispose?: () => void };
  if (instanced.isInstancedMesh && instanced.dispose) instanced.dispose();
}

function forEachResource(object: Object3D, fn: (r: Disposable) => unknown): void {
  const geometry = (object as Object3D & { geometry?: BufferGeometry }).geometry;
  if (geometry?.isBufferGeometry) fn(geometry);
  for (const material of objectMaterials(object)) {
    fn(material);
    for (const texture of materialTextures(material)) fn(texture);
  }
}
