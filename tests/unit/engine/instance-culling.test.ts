import {
  Box3,
  BoxGeometry,
  Frustum,
  Group,
  Matrix4,
  MeshBasicMaterial,
  MeshDepthMaterial,
  MeshStandardMaterial,
  OrthographicCamera,
  PerspectiveCamera,
  Scene,
  ShaderLib,
  type Camera,
  type InstancedMesh,
  type Material,
  Vector3,
  type WebGLRenderer,
} from 'three';
import { describe, expect, it } from 'vitest';
import { InstanceBVH } from '../../../src/engine/instance-bvh';
import { instanceCapacity, SLOTS_PER_ROW } from '../../../src/engine/instance-culling';
import { CARD_COUNT_UNIFORM, CARDS_PER_DRAW } from '../../../src/engine/instance-impostor';
import {
  CulledDepthMaterial,
  CulledDistanceMaterial,
  cullingPatchFits,
  patchMaterialForCulling,
  readsSlots,
} from '../../../src/engine/instance-culling-shaders';
import {
  addInstances,
  compactInstanceGroup,
  createInstanceGroup,
  disposeInstanceGroup,
  removeInstances,
  setInstanceMatrix,
  type InstanceAsset,
  type InstanceGroupRecord,
} from '../../../src/engine/instances';
import { bindObject } from '../../../src/engine/registry';
import { setLevelView } from '../../../src/engine/instance-levels';
import { instanceRow } from './instance-row';
import { addViewerEntity, createViewerWorld } from '../../../src/engine/world';

/**
 * Per-instance culling (src/engine/instance-culling.ts) against a stand-in renderer whose context
 * records what the culling uploads: the slot lists each pass draws, and the fallback for materials
 * that do not read them.
 */

/** A WebGL 2 context that keeps the last slot list uploaded into each buffer, and each card list (texture). */
function recordingContext() {
  const buffers = new Map<object, Float32Array>();
  const textures = new Map<object, { width: number; texels: Float32Array }>();
  const deleted: object[] = [];
  let bound: object | null = null;
  let boundTexture: object | null = null;
  const gl = {
    deleteBuffer: (buffer: object) => deleted.push(buffer),
    deleteTexture: (texture: object) => deleted.push(texture),
    TEXTURE_2D: 0x0de1,
    RED: 0x1903,
    R32F: 0x822e,
    createTexture: () => ({}),
    texParameteri: () => undefined,
    texStorage2D: (_target: number, _levels: number, _format: number, width: number, height: number) =>
      textures.set(boundTexture!, { width, texels: new Float32Array(width * height) }),
    texSubImage2D: (_t: number, _l: number, x: number, y: number, w: number, h: number, _f: number, _type: number, data: Float32Array, from: number) => {
      const texture = textures.get(boundTexture!)!;
      for (let row = 0; row < h; row++) texture.texels.set(data.subarray(from + row * w, from + (row + 1) * w), (y + row) * texture.width + x);
    },
    bindTextureForTest: (texture: object) => (boundTexture = texture),
    ARRAY_BUFFER: 0x8892,
    DYNAMIC_DRAW: 0x88e8,
    FLOAT: 0x1406,
    createBuffer: () => ({}),
    bindBuffer: (_target: number, buffer: object) => (bound = buffer),
    bufferData: (_target: number, size: number) => buffers.set(bound!, new Float32Array(size / 4)),
    bufferSubData: (_target: number, offset: number, data: Float32Array, from: number, length: number) =>
      buffers.get(bound!)!.set(data.subarray(from, from + length), offset / 4),
  };
  return { gl, buffers, textures, deleted };
}

function stubRenderer() {
  const { gl, buffers, textures, deleted } = recordingContext();
  let unbound = 0;
  // The render target a pass draws into (a shadow pass's map: its height gives the texels).
  const target = { current: null as { width: number; height: number } | null };
  const renderer = {
    getContext: () => gl,
    capabilities: { maxTextureSize: 8192 },
    state: { useProgram: () => unbound++, bindTexture: (_target: number, texture: object) => gl.bindTextureForTest(texture), pixelStorei: () => undefined },
    getRenderTarget: () => target.current,
    info: { render: { triangles: 0 } },
  } as unknown as WebGLRenderer;
  return { renderer, buffers, textures, deleted, unbinds: () => unbound, target };
}

function asset(material: Material = new MeshStandardMaterial()): InstanceAsset {
  return {
    assetId: 'crate',
    parts: [{ name: 'crate', geometry: new BoxGeometry(1, 1, 1), material }],
    box: new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]),
    placeholder: false,
  };
}

