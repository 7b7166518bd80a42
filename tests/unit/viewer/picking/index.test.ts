import {
  Bone,
  BoxGeometry,
  BufferAttribute,
  DoubleSide,
  Group,
  InstancedMesh,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  OrthographicCamera,
  Plane,
  PlaneGeometry,
  Skeleton,
  SkinnedMesh,
  Vector3,
  type WebGLRenderer,
} from 'three';
import { describe, expect, it } from 'vitest';
import { HELPER_LAYER } from '../../../../src/engine/layers';
import { createPicker, toHitEventData } from '../../../../src/viewer/picking';
import { addModel, box, expectVector, fixture, node, perspective, settle } from './fixture';

// ---- hits -----------------------------------------------------------------------------------

describe('pick', () => {
  it('hits a known box at the known point with the outward normal and the node ids, before and after its tree exists', async () => {
    const f = fixture(perspective(new Vector3(3, 0, 10), new Vector3(3, 0, 0)));
    const material = new MeshBasicMaterial();
    material.name = 'Steel';
    material.userData.materialId = 'mat-steel';
    const record = addModel(f, 'model-a', [node(box(2, 3, 0, 0, material), 'node-box', 'Housing')]);

    // No tree yet: three's plain raycast.
    const mesh = record.root.getObjectByName('Housing') as Mesh;
    expect(f.picker.treeOf(mesh)).toBeNull();
    const plain = f.picker.pick(0, 0)!;
    expect(plain).not.toBeNull();
    const plainOff = f.picker.pick(0.013, 0.021)!;

    await f.picker.prepare([record.root]);
    expect(f.picker.treeOf(mesh)).not.toBeNull();
    const hit = f.picker.pick(0, 0)!;
    for (const h of [plain, hit]) {
      expectVector(h.point, 3, 0, 1);
      expectVector(h.normal, 0, 0, 1);
      expect(h.distance).toBeCloseTo(9, 5);
      expect(h.object).toBe(mesh);
      expect(h.modelId).toBe('model-a');
      expect(h.nodeId).toBe('node-box');
      expect(h.nodeName).toBe('Housing');
      expect(h.eid).toBe(record.nodes.get('node-box'));
      expect(h.material).toBe(material);
      expect(h.materialId).toBe('mat-steel');
      expect(h.instanceId).toBeNull();
    }
    // The same triangle away from edges (the centre lies on an edge shared by two).
    const off = f.picker.pick(0.013, 0.021)!;
    expect(off.faceIndex).toBe(plainOff.faceIndex);
    expect(off.point.distanceTo(plainOff.point)).toBeLessThan(1e-9);
    // Fresh vectors per hit: a kept hit never changes under a later pick.
    const kept = hit.point.clone();
    f.picker.pick(0.01, 0.01);
    expect(hit.point.equals(kept)).toBe(true);
    expect(toHitEventData(hit)).toEqual({
      point: { x: hit.point.x, y: hit.point.y, z: hit.point.z },
      normal: { x: hit.normal.x, y: hit.normal.y, z: hit.normal.z },
      modelId: 'model-a',
      nodeId: 'node-box',
      nodeName: 'Housing',
      materialId: 'mat-steel',
      materialName: 'Steel',
      instanceId: null,
      groupId: null,
    });
  });

  it('gives the node of a primitive under a multi-primitive node, and the normal in world space for a rotated node', async () => {
    const f = fixture(perspective(new Vector3(0, 10, 0), new Vector3(0, 0, 0), new Vector3(0, 0, -1)));
    const group = node(new Group(), 'node-group', 'Assembly');
    const part = box(2);
    part.name = 'primitive-0';
    group.add(part);
    // A quarter turn about x: the box's local +z face now faces world +y... and -y.
    group.rotation.x = -Math.PI / 2;
    addModel(f, 'model-b', [group]);
    await f.picker.prepare([f.scene]);
    const hit = f.picker.pick(0, 0)!;
    expectVector(hit.point, 0, 1, 0);
    expectVector(hit.normal, 0, 1, 0);
    expect(hit.nodeId).toBe('node-group');
    expect(hit.nodeName).toBe('Assembly');
    expect(hit.object).toBe(part);
  });

  it('returns null on the background', async () => {
    const f = fixture();
    addModel(f, 'model-a', [node(box(2), 'n')]);
    expect(f.picker.pick(0.9, 0.9)).toBeNull();
    await f.picker.prepare([f.scene]);
    expect(f.picker.pick(0.9, 0.9)).toBeNull();
    expect(f.picker.pick(0, 0)).not.toBeNull();
  });

  it('rejects non-finite coordinates and needs a camera and a scene', () => {
    const f = fixture();
    expect(() => f.picker.pick(Number.NaN, 0)).toThrow('finite');
    f.world.render.scene = null;
    expect(() => f.picker.pick(0, 0)).toThrow("Scene hasn't been initialised.");
    f.world.render.camera = null;
    expect(() => f.picker.pick(0, 0)).toThrow("Camera hasn't been initialised.");
  });

  it('never hits helpers on layer 15, unless a tool picks among its own objects', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2), 'n')]);
    const handle = new Mesh(new PlaneGeometry(4, 4), new MeshBasicMaterial({ side: DoubleSide }));
    handle.position.z = 3;
    handle.layers.set(HELPER_LAYER);
    const helperGroup = new Group();
    helperGroup.layers.set(HELPER_LAYER);
    const child = new Mesh(new PlaneGeometry(4, 4), new MeshBasicMaterial()); // layer 0, under a helper
    child.position.z = 4;
    helperGroup.add(child);
    // Under the model's root, where a model pick looks (a tool may attach its handles to a node).
    record.root.add(handle, helperGroup);
    for (const o of [handle, helperGroup, child]) o.updateMatrixWorld(true);
    await f.picker.prepare([f.scene]);
    const hit = f.picker.pick(0, 0)!;
    expect(hit.nodeId).toBe('n');
    expect(hit.point.z).toBeCloseTo(1, 5);
    const own = f.picker.pick(0, 0, { objects: [handle] })!;
    expect(own.object).toBe(handle);
    expect(own.point.z).toBeCloseTo(3, 5);
    // Not a node of the model: no node id.
    expect(own.nodeId).toBeNull();
    // A tool's own object outside every model: no entity, no ids.
    const gizmo = new Mesh(new PlaneGeometry(1, 1), new MeshBasicMaterial());
    gizmo.position.z = 5;
    gizmo.layers.set(HELPER_LAYER);
    gizmo.updateMatrixWorld();
    f.scene.add(gizmo);
    const handleHit = f.picker.pick(0, 0, { objects: [gizmo] })!;
    expect(handleHit.object).toBe(gizmo);
    expect(handleHit.eid).toBe(0);
    expect(handleHit.modelId).toBeNull();
    expect(f.picker.pick(0, 0)!.nodeId).toBe('n');
  });

  it('hits the loaded models only, not the scene\'s own props (a shadow catcher, water)', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2, 3, 0, 0), 'n')]);
    const catcher = new Mesh(new PlaneGeometry(100, 100), new MeshBasicMaterial());
    catcher.position.z = -2;
    catcher.updateMatrixWorld();
    f.scene.add(catcher);
    await f.picker.prepare([f.scene]);
    expect(f.picker.pick(0, 0)).toBeNull();
    // A model that is not in the scene (removed, or not added yet) is not hit either.
    const ndc = new Vector3(3, 0, 1).project(f.world.render.camera!);
    expect(f.picker.pick(ndc.x, ndc.y)!.nodeId).toBe('n');
    f.scene.remove(record.root);
    expect(f.picker.pick(ndc.x, ndc.y)).toBeNull();
  });

  it('names the material of the hit face of a mesh with several materials', async () => {
    const f = fixture();
    // BoxGeometry groups: +x, -x, +y, -y, +z, -z.
    const materials = ['px', 'nx', 'py', 'ny', 'pz', 'nz'].map((id) => {
      const m = new MeshBasicMaterial();
      m.name = id.toUpperCase();
      m.userData.materialId = id;
      return m;
    });
    const mesh = new Mesh(new BoxGeometry(2, 2, 2), materials);
    mesh.rotation.y = 0.3;
    addModel(f, 'model-m', [node(mesh, 'multi')]);
    for (const prepared of [false, true]) {
      if (prepared) await f.picker.prepare([f.scene]);
      const hit = f.picker.pick(0, 0)!;
      expect(hit.material).toBe(materials[4]);
      expect(hit.materialId).toBe('pz');
      expect(toHitEventData(hit).materialName).toBe('PZ');
    }
    // A hidden group: the ray goes on through the box to the visible inside of the back face.
    materials[4].visible = false;
    materials[5].side = DoubleSide;
    const through = f.picker.pick(0, 0)!;
    expect(through.materialId).toBe('nz');
    expect(through.point.z).toBeLessThan(0);
  });

  it('never hits invisible objects, invisible parents or invisible materials', async () => {
    const f = fixture();
    const front = box(2, 0, 0, 4);
    front.visible = false;
    const hiddenParent = node(new Group(), 'hidden');
    hiddenParent.visible = false;
    hiddenParent.add(box(2, 0, 0, 2));
    const clear = box(2, 0, 0, 6, new MeshBasicMaterial({ visible: false }));
    addModel(f, 'model-a', [node(box(2), 'back'), node(front, 'front'), hiddenParent, node(clear, 'clear')]);
    for (const prepared of [false, true]) {
      if (prepared) await f.picker.prepare([f.scene]);
      const hit = f.picker.pick(0, 0)!;
      expect(hit.nodeId).toBe('back');
      expect(hit.point.z).toBeCloseTo(1, 5);
    }
  });

  it('hits the right instance of an instanced mesh, in that instance\'s transform', async () => {
    const f = fixture(perspective(new Vector3(5, 0, 10), new Vector3(5, 0, 0)));
    const instanced = new InstancedMesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial(), 3);
    const m = new Matrix4();
    instanced.setMatrixAt(0, m.makeTranslation(-5, 0, 0));
    instanced.setMatrixAt(1, m.makeTranslation(0, 0, 0));
    // Instance 2: at x 5, scaled by 2, so its front face is at z 1.
    instanced.setMatrixAt(2, m.makeScale(2, 2, 2).setPosition(5, 0, 0));
    const record = addModel(f, 'model-i', [node(instanced, 'node-inst', 'Bolts')]);
    for (const prepared of [false, true]) {
      if (prepared) await f.picker.prepare([record.root]);
      expect(f.picker.treeOf(instanced) !== null).toBe(prepared);
      const hit = f.picker.pick(0, 0)!;
      expect(hit.instanceId).toBe(2);
      expect(hit.object).toBe(instanced);
      expectVector(hit.point, 5, 0, 1);
      expectVector(hit.normal, 0, 0, 1);
      expect(hit.nodeId).toBe('node-inst');
      expect(toHitEventData(hit).instanceId).toBe(2);
    }
  });

  it('hits a skinned mesh where its current pose puts it, not where its bind pose is', async () => {
    const f = fixture(perspective(new Vector3(0, 0, 10), new Vector3(0, 0, 0)));
    const geometry = new BoxGeometry(1, 1, 1, 2, 2, 2);
    const count = geometry.getAttribute('position').count;
    geometry.setAttribute('skinIndex', new BufferAttribute(new Uint16Array(count * 4), 4));
    const weights = new Float32Array(count * 4);
    for (let i = 0; i < count; i++) weights[i * 4] = 1;
    geometry.setAttribute('skinWeight', new BufferAttribute(weights, 4));
    const skinned = new SkinnedMesh(geometry, new MeshBasicMaterial());
    const bone = new Bone();
    const rig = node(new Group(), 'rig', 'Rig');
    rig.add(bone, skinned);
    const record = addModel(f, 'model-s', [rig]);
    skinned.bind(new Skeleton([bone]));
    // Pose: the bone moves the whole mesh 3 units right (the bone is an entity: move it through the ECS).
    const { setPosition } = await import('../../../../src/engine/hierarchy');
    setPosition(f.world, bone.userData.eid as number, 3, 0, 0);
    settle(f.world);
    const ndcOf = (x: number) => new Vector3(x, 0, 0.5).project(f.world.render.camera!).x;
    for (const prepared of [false, true]) {
      if (prepared) await f.picker.prepare([record.root]);
      expect(f.picker.pick(0, 0)).toBeNull();
      const hit = f.picker.pick(ndcOf(3), 0)!;
      expect(hit).not.toBeNull();
      expect(hit.object).toBe(skinned);
      expect(hit.point.x).toBeCloseTo(3, 4);
      expect(hit.point.z).toBeCloseTo(0.5, 4);
      expect(hit.nodeId).toBe('rig');
    }
    // A new pose after the tree was built: the tree follows.
    setPosition(f.world, bone.userData.eid as number, -3, 0, 0);
    settle(f.world);
    expect(f.picker.pick(ndcOf(3), 0)).toBeNull();
    expect(f.picker.pick(ndcOf(-3), 0)!.point.x).toBeCloseTo(-3, 4);
  });

  it('walks no instance when the ray misses all instances, and follows moved instances', async () => {
    const f = fixture(perspective(new Vector3(0, 0, 10), new Vector3(0, 0, 0)));
    const instanced = new InstancedMesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial(), 200);
    const m = new Matrix4();
    for (let i = 0; i < 200; i++) instanced.setMatrixAt(i, m.makeTranslation(-2 + (i % 20) * 0.2, -2 + Math.floor(i / 20) * 0.2, 0));
    const record = addModel(f, 'model-i', [node(instanced, 'node-inst', 'Bolts')]);
    await f.picker.prepare([record.root]);
    let walked = 0;
    const getMatrixAt = instanced.getMatrixAt.bind(instanced);
    instanced.getMatrixAt = (i: number, target: Matrix4) => (walked++, getMatrixAt(i, target));
    expect(f.picker.pick(0, 0)!.instanceId).not.toBeNull();
    expect(walked).toBeGreaterThan(0);
    // Far to the right of every instance: no instance is looked at.
    walked = 0;
    const ndcOf = (x: number) => new Vector3(x, 0, 0.5).project(f.world.render.camera!).x;
    expect(f.picker.pick(ndcOf(3.5), 0)).toBeNull();
    expect(walked).toBe(0);
    // One instance moved there: the bound follows and the pick finds it.
    instanced.setMatrixAt(7, m.makeTranslation(3.5, 0, 0));
    instanced.instanceMatrix.needsUpdate = true;
    const hit = f.picker.pick(ndcOf(3.5), 0)!;
    expect(hit.instanceId).toBe(7);
    expectVector(hit.point, 3.5, 0, 0.5, 4);
  });

  it('refits an animated mesh only when the ray can reach its current pose', async () => {
    const f = fixture(perspective(new Vector3(0, 0, 10), new Vector3(0, 0, 0)));
    const geometry = new BoxGeometry(1, 1, 1, 2, 2, 2);
    const count = geometry.getAttribute('position').count;
    geometry.setAttribute('skinIndex', new BufferAttribute(new Uint16Array(count * 4), 4));
    const weights = new Float32Array(count * 4);
    for (let i = 0; i < count; i++) weights[i * 4] = 1;
    geometry.setAttribute('skinWeight', new BufferAttribute(weights, 4));
    const skinned = new SkinnedMesh(geometry, new MeshBasicMaterial());
    const bone = new Bone();
    const rig = node(new Group(), 'rig', 'Rig');
    rig.add(bone, skinned);
    const record = addModel(f, 'model-s', [rig]);
    skinned.bind(new Skeleton([bone]));
    await f.picker.prepare([record.root]);
    const tree = f.picker.treeOf(skinned)!;
    let refits = 0;
    const refit = tree.refit.bind(tree);
    tree.refit = ((...args: Parameters<typeof refit>) => (refits++, refit(...args))) as typeof tree.refit;
    const { setPosition } = await import('../../../../src/engine/hierarchy');
    const ndcOf = (x: number) => new Vector3(x, 0, 0.5).project(f.world.render.camera!).x;
    // Each frame of an animation moves the mesh along x in [-0.5, 0.5]; the pointer rests at x = 3.
    for (let frame = 0; frame < 5; frame++) {
      setPosition(f.world, bone.userData.eid as number, -0.5 + frame * 0.25, 0, 0);
      settle(f.world);
      expect(f.picker.pick(ndcOf(3), 0)).toBeNull();
    }
    expect(refits).toBe(0);
    // The pose reaches the pointer: refitted, and hit where the pose puts it.
    setPosition(f.world, bone.userData.eid as number, 3, 0, 0);
    settle(f.world);
    expect(f.picker.pick(ndcOf(3), 0)!.point.x).toBeCloseTo(3, 4);
    expect(refits).toBe(1);
  });

  it('hits a morphed mesh where its current morph influences put it', async () => {
    const f = fixture(perspective(new Vector3(0, 0, 10), new Vector3(0, 0, 0)));
    const geometry = new BoxGeometry(1, 1, 1);
    const position = geometry.getAttribute('position');
    // Target 0 moves every vertex 2 units towards the camera.
    const moved = new Float32Array(position.count * 3);
    for (let i = 0; i < position.count; i++) moved.set([position.getX(i), position.getY(i), position.getZ(i) + 2], i * 3);
    geometry.morphAttributes.position = [new BufferAttribute(moved, 3)];
    const mesh = new Mesh(geometry, new MeshBasicMaterial());
    mesh.updateMorphTargets();
    addModel(f, 'model-m', [node(mesh, 'morph')]);
    await f.picker.prepare([f.scene]);
    expect(f.picker.pick(0, 0)!.point.z).toBeCloseTo(0.5, 5);
    mesh.morphTargetInfluences![0] = 1;
    expect(f.picker.pick(0, 0)!.point.z).toBeCloseTo(2.5, 5);
    mesh.morphTargetInfluences![0] = 0.5;
    expect(f.picker.pick(0, 0)!.point.z).toBeCloseTo(1.5, 5);
  });

  it('finds a morphed mesh that its morph moved out of its rest bounds', async () => {
    const f = fixture(perspective(new Vector3(0, 0, 10), new Vector3(0, 0, 0)));
    const geometry = new BoxGeometry(1, 1, 1);
    const position = geometry.getAttribute('position');
    // Relative target 0: every vertex 3 units to the right.
    const moved = new Float32Array(position.count * 3);
    for (let i = 0; i < position.count; i++) moved[i * 3] = 3;
    geometry.morphAttributes.position = [new BufferAttribute(moved, 3)];
    geometry.morphTargetsRelative = true;
    const mesh = new Mesh(geometry, new MeshBasicMaterial());
    mesh.updateMorphTargets();
    addModel(f, 'model-m', [node(mesh, 'morph')]);
    await f.picker.prepare([f.scene]);
    const ndcOf = (x: number) => new Vector3(x, 0, 0.5).project(f.world.render.camera!).x;
    expect(f.picker.pick(ndcOf(3), 0)).toBeNull();
    mesh.morphTargetInfluences![0] = 1;
    expectVector(f.picker.pick(ndcOf(3), 0)!.point, 3, 0, 0.5, 4);
    expect(f.picker.pick(0, 0)).toBeNull();
  });

  it('skips what a renderer clipping plane cuts away and hits the visible surface behind', async () => {
    const f = fixture();
    addModel(f, 'model-c', [node(box(2), 'front'), node(box(2, 0, 0, -5), 'back')]);
    // Keeps z <= 0.5: the front box's near face (z = 1) is cut; its far side faces away.
    const plane = new Plane(new Vector3(0, 0, -1), 0.5);
    f.world.render.renderer = { clippingPlanes: [plane], localClippingEnabled: true } as unknown as WebGLRenderer;
    for (const prepared of [false, true]) {
      if (prepared) await f.picker.prepare([f.scene]);
      const hit = f.picker.pick(0, 0)!;
      expect(hit.nodeId).toBe('back');
      expect(hit.point.z).toBeCloseTo(-4, 5);
    }
    // A plane that cuts nothing in view changes nothing.
    plane.set(new Vector3(0, 0, -1), 5);
    expect(f.picker.pick(0, 0)!.nodeId).toBe('front');
  });

  it('honours material clipping planes, by union and by intersection, and double-sided cut surfaces behind', async () => {
    const f = fixture();
    const cut = new MeshBasicMaterial({ clippingPlanes: [new Plane(new Vector3(0, 0, -1), 0.5)] });
    addModel(f, 'model-c', [node(box(2, 0, 0, 0, cut), 'front'), node(box(2, 0, 0, -5), 'back')]);
    await f.picker.prepare([f.scene]);
    expect(f.picker.pick(0, 0)!.nodeId).toBe('back');
    // Double-sided: the inside of the far face (z = -1) is what shows through the cut.
    cut.side = DoubleSide;
    const inside = f.picker.pick(0, 0)!;
    expect(inside.nodeId).toBe('front');
    expect(inside.point.z).toBeCloseTo(-1, 5);
    expectVector(inside.normal, 0, 0, 1);
    cut.side = 0; // FrontSide
    // By intersection: cut only where both planes cut; x >= 0.5 is kept by the second plane, x = 0 is not.
    cut.clippingPlanes = [new Plane(new Vector3(0, 0, -1), 0.5), new Plane(new Vector3(1, 0, 0), -0.5)];
    cut.clipIntersection = true;
    expect(f.picker.pick(0, 0)!.nodeId).toBe('back');
    const ndcX = new Vector3(0.8, 0, 1).project(f.world.render.camera!).x;
    expect(f.picker.pick(ndcX, 0)!.nodeId).toBe('front');
    // Local clipping off in the renderer: material planes do not cut.
    f.world.render.renderer = { clippingPlanes: [], localClippingEnabled: false } as unknown as WebGLRenderer;
    expect(f.picker.pick(0, 0)!.nodeId).toBe('front');
  });

  it('does not hit what lies in front of the camera\'s near plane', async () => {
    const camera = perspective(new Vector3(0, 0, 10), new Vector3(0, 0, 0));
    camera.near = 2;
    camera.updateProjectionMatrix();
    const f = fixture(camera);
    addModel(f, 'model-a', [node(box(2), 'far'), node(box(2, 0, 0, 9), 'too-close')]);
    await f.picker.prepare([f.scene]);
    expect(f.picker.pick(0, 0)!.nodeId).toBe('far');
  });

  it('works with an orthographic camera, and reads the camera at pick time', async () => {
    const f = fixture();
    addModel(f, 'model-a', [node(box(2, 3, 0, 0), 'right'), node(box(2, -3, 0, 0), 'left')]);
    await f.picker.prepare([f.scene]);
    const ortho = new OrthographicCamera(-5, 5, 5, -5, 0.1, 100);
    ortho.position.set(0, 0, 10);
    ortho.updateMatrixWorld();
    f.world.render.camera = ortho;
    const hit = f.picker.pick(0.6, 0.1)!;
    expect(hit.nodeId).toBe('right');
    expectVector(hit.point, 3, 0.5, 1);
    expectVector(hit.normal, 0, 0, 1);
    // From the ray's origin on the camera's plane.
    expect(hit.distance).toBeCloseTo(9, 2);
    expect(f.picker.pick(-0.6, 0)!.nodeId).toBe('left');
    expect(f.picker.pick(0, 0)).toBeNull();
    // A camera that moved since the last frame (no render in between) is followed.
    ortho.position.set(3, 0, 10);
    expect(f.picker.pick(0, 0)!.nodeId).toBe('right');
  });
});

