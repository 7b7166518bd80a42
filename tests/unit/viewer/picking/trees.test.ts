import type { BufferAttribute, BufferGeometry, Mesh } from 'three';
import { describe, expect, it } from 'vitest';
import { addModel, box, fixture, node } from './fixture';

// ---- trees ------------------------------------------------------------------------------------

describe('trees', () => {
  it('drops a tree when its geometry is disposed, and rebuilds after an edit while picks stay right', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2), 'n')]);
    const mesh = record.root.getObjectByName('n') as Mesh;
    await f.picker.prepare([record.root]);
    expect(f.picker.treeOf(mesh)).not.toBeNull();
    // Move every vertex 1 unit towards the camera.
    const position = mesh.geometry.getAttribute('position') as BufferAttribute;
    for (let i = 0; i < position.count; i++) position.setZ(i, position.getZ(i) + 1);
    position.needsUpdate = true;
    mesh.geometry.computeBoundingSphere();
    expect(f.picker.treeOf(mesh)).toBeNull();
    expect(f.picker.pick(0, 0)!.point.z).toBeCloseTo(2, 5);
    await f.picker.idle();
    expect(f.picker.treeOf(mesh)).not.toBeNull();
    expect(f.picker.pick(0, 0)!.point.z).toBeCloseTo(2, 5);
    mesh.geometry.dispose();
    expect(f.picker.treeOf(mesh)).toBeNull();
  });

  it('takes its dispose listeners off the geometries it watched when it is disposed', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2), 'a'), node(box(1, 3), 'b')]);
    const geometries = ['a', 'b'].map((name) => (record.root.getObjectByName(name) as Mesh).geometry);
    const listeners = (g: BufferGeometry) => ((g as unknown as { _listeners?: Record<string, unknown[]> })._listeners?.dispose ?? []).length;
    const before = geometries.map(listeners);
    await f.picker.prepare([record.root]);
    expect(f.picker.pick(0, 0)).not.toBeNull();
    expect(geometries.map(listeners)).toEqual(before.map((n) => n + 1));
    f.picker.dispose();
    expect(geometries.map(listeners)).toEqual(before);
    // Disposing a geometry afterwards is harmless.
    geometries[0].dispose();
  });
});