/** A row of n unit crates along x, 2 m apart (instance i at x = 2 i), with a renderer. */
function setup(n: number, material?: Material) {
  const world = createViewerWorld();
  const { renderer, buffers, deleted, unbinds } = stubRenderer();
  world.render.renderer = renderer;
  const { object, group } = instanceRow(world, n, asset(material));
  object.updateMatrixWorld(true);
  return { world, group, renderer, buffers, deleted, unbinds, mesh: group.meshes[0]! };
}

/** A camera at x = 0 looking along -z at the row from 10 m away, 90 degrees wide: x in about [-10, 10] is in view. */
function camera(x = 0): PerspectiveCamera {
  const c = new PerspectiveCamera(90, 1, 0.1, 100);
  c.position.set(x, 0, 10);
  c.lookAt(x, 0, 0);
  c.updateMatrixWorld(true);
  return c;
}

/** What the mesh draws in a main pass with `cam` and `material`: the instance slots listed, and its count then. */
function drawMain(setupResult: ReturnType<typeof setup>, cam: Camera, material: Material = setupResult.mesh.material as Material) {
  const { mesh, renderer, buffers, group } = setupResult;
  mesh.onBeforeRender(renderer, new Scene(), cam, mesh.geometry, material, null as never);
  const count = mesh.count;
  const colour = mesh.instanceColor;
  const list = group.culling ? [...buffers.get(group.culling.buffers[0]!)!.subarray(0, count)].sort((a, b) => a - b) : [];
  mesh.onAfterRender(renderer, new Scene(), cam, mesh.geometry, material, null as never);
  return { count, list, colour, after: mesh.count, colourAfter: mesh.instanceColor };
}

function drawShadow(setupResult: ReturnType<typeof setup>, view: Camera, shadowCamera: Camera) {
  const { mesh, renderer, buffers, group } = setupResult;
  const depth = mesh.customDepthMaterial!;
  mesh.onBeforeShadow(renderer, new Scene(), view, shadowCamera, mesh.geometry, depth, null as never);
  const count = mesh.count;
  const list = [...buffers.get(group.culling!.buffers[0]!)!.subarray(0, count)].sort((a, b) => a - b);
  mesh.onAfterShadow(renderer, new Scene(), view, shadowCamera, mesh.geometry, depth, null as never);
  return { count, list };
}

function toBox3(b: Float32Array): Box3 {
  return new Box3(new Vector3(b[0], b[1], b[2]), new Vector3(b[3], b[4], b[5]));
}

/** The live instances whose world boxes three's own frustum test finds in view of `cam` (the expectation). */
function inView(group: InstanceGroupRecord, cam: Camera): number[] {
  const frustum = new Frustum().setFromProjectionMatrix(
    new Matrix4().multiplyMatrices(cam.projectionMatrix, cam.matrixWorldInverse).multiply(group.object.matrixWorld),
  );
  const out: number[] = [];
  const box = new Float32Array(6);
  for (let slot = 0; slot < group.count; slot++) {
    if (group.ids[slot] === 0xffffffff) continue;
    group.bvh.instanceBox(null, slot, box);
    if (frustum.intersectsBox(toBox3(box))) out.push(slot);
  }
  return out;
}