// ---- the picker object (createPicker composing the parts) -----------------------------------------

describe('createPicker', () => {
  function withCanvas(f: ReturnType<typeof fixture>, rect: { left: number; top: number; width: number; height: number }): void {
    const domElement = { getBoundingClientRect: () => rect };
    f.world.render.renderer = { domElement, clippingPlanes: [], localClippingEnabled: true } as unknown as WebGLRenderer;
  }

  it('maps client coordinates on the canvas to a pick, and needs a renderer with a sized canvas', async () => {
    const f = fixture(perspective(new Vector3(3, 0, 10), new Vector3(3, 0, 0)));
    addModel(f, 'model-a', [node(box(2, 3, 0, 0), 'n')]);
    await f.picker.prepare([f.scene]);
    expect(() => f.picker.pickAtClient(0, 0)).toThrow("Renderer hasn't been initialised.");
    withCanvas(f, { left: 100, top: 50, width: 400, height: 200 });
    // The canvas centre is ndc (0, 0); 220 px right of the left edge and 110 px down is (0.1, -0.1).
    const centre = f.picker.pickAtClient(300, 150)!;
    expect(centre.distance).toBe(f.picker.pick(0, 0)!.distance);
    expectVector(centre.point, 3, 0, 1);
    const off = f.picker.pickAtClient(320, 160)!;
    const ndc = f.picker.pick(0.1, -0.1)!;
    expect(off.point.x).toBeGreaterThan(3.1);
    expect(off.point.y).toBeLessThan(-0.1);
    expectVector(off.point, ndc.point.x, ndc.point.y, ndc.point.z, 9);
    withCanvas(f, { left: 0, top: 0, width: 0, height: 200 });
    expect(f.picker.pickAtClient(0, 0)).toBeNull();
  });

  it('has methods that work detached from the object (tools pass them around)', async () => {
    const f = fixture(perspective(new Vector3(3, 0, 10), new Vector3(3, 0, 0)));
    const record = addModel(f, 'model-a', [node(box(2, 3, 0, 0), 'n')]);
    const mesh = record.root.getObjectByName('n') as Mesh;
    const { pick, snapToVertex, hitOn, treeOf, prepare, idle, dispose } = f.picker;
    await prepare([f.scene]);
    await idle();
    expect(treeOf(mesh)).not.toBeNull();
    const hit = pick(0, 0)!;
    expect(hit.nodeId).toBe('n');
    expect(snapToVertex(hit, new Vector3(), 1)).not.toBeNull();
    expect(hitOn(mesh, new Vector3(), new Vector3(0, 0, 1), 1).nodeId).toBe('n');
    dispose();
    expect(() => pick(0, 0)).toThrow("Raycaster hasn't been initialised.");
  });

  it('after dispose: picks throw, prepare builds nothing', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2), 'n')]);
    f.picker.dispose();
    expect(() => f.picker.pick(0, 0)).toThrow("Raycaster hasn't been initialised.");
    await f.picker.prepare([record.root]);
    await f.picker.idle();
    expect(f.picker.treeOf(record.root.getObjectByName('n') as Mesh)).toBeNull();
  });

  it('keeps its public exports: createPicker, toHitEventData, WORKER_MIN_TRIANGLES', async () => {
    const picking = await import('../../../../src/viewer/picking');
    expect(Object.keys(picking).sort()).toEqual(['WORKER_MIN_TRIANGLES', 'createPicker', 'toHitEventData']);
    expect(picking.WORKER_MIN_TRIANGLES).toBe(20_000);
  });

  it('gives each picker its own trees', async () => {
    const f = fixture();
    const record = addModel(f, 'model-a', [node(box(2), 'n')]);
    const mesh = record.root.getObjectByName('n') as Mesh;
    const other = createPicker({ world: f.world, useWorker: false });
    await f.picker.prepare([record.root]);
    expect(f.picker.treeOf(mesh)).not.toBeNull();
    expect(other.treeOf(mesh)).toBeNull();
    // Both pick the same (the other through three's raycast until its own tree is built).
    expectVector(f.picker.pick(0, 0)!.point, 0, 0, 1);
    expectVector(other.pick(0, 0)!.point, 0, 0, 1);
    await other.idle();
    expect(other.treeOf(mesh)).not.toBeNull();
    expect(other.treeOf(mesh)).not.toBe(f.picker.treeOf(mesh));
    other.dispose();
    expect(f.picker.treeOf(mesh)).not.toBeNull();
  });
});
