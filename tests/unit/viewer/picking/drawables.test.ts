import { BoxGeometry, BufferAttribute, Group, InstancedMesh, Line, Mesh, MeshBasicMaterial, SkinnedMesh } from 'three';
import { describe, expect, it } from 'vitest';
import { followsPose, isDrawable } from '../../../../src/viewer/picking/drawables';

function morphed(geometry = new BoxGeometry()): BoxGeometry {
  geometry.morphAttributes.position = [new BufferAttribute(new Float32Array(geometry.getAttribute('position').count * 3), 3)];
  return geometry;
}

describe('isDrawable', () => {
  it('is a mesh (plain, instanced, skinned) with a geometry; not a group, a line or a mesh without geometry', () => {
    const material = new MeshBasicMaterial();
    expect(isDrawable(new Mesh(new BoxGeometry(), material))).toBe(true);
    expect(isDrawable(new InstancedMesh(new BoxGeometry(), material, 2))).toBe(true);
    expect(isDrawable(new SkinnedMesh(new BoxGeometry(), material))).toBe(true);
    expect(isDrawable(new Group())).toBe(false);
    expect(isDrawable(new Line(new BoxGeometry()))).toBe(false);
    const empty = new Mesh();
    empty.geometry = undefined as never;
    expect(isDrawable(empty)).toBe(false);
  });
});

describe('followsPose', () => {
  it('is a skinned mesh or a mesh with position morph targets, never an instanced mesh', () => {
    const material = new MeshBasicMaterial();
    expect(followsPose(new Mesh(new BoxGeometry(), material))).toBe(false);
    expect(followsPose(new SkinnedMesh(new BoxGeometry(), material))).toBe(true);
    expect(followsPose(new Mesh(morphed(), material))).toBe(true);
    const noTargets = new BoxGeometry();
    noTargets.morphAttributes.position = [];
    expect(followsPose(new Mesh(noTargets, material))).toBe(false);
    expect(followsPose(new InstancedMesh(morphed(), material, 2))).toBe(false);
  });
});
