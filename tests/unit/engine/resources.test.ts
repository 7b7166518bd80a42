import {
  Bone,
  BoxGeometry,
  BufferGeometry,
  InstancedMesh,
  Mesh,
  MeshBasicMaterial,
  MeshStandardMaterial,
  Object3D,
  Points,
  PointsMaterial,
  Skeleton,
  SkinnedMesh,
  Texture,
} from 'three';
import { describe, expect, it, vi } from 'vitest';
import {
  materialTextures,
  refCount,
  release,
  releaseObjectResources,
  retain,
  retainObjectResources,
} from '../../../src/engine/resources';

describe('retain and release', () => {
  it('dispose a resource exactly once, when its last user releases it', () => {
    const geometry = new BufferGeometry();
    const dispose = vi.spyOn(geometry, 'dispose');
    retain(geometry);
    retain(geometry);
    retain(geometry);
    expect(refCount(geometry)).toBe(3);
    expect(release(geometry)).toBe(false);
    expect(release(geometry)).toBe(false);
    expect(dispose).not.toHaveBeenCalled();
    expect(refCount(geometry)).toBe(1);
    expect(release(geometry)).toBe(true);
    expect(dispose).toHaveBeenCalledTimes(1);
    expect(refCount(geometry)).toBe(0);
  });

  it('refuse a release without a retain, naming the resource type', () => {
    const material = new MeshBasicMaterial();
    expect(() => release(material)).toThrow('Released a resource that was never retained (MeshBasicMaterial).');
  });

  it('refuse a second release after the resource was disposed', () => {
    const texture = new Texture();
    const dispose = vi.spyOn(texture, 'dispose');
    retain(texture);
    release(texture);
    expect(() => release(texture)).toThrow('never retained');
    expect(dispose).toHaveBeenCalledTimes(1);
  });

  it('count each resource on its own', () => {
    const a = new BufferGeometry();
    const b = new BufferGeometry();
    retain(a);
    retain(b);
    retain(b);
    expect(refCount(a)).toBe(1);
    expect(refCount(b)).toBe(2);
    expect(refCount(new BufferGeometry())).toBe(0);
    release(a);
    expect(refCount(b)).toBe(2);
    release(b);
    release(b);
  });

  it('let a disposed resource be retained again from zero', () => {
    const geometry = new BufferGeometry();
    retain(geometry);
    release(geometry);
    retain(geometry);
    expect(refCount(geometry)).toBe(1);
    release(geometry);
  });
});

describe('materialTextures', () => {
  it('lists every texture-valued property once', () => {
    const map = new Texture();
    const normalMap = new Texture();
    const material = new MeshStandardMaterial({ map, normalMap, roughnessMap: map });
    const textures = materialTextures(material);
    expect(textures).toHaveLength(2);
    expect(textures).toContain(map);
    expect(textures).toContain(normalMap);
  });

  it('appends to a given list without duplicates', () => {
    const shared = new Texture();
    const own = new Texture();
    const out = materialTextures(new MeshStandardMaterial({ map: shared }));
    materialTextures(new MeshStandardMaterial({ map: shared, emissiveMap: own }), out);
    expect(out).toEqual([shared, own]);
  });

  it('returns nothing for a material without textures', () => {
    expect(materialTextures(new MeshBasicMaterial({ color: 0xff0000 }))).toEqual([]);
  });
});

describe('retainObjectResources and releaseObjectResources', () => {
  it('dispose what two meshes share only when both are released', () => {
    const geometry = new BoxGeometry();
    const texture = new Texture();
    const material = new MeshStandardMaterial({ map: texture });
    const spies = [vi.spyOn(geometry, 'dispose'), vi.spyOn(material, 'dispose'), vi.spyOn(texture, 'dispose')];
    const a = new Mesh(geometry, material);
    const b = new Mesh(geometry, material);
    retainObjectResources(a);
    retainObjectResources(b);
    expect(refCount(geometry)).toBe(2);
    expect(refCount(material)).toBe(2);
    expect(refCount(texture)).toBe(2);
    releaseObjectResources(a);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    releaseObjectResources(b);
    for (const spy of spies) expect(spy).toHaveBeenCalledTimes(1);
  });

  it('handle material arrays and a texture shared by two materials', () => {
    const texture = new Texture();
    const m1 = new MeshStandardMaterial({ map: texture });
    const m2 = new MeshStandardMaterial({ map: texture });
    const mesh = new Mesh(new BoxGeometry(), [m1, m2]);
    const textureDispose = vi.spyOn(texture, 'dispose');
    const d1 = vi.spyOn(m1, 'dispose');
    const d2 = vi.spyOn(m2, 'dispose');
    retainObjectResources(mesh);
    expect(refCount(texture)).toBe(2);
    releaseObjectResources(mesh);
    expect(textureDispose).toHaveBeenCalledTimes(1);
    expect(d1).toHaveBeenCalledTimes(1);
    expect(d2).toHaveBeenCalledTimes(1);
  });

  it('cover points and lines too', () => {
    const points = new Points(new BufferGeometry(), new PointsMaterial());
    const dispose = vi.spyOn(points.geometry, 'dispose');
    retainObjectResources(points);
    releaseObjectResources(points);
    expect(dispose).toHaveBeenCalledTimes(1);
  });

  it('ignore objects that draw nothing', () => {
    const group = new Object3D();
    retainObjectResources(group);
    expect(() => releaseObjectResources(group)).not.toThrow();
  });

  it("dispose a skinned mesh's skeleton (its bone texture)", () => {
    const bone = new Bone();
    const mesh = new SkinnedMesh(new BoxGeometry(), new MeshBasicMaterial());
    mesh.add(bone);
    mesh.bind(new Skeleton([bone]));
    const dispose = vi.spyOn(mesh.skeleton, 'dispose');
    retainObjectResources(mesh);
    releaseObjectResources(mesh);
    expect(dispose).toHaveBeenCalledTimes(1);
  });

  it("free an instanced mesh's instance buffers (its dispose event) but not the shared geometry early", () => {
    const geometry = new BoxGeometry();
    const material = new MeshBasicMaterial();
    const instanced = new InstancedMesh(geometry, material, 4);
    const other = new Mesh(geometry, material);
    const onDispose = vi.fn();
    instanced.addEventListener('dispose', onDispose);
    const geometryDispose = vi.spyOn(geometry, 'dispose');
    retainObjectResources(instanced);
    retainObjectResources(other);
    releaseObjectResources(instanced);
    expect(onDispose).toHaveBeenCalledTimes(1);
    expect(geometryDispose).not.toHaveBeenCalled();
    releaseObjectResources(other);
    expect(geometryDispose).toHaveBeenCalledTimes(1);
  });
});