describe('per-instance culling', () => {
  it('sizes groups in whole rows of the matrix texture', () => {
    expect(instanceCapacity(1)).toBe(SLOTS_PER_ROW);
    expect(instanceCapacity(SLOTS_PER_ROW)).toBe(2 * SLOTS_PER_ROW);
    expect(instanceCapacity(100_000) % SLOTS_PER_ROW).toBe(0);
    expect(instanceCapacity(100_000)).toBeGreaterThanOrEqual(100_000);
  });

  it('draws only the instances in the camera frustum, a straddling one included, from the bounds index and before it is built', () => {
    const s = setup(40);
    const cam = camera(0);
    const expected = inView(s.group, cam);
    // The row runs from x = -0.5 to 78.5; the view reaches x = 10 at the row's depth.
    expect(expected.length).toBeGreaterThan(3);
    expect(expected.length).toBeLessThan(10);
    const before = drawMain(s, cam);
    expect(before.list).toEqual(expected);
    expect(before.count).toBe(expected.length);
    // After the pass the mesh counts every slot again (whatever reads it between passes).
    expect(before.after).toBe(40);
    // A straddling crate: the one at the frustum's right edge is half in view.
    const edge = expected.at(-1)!;
    const box = new Float32Array(6);
    s.group.bvh.instanceBox(null, edge, box);
    expect(box[3]).toBeGreaterThan(10);

    s.group.bvh.build(s.group.attribute.array as Float32Array, s.group.count, (slot) => s.group.ids[slot] !== 0xffffffff);
    const moved = camera(30);
    expect(drawMain(s, moved).list).toEqual(inView(s.group, moved));
  });

  it('keeps a pass list while its camera and the group stay, and culls again when either changes', () => {
    const s = setup(40);
    const culling = s.group.culling!;
    drawMain(s, camera(0));
    drawMain(s, camera(0));
    expect(culling.stats.culls).toBe(1);
    drawMain(s, camera(20));
    expect(culling.stats.culls).toBe(2);
    // The group moves: the same camera sees other instances.
    s.group.object.position.x = -20;
    s.group.object.updateMatrixWorld(true);
    const after = drawMain(s, camera(20));
    expect(culling.stats.culls).toBe(3);
    expect(after.list).toEqual(inView(s.group, camera(20)));
    expect(after.list).toContain(20);
  });

  it('draws a moved instance in the same frame: one that enters the view is added to the pass list without a new cull', () => {
    const s = setup(40);
    const cam = camera(0);
    const culling = s.group.culling!;
    expect(drawMain(s, cam).list).not.toContain(30);
    setInstanceMatrix(s.world, s.group, 30, new Matrix4().makeTranslation(1, 0, 0));
    const next = drawMain(s, cam);
    expect(next.list).toContain(30);
    expect(culling.stats.culls).toBe(1);
    // Its texture rows go up with that draw (the first draw sent the whole texture).
    expect(culling.texture.updateRanges).toEqual([{ start: 0, count: SLOTS_PER_ROW * 16 }]);
    // Moved out again: still listed until the next cull (drawn outside the view, clipped), never lost.
    setInstanceMatrix(s.world, s.group, 30, new Matrix4().makeTranslation(60, 0, 0));
    expect(drawMain(s, cam).list).toContain(30);
  });

  it("culls each shadow pass with its light's own camera: a caster outside the view but inside the shadow box still casts", () => {
    const s = setup(40);
    const view = camera(0);
    // The sun's shadow box over x in [20, 40], looking down.
    const sun = new OrthographicCamera(-10, 10, 10, -10, 0.1, 50);
    sun.position.set(30, 20, 0);
    sun.lookAt(30, 0, 0);
    sun.updateMatrixWorld(true);
    const main = drawMain(s, view);
    const shadow = drawShadow(s, view, sun);
    expect(main.list).not.toContain(15);
    expect(shadow.list).toContain(15);
    expect(shadow.list).toEqual(inView(s.group, sun));
    expect(s.mesh.customDepthMaterial).toBeInstanceOf(CulledDepthMaterial);
    // Both lists are kept: the next frame's passes cull nothing again.
    drawMain(s, view);
    drawShadow(s, view, sun);
    expect(s.group.culling!.stats.culls).toBe(2);
  });

  it('a material that does not read the slot list (an override pass) draws every slot through instanceMatrix, with no slot list bound', () => {
    const s = setup(40);
    const override = new MeshBasicMaterial();
    expect(readsSlots(override)).toBe(false);
    const drawn = drawMain(s, camera(0), override);
    expect(drawn.count).toBe(40);
    expect(drawn.colour).toBeNull();
    // Restored for the next pass.
    expect(drawn.colourAfter).toBe(s.group.culling!.attributes[0]!);
    expect(readsSlots(s.mesh.material as Material)).toBe(true);
  });

  it('switched off, every slot draws through instanceMatrix as a plain InstancedMesh draws, whatever the camera', () => {
    const s = setup(40);
    s.world.render.instanceCulling = false;
    const drawn = drawMain(s, camera(0));
    expect(drawn.count).toBe(40);
    expect(drawn.colour).toBeNull();
    expect(drawn.colourAfter).toBe(s.group.culling!.attributes[0]!);
    s.world.render.instanceCulling = true;
    expect(drawMain(s, camera(0)).list).toEqual(inView(s.group, camera(0)));
  });

  it("binds the group's own matrix texture for each culled draw, with the program unbound so that three uploads it", () => {
    const a = setup(40);
    const b = setup(40);
    // Both groups draw with one material (one asset): its patched programs read one uniform object.
    const material = new MeshStandardMaterial();
    a.mesh.material = material;
    b.mesh.material = material;
    const shader = {
      uniforms: {} as Record<string, { value: unknown }>,
      vertexShader: ShaderLib.standard.vertexShader,
      fragmentShader: ShaderLib.standard.fragmentShader,
      vertexColors: false,
    };
    patchMaterialForCulling(material);
    material.onBeforeCompile(shader as never, a.renderer);
    const uniform = shader.uniforms.instanceMatrices!;
    drawMain(a, camera(0));
    expect(uniform.value).toBe(a.group.culling!.texture);
    expect(a.unbinds()).toBe(1);
    drawMain(b, camera(0));
    expect(uniform.value).toBe(b.group.culling!.texture);
    expect(b.unbinds()).toBe(1);
  });

  it("patches three's shaders: the instance matrix from the texture at the listed slot, no colour from the list", () => {
    const libs = { standard: ShaderLib.standard, physical: ShaderLib.physical, basic: ShaderLib.basic, depth: ShaderLib.depth, distance: ShaderLib.distance };
    for (const [name, lib] of Object.entries(libs)) {
      const material = name === 'depth' ? new CulledDepthMaterial() : name === 'distance' ? new CulledDistanceMaterial() : new MeshStandardMaterial();
      if (!readsSlots(material)) patchMaterialForCulling(material);
      const shader = { uniforms: {} as Record<string, unknown>, vertexShader: lib.vertexShader, fragmentShader: lib.fragmentShader, vertexColors: false };
      material.onBeforeCompile(shader as never, null as never);
      expect(shader.vertexShader, name).toContain('#define instanceMatrix culledInstanceMatrix');
      // The listed slot (instanceColor) read through slotMatrix: 4 texels a slot of the matrix texture.
      expect(shader.vertexShader, name).toContain('culledInstanceMatrix = slotMatrix( int( instanceColor.x ) );');
      expect(shader.vertexShader, name).toContain('int texel = slot * 4;');
      expect(shader.vertexShader, name).toContain('return mat4( texelFetch( instanceMatrices, at, 0 )');
      expect(shader.vertexShader, name).not.toContain('vColor.rgb *= instanceColor.rgb;');
      expect(shader.uniforms.instanceMatrices, name).toBeDefined();
      expect(material.customProgramCacheKey(), name).toBe('instance-culling');
    }
    expect(cullingPatchFits()).toBe(true);
  });

  it('uploads the changed texture rows, row by row, and the whole texture past sixteen rows', () => {
    const n = SLOTS_PER_ROW * 20;
    const s = setup(n);
    const cam = camera(0);
    drawMain(s, cam);
    const texture = s.group.culling!.texture;
    const row = SLOTS_PER_ROW * 16;
    // Two instances far apart: their two rows, not the span between them.
    setInstanceMatrix(s.world, s.group, 3, new Matrix4().makeTranslation(0, 1, 0));
    setInstanceMatrix(s.world, s.group, SLOTS_PER_ROW * 18 + 5, new Matrix4().makeTranslation(1, 1, 0));
    drawMain(s, cam);
    expect(texture.updateRanges).toEqual([
      { start: 0, count: row },
      { start: 18 * row, count: row },
    ]);
    // One slot on each of seventeen rows: the whole texture (no ranges).
    for (let r = 0; r < 17; r++) setInstanceMatrix(s.world, s.group, r * SLOTS_PER_ROW, new Matrix4().makeTranslation(r * 2, 2, 0));
    const version = texture.version;
    drawMain(s, cam);
    expect(texture.updateRanges).toEqual([]);
    expect(texture.version).toBeGreaterThan(version);
  });

  it('deletes its slot buffer with the group, drawn or not', () => {
    const s = setup(4);
    const buffer = s.group.culling!.buffers[0]!;
    disposeInstanceGroup(s.world, s.group.eid);
    expect(s.deleted).toContain(buffer);
    expect(s.group.culling).toBeNull();
  });

  it("a part of several materials casts through three's depth material, unculled: every slot, no slot list", () => {
    const s = setup(10);
    s.mesh.material = [new MeshStandardMaterial(), new MeshStandardMaterial()];
    const threeDepth = new MeshDepthMaterial();
    s.mesh.onBeforeShadow(s.renderer, new Scene(), camera(0), camera(0), s.mesh.geometry, threeDepth, null as never);
    expect(s.mesh.count).toBe(10);
    expect(s.mesh.instanceColor).toBeNull();
    s.mesh.onAfterShadow(s.renderer, new Scene(), camera(0), camera(0), s.mesh.geometry, threeDepth, null as never);
    expect(s.mesh.instanceColor).toBe(s.group.culling!.attributes[0]!);
  });

  it('adding and compacting cull again; the lists hold slots, so a compacted group lists the moved instance at its new slot', () => {
    const s = setup(40);
    const cam = camera(0);
    drawMain(s, cam);
    addInstances(s.world, s.group, [100], new Matrix4().makeTranslation(0, 1, 0).toArray());
    const added = drawMain(s, cam);
    expect(added.list).toContain(40);
    removeInstances(s.world, s.group, [1]);
    compactInstanceGroup(s.world, s.group);
    // Instance 100 moved from slot 40 into slot 1.
    expect(s.group.ids[1]).toBe(100);
    const compacted = drawMain(s, cam);
    expect(compacted.list).toEqual(inView(s.group, cam));
    expect(compacted.list).toContain(1);
  });

  it('growing past its capacity makes a larger texture and buffer, and the passes list the new instances', () => {
    const s = setup(8);
    const cam = camera(0);
    drawMain(s, cam);
    const n = SLOTS_PER_ROW + 10;
    const ids = Array.from({ length: n }, (_, i) => 1000 + i);
    const matrices = new Float32Array(n * 16);
    for (let i = 0; i < n; i++) new Matrix4().makeTranslation(0, 0, -i * 0.01).toArray(matrices, i * 16);
    addInstances(s.world, s.group, ids, matrices);
    const culling = s.group.culling!;
    expect(culling.texture.image.height).toBe(s.group.ids.length / SLOTS_PER_ROW);
    expect(culling.bufferSlots).toBe(s.group.ids.length);
    const drawn = drawMain(s, cam);
    expect(drawn.count).toBe(inView(s.group, cam).length);
    expect(drawn.count).toBeGreaterThan(n);
  });

  it('the bounds index culls as a test of every instance box does, on scattered, rotated instances', () => {
    const n = 3000;
    const matrices = new Float32Array(n * 16);
    const m = new Matrix4();
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let i = 0; i < n; i++)
      m.makeRotationY(random() * 6)
        .setPosition(random() * 200 - 100, random() * 10, random() * 200 - 100)
        .toArray(matrices, i * 16);
    const bvh = new InstanceBVH(new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]));
    bvh.matrices = matrices;
    const ids = new Uint32Array(n).map((_, i) => i);
    ids[17] = 0xffffffff;
    bvh.build(matrices, n, (slot) => ids[slot] !== 0xffffffff);
    const cam = new PerspectiveCamera(60, 1.5, 0.5, 80);
    cam.position.set(10, 5, 30);
    cam.lookAt(-20, 0, -40);
    cam.updateMatrixWorld(true);
    const frustum = new Frustum().setFromProjectionMatrix(new Matrix4().multiplyMatrices(cam.projectionMatrix, cam.matrixWorldInverse));
    const planes = new Float32Array(24);
    frustum.planes.forEach((p, i) => planes.set([p.normal.x, p.normal.y, p.normal.z, p.constant], i * 4));
    const out = new Float32Array(n);
    const k = bvh.cull(planes, n, ids, out);
    const box = new Float32Array(6);
    const expected: number[] = [];
    for (let slot = 0; slot < n; slot++) {
      if (ids[slot] === 0xffffffff) continue;
      bvh.instanceBox(null, slot, box);
      if (frustum.intersectsBox(toBox3(box))) expected.push(slot);
    }
    expect(expected.length).toBeGreaterThan(50);
    expect(expected.length).toBeLessThan(n / 2);
    expect([...out.subarray(0, k)].sort((a, b) => a - b)).toEqual(expected);
    // Instances added after the build are tested one by one; a removed one is left out there.
    const more = new Float32Array((n + 2) * 16);
    more.set(matrices);
    const inViewMatrix = new Matrix4().setPosition(cam.position.clone().add(cam.getWorldDirection(new Vector3()).multiplyScalar(10)));
    inViewMatrix.toArray(more, n * 16);
    inViewMatrix.toArray(more, (n + 1) * 16);
    bvh.matrices = more;
    const idsMore = new Uint32Array(n + 2);
    idsMore.set(ids);
    idsMore[n] = n;
    idsMore[n + 1] = 0xffffffff;
    const out2 = new Float32Array(n + 2);
    const k2 = bvh.cull(planes, n + 2, idsMore, out2);
    expect(k2).toBe(k + 1);
    expect([...out2.subarray(0, k2)]).toContain(n);
    expect([...out2.subarray(0, k2)]).not.toContain(n + 1);
  });

  it('without a renderer the meshes draw as plain InstancedMeshes', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    bindObject(world, eid, new Group());
    const group = createInstanceGroup(world, eid, {
      uuid: 'g',
      asset: asset(),
      ids: new Uint32Array([0]),
      matrices: new Matrix4().toArray(new Float32Array(16)),
    });
    expect(group.culling).toBeNull();
    const mesh = group.meshes[0] as InstancedMesh;
    expect(mesh.instanceColor).toBeNull();
    expect(mesh.customDepthMaterial).toBeUndefined();
  });
});

