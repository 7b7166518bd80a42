import { Bone, BoxGeometry, BufferAttribute, InstancedMesh, Matrix4, Mesh, MeshBasicMaterial, Quaternion, Ray, Skeleton, SkinnedMesh, Sphere, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { instancedBounds, morphReachOf, posedBounds, rayMisses } from '../../../../src/viewer/picking/bounds';

function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** Every vertex of `mesh` in its current pose (bones and morphs), in world space, lies in `sphere`. */
function expectHoldsPose(mesh: Mesh, sphere: Sphere): void {
  const count = mesh.geometry.getAttribute('position').count;
  const v = new Vector3();
  for (let i = 0; i < count; i++) {
    mesh.getVertexPosition(i, v).applyMatrix4(mesh.matrixWorld);
    expect(v.distanceTo(sphere.center)).toBeLessThanOrEqual(sphere.radius + 1e-6);
  }
}

/** A box skinned to two bones: the +x half to bone 1, the rest to bone 0, half weights at x = 0. */
function twoBoneBox(): { mesh: SkinnedMesh; bones: Bone[] } {
  const geometry = new BoxGeometry(2, 1, 1, 4, 1, 1);
  const position = geometry.getAttribute('position');
  const indices = new Uint16Array(position.count * 4);
  const weights = new Float32Array(position.count * 4);
  for (let i = 0; i < position.count; i++) {
    indices.set([0, 1, 0, 0], i * 4);
    const x = position.getX(i);
    const w1 = x > 0.01 ? 1 : x < -0.01 ? 0 : 0.5;
    weights.set([1 - w1, w1, 0, 0], i * 4);
  }
  geometry.setAttribute('skinIndex', new BufferAttribute(indices, 4));
  geometry.setAttribute('skinWeight', new BufferAttribute(weights, 4));
  const mesh = new SkinnedMesh(geometry, new MeshBasicMaterial());
  const bones = [new Bone(), new Bone()];
  bones[0].add(bones[1]);
  mesh.add(bones[0]);
  mesh.updateMatrixWorld(true);
  mesh.bind(new Skeleton(bones));
  return { mesh, bones };
}

describe('rayMisses', () => {
  const ray = new Ray(new Vector3(0, 0, 10), new Vector3(0, 0, -1));

  it('misses a sphere off the ray, hits one on it, and never misses one holding the origin', () => {
    expect(rayMisses(ray, new Sphere(new Vector3(3, 0, 0), 1), Infinity)).toBe(true);
    expect(rayMisses(ray, new Sphere(new Vector3(0.5, 0, 0), 1), Infinity)).toBe(false);
    // Behind the origin: a ray does not go backwards.
    expect(rayMisses(ray, new Sphere(new Vector3(0, 0, 20), 1), Infinity)).toBe(true);
    expect(rayMisses(ray, new Sphere(new Vector3(0, 0, 10.5), 1), 0)).toBe(false);
  });

  it('misses a sphere that starts beyond `far`', () => {
    const sphere = new Sphere(new Vector3(0, 0, 0), 1); // entered at distance 9
    expect(rayMisses(ray, sphere, 8.9)).toBe(true);
    expect(rayMisses(ray, sphere, 9.1)).toBe(false);
  });
});

describe('instancedBounds', () => {
  it('holds every instance, and follows moved instances, the count and geometry edits', () => {
    const instanced = new InstancedMesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial(), 3);
    const m = new Matrix4();
    instanced.setMatrixAt(0, m.makeTranslation(-5, 0, 0));
    instanced.setMatrixAt(1, m.makeTranslation(0, 0, 0));
    instanced.setMatrixAt(2, m.makeTranslation(5, 0, 0));
    const first = instancedBounds(instanced);
    expect(first).toBe(instanced.boundingSphere);
    for (const x of [-5.5, 5.5]) expect(first.containsPoint(new Vector3(x, 0.5, 0.5))).toBe(true);
    // Cached: nothing changed, nothing recomputed.
    let computed = 0;
    const compute = instanced.computeBoundingSphere.bind(instanced);
    instanced.computeBoundingSphere = () => (computed++, compute());
    instancedBounds(instanced);
    expect(computed).toBe(0);
    // A moved instance.
    instanced.setMatrixAt(2, m.makeTranslation(20, 0, 0));
    instanced.instanceMatrix.needsUpdate = true;
    expect(instancedBounds(instanced).containsPoint(new Vector3(20.5, 0, 0))).toBe(true);
    expect(computed).toBe(1);
    // Fewer instances drawn: the bound shrinks to them.
    instanced.count = 2;
    expect(instancedBounds(instanced).containsPoint(new Vector3(20.5, 0, 0))).toBe(false);
    expect(computed).toBe(2);
    // The geometry grew: the geometry's own sphere is recomputed too.
    const position = instanced.geometry.getAttribute('position') as BufferAttribute;
    for (let i = 0; i < position.count; i++) position.setX(i, position.getX(i) * 4);
    position.needsUpdate = true;
    expect(instancedBounds(instanced).containsPoint(new Vector3(-7, 0, 0))).toBe(true);
    expect(instanced.geometry.boundingSphere!.radius).toBeGreaterThan(2);
  });
});

