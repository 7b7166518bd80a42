import { BackSide, BoxGeometry, DirectionalLight, DoubleSide, FrontSide, InstancedMesh, MeshDepthMaterial, MeshDistanceMaterial, MeshStandardMaterial, PerspectiveCamera, PointLight, Scene, WebGLRenderTarget, type Object3D, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import type { InstanceAsset } from '../../../src/engine/instances';
import { CulledDepthMaterial, shadowMaterialsFor } from '../../../src/engine/instance-culling-shaders';
import { compileGroupPrograms } from '../../../src/viewer/instance-groups';

/** A renderer that records what compileAsync is asked to compile and for which target (no WebGL in Node). */
function fakeRenderer(shadows = true) {
  const calls: { meshes: InstancedMesh[]; target: WebGLRenderTarget | null; scene: Scene }[] = [];
  let current: WebGLRenderTarget | null = null;
  // One program per material type (three shares a program between materials of one variant).
  const firstUses: string[] = [];
  const programs = new Map<string, { getUniforms(): void }>();
  const renderer = {
    properties: {
      get: (material: { type: string }) => {
        let program = programs.get(material.type);
        if (!program) programs.set(material.type, (program = { getUniforms: () => void firstUses.push(material.type) }));
        return { currentProgram: program };
      },
    },
    shadowMap: { enabled: shadows },
    getRenderTarget: () => current,
    setRenderTarget: (t: WebGLRenderTarget | null) => void (current = t),
    compileAsync: (object: Object3D, _camera: unknown, scene: Scene) => {
      calls.push({ meshes: object.children as InstancedMesh[], target: current, scene });
      return Promise.resolve(object);
    },
  };
  return { renderer: renderer as unknown as WebGLRenderer, calls, current: () => current, firstUses };
}

function asset(): InstanceAsset {
  const front = new MeshStandardMaterial({ side: FrontSide });
  const double = new MeshStandardMaterial({ side: DoubleSide, alphaTest: 0.5 });
  return {
    assetId: 'tree',
    parts: [
      { name: 'trunk', geometry: new BoxGeometry(), material: front },
      { name: 'crown', geometry: new BoxGeometry(), material: [front, double] },
    ],
    box: new Float32Array([-1, -1, -1, 1, 1, 1]),
    placeholder: false,
  };
}

function sceneWith(...lights: Object3D[]): Scene {
  const scene = new Scene();
  scene.add(...lights);
  return scene;
}

describe('compileGroupPrograms: the programs the groups are drawn with, before they are', () => {
  it('compiles each part as an InstancedMesh with its own materials, receiving shadows, for the scene and its target', async () => {
    const { renderer, calls, current, firstUses } = fakeRenderer();
    const sun = new DirectionalLight();
    sun.castShadow = true;
    const scene = sceneWith(sun);
    const sceneTarget = new WebGLRenderTarget(4, 4);
    const a = asset();
    const compiled = compileGroupPrograms({ renderer, camera: new PerspectiveCamera(), scene, sceneTarget }, a, true);
    await compiled.ready;
    const main = calls[0]!;
    expect(main.scene).toBe(scene);
    expect(main.target).toBe(sceneTarget);
    expect(main.meshes.map((m) => m.material)).toEqual(a.parts.map((p) => p.material));
    expect(main.meshes.every((m) => m.isInstancedMesh && m.receiveShadow && m.castShadow)).toBe(true);
    // The previous target is put back.
    expect(current()).toBeNull();
    // Each program's first use (three's link check, which waits for the link) is done before ready, once per program.
    expect(firstUses.sort()).toEqual(['MeshDepthMaterial', 'MeshStandardMaterial']);
  });

  it('compiles the shadow pass\'s depth programs as three sets them up: the shadow side, the alpha test', async () => {
    const { renderer, calls } = fakeRenderer();
    const sun = new DirectionalLight();
    sun.castShadow = true;
    await compileGroupPrograms({ renderer, camera: new PerspectiveCamera(), scene: sceneWith(sun), sceneTarget: null }, asset(), true).ready;
    expect(calls).toHaveLength(2);
    const depth = calls[1]!;
    // Drawn into a render target (no tone mapping, linear output), never the screen.
    expect(depth.target).toBeInstanceOf(WebGLRenderTarget);
    const materials = depth.meshes.map((m) => m.material as MeshDepthMaterial);
    expect(materials).toHaveLength(3);
    expect(materials.every((m) => m instanceof MeshDepthMaterial)).toBe(true);
    expect(materials.map((m) => m.side)).toEqual([BackSide, BackSide, DoubleSide]);
    expect(materials.map((m) => m.alphaTest)).toEqual([0, 0, 0.5]);
    expect(depth.meshes.every((m) => m.isInstancedMesh)).toBe(true);
  });

  it('a point light that casts adds the distance programs; no caster, no shadow map or a group that casts none: no shadow programs', async () => {
    const point = new PointLight();
    point.castShadow = true;
    const withPoint = fakeRenderer();
    await compileGroupPrograms({ renderer: withPoint.renderer, camera: new PerspectiveCamera(), scene: sceneWith(point), sceneTarget: null }, asset(), true).ready;
    expect(withPoint.calls[1]!.meshes.every((m) => m.material instanceof MeshDistanceMaterial)).toBe(true);

    const sun = new DirectionalLight();
    sun.castShadow = true;
    for (const [shadows, scene, casts] of [
      [true, sceneWith(new DirectionalLight()), true],
      [false, sceneWith(sun), true],
      [true, sceneWith(sun), false],
    ] as const) {
      const fake = fakeRenderer(shadows);
      await compileGroupPrograms({ renderer: fake.renderer, camera: new PerspectiveCamera(), scene, sceneTarget: null }, asset(), casts).ready;
      expect(fake.calls).toHaveLength(1);
    }
  });

  it('compiles a one-material part\'s shadow with the culled depth material its groups draw with (kept), and keeps the stand-ins of a multi-material part until dispose', async () => {
    const { renderer, calls } = fakeRenderer();
    const sun = new DirectionalLight();
    sun.castShadow = true;
    const a = asset();
    const compiled = compileGroupPrograms({ renderer, camera: new PerspectiveCamera(), scene: sceneWith(sun), sceneTarget: null }, a, true);
    await compiled.ready;
    const depth = calls[1]!.meshes.map((mesh) => mesh.material as MeshDepthMaterial);
    expect(depth).toHaveLength(3);
    // The trunk (one material): the depth material of that material, which its groups' meshes use.
    expect(depth[0]).toBe(shadowMaterialsFor(a.parts[0]!.material as MeshStandardMaterial).depth);
    expect(depth[0]).toBeInstanceOf(CulledDepthMaterial);
    // The crown (two materials): stand-ins as three's shadow pass makes them.
    expect(depth[1]).not.toBeInstanceOf(CulledDepthMaterial);
    // The meshes carry a slot list where the groups' draws do (the same program variants): the
    // parts, and the shadow of the one-material part; not the shadows through three's materials.
    for (const mesh of calls[0]!.meshes) expect(mesh.instanceColor).not.toBeNull();
    expect(calls[1]!.meshes.map((mesh) => mesh.instanceColor !== null)).toEqual([true, false, false]);
    let disposed = 0;
    for (const m of depth) m.addEventListener('dispose', () => disposed++);
    expect(disposed).toBe(0);
    compiled.dispose();
    expect(disposed).toBe(2);
  });
});