describe('levels of detail in the pass lists', () => {
  /** A crate with a simplified level (error 1 cm) and an impostor (1.7 m across). */
  function levelledAsset(): InstanceAsset {
    return {
      ...asset(),
      levels: [{ parts: [{ name: 'crate lod1', geometry: new BoxGeometry(1, 1, 1, 1, 1, 1), material: new MeshStandardMaterial() }], error: 0.01 }],
      impostor: {
        geometry: new BoxGeometry(1, 1, 0),
        material: new MeshStandardMaterial(),
        center: [0, 0, 0],
        radius: 0.87,
        columns: 8,
        elevations: [0, 35, 70],
      },
    };
  }

  /** 60 crates (or n) along x from x = 0, seen from x = -4 along +x, 1000 pixels high. */
  function levelledSetup(n = 60) {
    const world = createViewerWorld();
    const { renderer, buffers, textures, deleted, target } = stubRenderer();
    world.render.renderer = renderer;
    const { object, group } = instanceRow(world, n, levelledAsset());
    object.updateMatrixWorld(true);
    const cam = new PerspectiveCamera(90, 1, 0.1, 1000);
    cam.position.set(-4, 0, 0);
    cam.lookAt(10, 0, 0);
    cam.updateMatrixWorld(true);
    setLevelView(cam, 1000);
    return { world, group, renderer, buffers, textures, deleted, cam, target };
  }

  /**
   * The slots a level's mesh draws: its buffer's first `count`, or for the cards, the card list's
   * first CARD_COUNT_UNIFORM (the mesh then draws that many cards CARDS_PER_DRAW to an instance).
   */
  function listed(s: ReturnType<typeof levelledSetup>, mesh: InstancedMesh, level: number): number[] {
    const culling = s.group.culling!;
    if (culling.cards?.level !== level) return [...s.buffers.get(culling.buffers[level]!)!.subarray(0, mesh.count)].sort((a, b) => a - b);
    const n = CARD_COUNT_UNIFORM.value;
    expect(mesh.count).toBe(Math.ceil(n / CARDS_PER_DRAW));
    expect(mesh.instanceColor).toBeNull();
    return [...s.textures.get(culling.cards.texture)!.texels.subarray(0, n)].sort((a, b) => a - b);
  }

  /** Each level's listed slots in a main pass (or a shadow pass) of `cam` (or `shadowCamera`). */
  function drawLevels(s: ReturnType<typeof levelledSetup>, shadow = false, shadowCamera: Camera = s.cam): number[][] {
    const meshes = [s.group.meshes[0]!, ...s.group.levelMeshes];
    return meshes.map((mesh, level) => {
      const material = shadow ? mesh.customDepthMaterial! : (mesh.material as Material);
      if (shadow) mesh.onBeforeShadow(s.renderer, new Scene(), s.cam, shadowCamera, mesh.geometry, material, null as never);
      else mesh.onBeforeRender(s.renderer, new Scene(), s.cam, mesh.geometry, material, null as never);
      const list = listed(s, mesh, level);
      mesh.onAfterRender(s.renderer, new Scene(), s.cam, mesh.geometry, material, null as never);
      return list;
    });
  }

  it('puts each visible instance in the one level its distance chooses: near at full detail, then simplified, far as cards', () => {
    const s = levelledSetup();
    expect(s.group.levelMeshes).toHaveLength(2);
    expect(s.group.culling!.levelCount).toBe(3);
    const lists = drawLevels(s);
    const all = lists.flat().sort((a, b) => a - b);
    expect(all).toEqual([...new Set(all)]);
    expect(all).toEqual(inView(s.group, s.cam));
    // Distances 4 + 2 i; level 1 (1 cm) from 0.01 x 500 x 1.15 = 5.75 m; the card (1.74 m, 40
    // pixels) from 2 x 0.87 x 500 / 40 x 1.15 = 25 m.
    expect(lists[0]).toEqual([0]);
    expect(lists[1]!.length).toBeGreaterThan(5);
    expect(lists[2]!.length).toBeGreaterThan(20);
    expect(Math.max(...lists[0]!)).toBeLessThan(Math.min(...lists[1]!));
    expect(Math.max(...lists[1]!)).toBeLessThan(Math.min(...lists[2]!));
  });

  it('pulls the cards, CARDS_PER_DRAW to an instance of the draw: the list in the card list, the last instance’s rest off the triangle count', () => {
    const s = levelledSetup(2500);
    // Far above the middle of the 5 km row: every crate is a fraction of a pixel, a card.
    s.cam.far = 20000;
    s.cam.position.set(2500, 6000, 0);
    s.cam.lookAt(2500, 0, 0);
    s.cam.updateProjectionMatrix();
    s.cam.updateMatrixWorld(true);
    setLevelView(s.cam, 1000);
    const lists = drawLevels(s);
    expect(lists[0]).toEqual([]);
    expect(lists[1]).toEqual([]);
    expect(lists[2]).toEqual(Array.from({ length: 2500 }, (_, i) => i));
    const cards = s.group.levelMeshes[1]!;
    // The card's geometry (a box of no depth: 24 vertices, 12 triangles) CARDS_PER_DRAW times.
    const card = new BoxGeometry(1, 1, 0);
    const one = card.getAttribute('position');
    const many = cards.geometry.getAttribute('position');
    expect(many.count).toBe(one.count * CARDS_PER_DRAW);
    expect(cards.geometry.index!.count).toBe(card.index!.count * CARDS_PER_DRAW);
    const k = CARDS_PER_DRAW - 1;
    expect([many.getX(k * one.count + 5), many.getY(k * one.count + 5)]).toEqual([one.getX(5), one.getY(5)]);
    expect(cards.geometry.index!.getX(k * card.index!.count + 7)).toBe(card.index!.getX(7) + k * one.count);
    // As three counts the draw (every card of each draw instance), then the hook after it.
    const info = s.renderer.info.render;
    cards.onBeforeRender(s.renderer, new Scene(), s.cam, cards.geometry, cards.material as Material, null as never);
    expect(cards.count).toBe(3);
    info.triangles = (cards.count * cards.geometry.index!.count) / 3;
    cards.onAfterRender(s.renderer, new Scene(), s.cam, cards.geometry, cards.material as Material, null as never);
    expect(info.triangles).toBe(2500 * 12);
    expect(cards.count).toBe(3);
  });

  it("counts the picture's triangles finer than the coarsest level (what the budget's bias can take away), not the shadow passes'", () => {
    const s = levelledSetup();
    s.world.render.instanceFinerTriangles = 0;
    const lists = drawLevels(s);
    // A box of 12 triangles at both mesh levels; the cards are the coarsest.
    expect(s.world.render.instanceFinerTriangles).toBe((lists[0]!.length + lists[1]!.length) * 12);
    s.world.render.instanceFinerTriangles = 0;
    drawLevels(s, true);
    expect(s.world.render.instanceFinerTriangles).toBe(0);
    // A part of several materials is drawn a geometry group at a time: each call counts its group.
    const mesh = s.group.meshes[0]!;
    s.world.render.instanceFinerTriangles = 0;
    mesh.onBeforeRender(s.renderer, new Scene(), s.cam, mesh.geometry, mesh.material as Material, { start: 0, count: 6, materialIndex: 0 } as never);
    expect(s.world.render.instanceFinerTriangles).toBe(lists[0]!.length * 2);
  });

  it('makes the card list again, larger, when the group grows past its capacity, and lets go of it with the group', () => {
    const s = levelledSetup();
    const before = s.group.culling!.cards!.texture;
    const capacity = s.group.ids.length;
    const ids = Array.from({ length: capacity }, (_, i) => 1000 + i);
    const matrices = new Float32Array(capacity * 16);
    for (let i = 0; i < capacity; i++) new Matrix4().makeTranslation(200 + i * 2, 0, 0).toArray(matrices, i * 16);
    addInstances(s.world, s.group, ids, matrices);
    const after = s.group.culling!.cards!.texture;
    expect(after).not.toBe(before);
    expect(s.deleted).toContain(before);
    expect(s.textures.get(after)!.texels.length).toBeGreaterThanOrEqual(s.group.ids.length);
    // Far ones are cards, listed whole in the new texture.
    s.cam.far = 20000;
    s.cam.position.set(capacity, 8000, 0);
    s.cam.lookAt(capacity, 0, 0);
    s.cam.updateProjectionMatrix();
    s.cam.updateMatrixWorld(true);
    setLevelView(s.cam, 1000);
    expect(drawLevels(s)[2]).toHaveLength(s.group.count);
    disposeInstanceGroup(s.world, s.group.eid);
    expect(s.deleted).toContain(after);
  });

  it('casts the cards’ instances with the coarsest mesh level in a shadow pass', () => {
    const s = levelledSetup();
    const main = drawLevels(s);
    const shadow = drawLevels(s, true);
    expect(shadow[2]).toEqual([]);
    expect(shadow[1]).toEqual([...main[1]!, ...main[2]!].sort((a, b) => a - b));
    expect(shadow[0]).toEqual(main[0]);
  });

  it("chooses a directional light's levels by its map's texels, whatever the picture's view, and leaves the picture's choice alone", () => {
    const s = levelledSetup();
    const main = drawLevels(s);
    // The sun's box over the whole row: 130 m across.
    const sun = new OrthographicCamera(-65, 65, 65, -65, 0.1, 500);
    sun.position.set(60, 100, 0);
    sun.lookAt(60, 0, 0);
    sun.updateMatrixWorld(true);
    const inSunView = inView(s.group, sun);
    // 1024 texels over 130 m (7.9 a metre): the 1 cm level's error is under two texels for every crate,
    // the near ones included; no card in a shadow.
    s.target.current = { width: 1024, height: 1024 };
    const coarse = drawLevels(s, true, sun);
    expect(coarse[0]).toEqual([]);
    expect(coarse[1]).toEqual(inSunView);
    expect(coarse[2]).toEqual([]);
    // 32768 texels over it (252 a metre): 1 cm is more than two texels, every crate at full detail.
    // The same box, another map: the kept list is not used for it.
    s.target.current = { width: 32768, height: 32768 };
    const fine = drawLevels(s, true, sun);
    expect(fine[0]).toEqual(inSunView);
    expect(fine[1]).toEqual([]);
    // The picture's levels are still its own.
    s.target.current = null;
    expect(drawLevels(s)).toEqual(main);
  });

  it("a scaled instance whose picture level stays takes its new level in the sun's kept list", () => {
    const s = levelledSetup();
    const sun = new OrthographicCamera(-65, 65, 65, -65, 0.1, 500);
    sun.position.set(60, 100, 0);
    sun.lookAt(60, 0, 0);
    sun.updateMatrixWorld(true);
    s.target.current = { width: 1024, height: 1024 };
    // The nearest crate: full detail in the picture, the 1 cm level in the sun's map.
    expect(drawLevels(s)[0]).toEqual([0]);
    expect(drawLevels(s, true, sun)[1]).toContain(0);
    const culls = s.group.culling!.stats.culls;
    // Forty times larger where it stands: the picture keeps it at full detail (nothing finer), and
    // the sun's list is made again with it at full detail (1 cm x 40 is 3.2 texels, over two).
    setInstanceMatrix(s.world, s.group, 0, new Matrix4().makeScale(40, 40, 40));
    expect(drawLevels(s)[0]).toContain(0);
    const cast = drawLevels(s, true, sun);
    expect(cast[0]).toEqual([0]);
    expect(cast[1]).not.toContain(0);
    expect(s.group.culling!.stats.culls).toBeGreaterThan(culls);
    // Moved again without a change of size: the sun's list is kept (a drag re-culls nothing), and
    // so is a second sun's of another map size, each checked against its own levels.
    const second = new OrthographicCamera(-130, 130, 130, -130, 0.1, 500);
    second.position.set(60, 100, 0);
    second.lookAt(60, 0, 0);
    second.updateMatrixWorld(true);
    const drawSecond = () => {
      s.target.current = { width: 512, height: 512 };
      const lists = drawLevels(s, true, second);
      s.target.current = { width: 1024, height: 1024 };
      return lists;
    };
    drawSecond();
    drawLevels(s, true, sun);
    const kept = s.group.culling!.stats.culls;
    for (let i = 1; i <= 5; i++) {
      setInstanceMatrix(s.world, s.group, 0, new Matrix4().makeScale(40, 40, 40).setPosition(0, 0, 0.01 * i));
      drawLevels(s, true, sun);
      drawSecond();
    }
    expect(s.group.culling!.stats.culls).toBe(kept);
  });

  it('draws a moved instance at its new level in the next pass, and every instance at full detail with levels off', () => {
    const s = levelledSetup();
    const far = 40;
    expect(drawLevels(s)[2]).toContain(far);
    setInstanceMatrix(s.world, s.group, far, new Matrix4().makeTranslation(-2, 0, 0.5));
    const lists = drawLevels(s);
    expect(lists[0]).toContain(far);
    expect(lists[2]).not.toContain(far);
    s.world.render.instanceLevels = false;
    const off = drawLevels(s);
    expect(off[1]).toEqual([]);
    expect(off[2]).toEqual([]);
    expect(off[0]).toEqual(inView(s.group, s.cam));
    // Culling off: full detail through instanceMatrix, the levels draw nothing.
    s.world.render.instanceCulling = false;
    const mesh = s.group.levelMeshes[0]!;
    mesh.onBeforeRender(s.renderer, new Scene(), s.cam, mesh.geometry, mesh.material as Material, null as never);
    expect(mesh.count).toBe(0);
  });

  it('keeps the levels out of picking: only the full-detail meshes are cast against', () => {
    const s = levelledSetup();
    for (const mesh of s.group.levelMeshes) {
      const hits: unknown[] = [];
      mesh.raycast({} as never, hits as never);
      expect(hits).toEqual([]);
      expect(mesh.userData.instanceLevel).toBeGreaterThan(0);
    }
  });
});