describe('morphReachOf', () => {
  it('is null without position targets', () => {
    expect(morphReachOf(new BoxGeometry())).toBeNull();
  });

  it('measures each target\'s largest displacement, absolute or relative, and re-measures after an edit', () => {
    const geometry = new BoxGeometry(1, 1, 1);
    const position = geometry.getAttribute('position');
    const absolute = new Float32Array(position.count * 3);
    for (let i = 0; i < position.count; i++) absolute.set([position.getX(i), position.getY(i) + 2, position.getZ(i)], i * 3);
    const relative = new Float32Array(position.count * 3);
    relative[0] = 3; // one vertex 3 along x
    relative[4] = -4; // another 4 down y
    geometry.morphAttributes.position = [new BufferAttribute(absolute, 3)];
    const reach = morphReachOf(geometry)!;
    expect(reach.length).toBe(1);
    expect(reach[0]).toBeCloseTo(2, 6);
    expect(morphReachOf(geometry)).toBe(reach); // cached

    const other = new BoxGeometry(1, 1, 1);
    other.morphAttributes.position = [new BufferAttribute(new Float32Array(position.count * 3), 3), new BufferAttribute(relative, 3)];
    other.morphTargetsRelative = true;
    expect([...morphReachOf(other)!]).toEqual([0, 4]);

    // An edit of the base positions: an absolute target's displacement changes.
    const base = geometry.getAttribute('position') as BufferAttribute;
    for (let i = 0; i < base.count; i++) base.setY(i, base.getY(i) + 1);
    base.needsUpdate = true;
    const edited = morphReachOf(geometry)!;
    expect(edited).not.toBe(reach);
    expect(edited[0]).toBeCloseTo(1, 6);
  });
});

describe('posedBounds', () => {
  it('holds a morphed mesh at any influences, and is its rest sphere at none', () => {
    const geometry = new BoxGeometry(1, 1, 1, 2, 2, 2);
    const position = geometry.getAttribute('position');
    const moved = new Float32Array(position.count * 3);
    for (let i = 0; i < position.count; i++) moved.set([position.getX(i) * 3, position.getY(i), position.getZ(i) + 2], i * 3);
    geometry.morphAttributes.position = [new BufferAttribute(moved, 3)];
    const mesh = new Mesh(geometry, new MeshBasicMaterial());
    mesh.updateMorphTargets();
    mesh.position.set(4, 0, 0);
    mesh.updateMatrixWorld();
    const out = new Sphere();
    expect(posedBounds(mesh, out)).toBe(out);
    geometry.computeBoundingSphere();
    expect(out.radius).toBeCloseTo(geometry.boundingSphere!.radius, 6);
    expect(out.center.x).toBeCloseTo(4, 6);
    for (const influence of [0.25, 1, -0.5]) {
      mesh.morphTargetInfluences![0] = influence;
      expectHoldsPose(mesh, posedBounds(mesh, out));
    }
  });

  it('holds a skinned mesh in random poses of its bones (moved, turned, scaled)', () => {
    const { mesh, bones } = twoBoneBox();
    const rnd = random(11);
    const out = new Sphere();
    const axis = new Vector3();
    for (let pose = 0; pose < 25; pose++) {
      for (const bone of bones) {
        bone.position.set((rnd() - 0.5) * 6, (rnd() - 0.5) * 6, (rnd() - 0.5) * 6);
        bone.quaternion.copy(new Quaternion().setFromAxisAngle(axis.set(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize(), rnd() * 6));
        bone.scale.setScalar(0.5 + rnd());
      }
      mesh.updateMatrixWorld(true);
      mesh.skeleton.update();
      expectHoldsPose(mesh, posedBounds(mesh, out));
    }
  });

  it('falls back to the rest sphere in world space for a skeleton without bones', () => {
    const geometry = new BoxGeometry(1, 1, 1);
    const mesh = new SkinnedMesh(geometry, new MeshBasicMaterial());
    mesh.bind(new Skeleton([]));
    mesh.position.set(0, 7, 0);
    mesh.updateMatrixWorld();
    const out = posedBounds(mesh, new Sphere());
    expect(out.center.y).toBeCloseTo(7, 6);
    expect(out.radius).toBeCloseTo(geometry.boundingSphere!.radius, 6);
  });
});
