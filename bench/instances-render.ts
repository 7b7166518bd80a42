import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { browserCpu } from './load-run';
import { median } from './stats';

/**
 * Issue 15's choice of how instanced asset groups are drawn, measured in the browser (Chromium on
 * SwiftShader) on a generated scene (the sets our model service sends and the demo assets' GLBs,
 * as bench/instances-load.bench.ts serves them). One page, three ways to draw the same groups:
 *
 *   instanced  plain InstancedMeshes, as src/engine/instances.ts drew them before per-instance
 *              culling (issue 35): per group one InstancedBufferAttribute shared by one
 *              InstancedMesh per asset part and material; three culls the whole group (its
 *              bounding sphere), so every instance is drawn whenever the group is in view;
 *   culled     the engine itself (src/engine/instances.ts, bundled: instancesEngineBundle), with
 *              its per-instance culling in every pass (src/engine/instance-culling.ts), its bounds
 *              index built first as the viewer builds it after the first picture, and the assets'
 *              levels of detail and impostors (the assets made from their GLBs as the viewer makes
 *              them, src/scene/instance-asset-gltf.ts; the level view set each frame, bias 1);
 *   culledfull the same at full detail (world.render.instanceLevels off): culling alone. Both draw
 *              the asset CDN's file, which the upload optimised (meshopt: reordered, quantised);
 *              the other ways draw the plain GLB a person has, as they would;
 *   im2        @three.ez/instanced-mesh: one InstancedMesh2 per asset (its parts merged into one
 *              geometry with a group per material), with its BVH: per-instance frustum culling
 *              on the CPU every frame and every shadow pass, the visible indices uploaded;
 *   im2linear  the same without its BVH: each instance's sphere tested against the frustum, every
 *              frame and every shadow pass;
 *   chunks     our own alternative: each group split into GRID x GRID spatial cells, one
 *              InstancedMesh per cell x part with the cell's bounding sphere, culled by three.
 *
 * Like the viewer on `?quality=low` (src/viewer/quality.ts): 800 x 600, pixel ratio 1, MSAA, PCF
 * shadows from a sun with a 1024 map whose box (half-extent 150, SHADOW_CAMERA_HALF_EXTENT)
 * follows the view's target, a hemisphere light. No post-processing (low has none).
 *
 * Three views: 'whole' frames the scene's bounding sphere (every instance in view); 'inside' is a
 * camera 30 m above the middle of the city looking 35 degrees down at a point 43 m away (the
 * frustum reaches the ground about 135 m away: a small part of the scene in view); 'street' stands
 * at eye height (1.7 m) in the middle of the city looking along x (the far plane 2 km away: along
 * the street to the city's edge). Moving (`moving`), the camera shifts a little every frame, so
 * that every way to draw culls each frame anew.
 *
 * Per view (after frames not counted before the first: programs linked, first uploads), a few frames, each
 * `renderer.render()` then a one-pixel readPixels, which waits until the GPU (SwiftShader, in the
 * GPU process, on the CPU) has drawn it: 'frame' is render + wait, 'render call' the main
 * thread's render() alone (culling, uniforms, draw calls), 'CPU' the CPU time of every process of
 * that browser over the frames (/proc) divided by their number. Each mode in a fresh browser.
 */

export type RenderMode = 'instanced' | 'culled' | 'culledfull' | 'im2' | 'im2linear' | 'chunks';
export type RenderView = 'whole' | 'inside' | 'street';

export interface RenderFigures {
  /** Medians over the frames, ms. */
  frameMs: number;
  renderMs: number;
  /** CPU time of all the browser's processes per frame, ms (null where /proc cannot tell). */
  cpuMs: number | null;
  /** Draw calls and triangles of one frame (shadow pass included). */
  calls: number;
  triangles: number;
  frames: number;
  /** 'culled', 'culledfull': the engine's culling time per frame (finding the pass lists, levels chosen), ms, median; null for the others. */
  cullMs: number | null;
}

export interface RenderRun {
  mode: RenderMode;
  /** Building the meshes from the decoded sets (and the BVH for im2), ms. */
  buildMs: number;
  views: Partial<Record<RenderView, RenderFigures>>;
}

const ROOT = resolve(import.meta.dirname, '..');

/** The engine's instanced groups as one ES module with three external (bench/instances-engine-entry.ts). */
export async function instancesEngineBundle(): Promise<string> {
  const { build } = await import('vite');
  const out = mkdtempSync(join(tmpdir(), 'bench-engine-'));
  try {
    await build({
      configFile: false,
      publicDir: false,
      logLevel: 'warn',
      build: {
        outDir: out,
        emptyOutDir: true,
        minify: false,
        lib: { entry: join(ROOT, 'bench/instances-engine-entry.ts'), formats: ['es'], fileName: () => 'engine.js' },
        rolldownOptions: { external: [/^three(\/.*)?$/] },
      },
    });
    return readFileSync(join(out, 'engine.js'), 'utf8');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The files the page imports besides three (served by bench/load-pages.ts's `extra`). */
export async function instancesRenderFiles(): Promise<Record<string, { type: string; body: string | Uint8Array }>> {
  const js = 'text/javascript';
  return {
    '/lib/engine.js': { type: js, body: await instancesEngineBundle() },
    '/lib/instanced-mesh.js': { type: js, body: readFileSync(join(ROOT, 'node_modules/@three.ez/instanced-mesh/build/index.js')) },
    '/lib/bvh.js': { type: js, body: readFileSync(join(ROOT, 'node_modules/bvh.js/build/index.js')) },
  };
}

/** The page: `?mode=instanced|im2|im2linear|chunks&grid=8` (`&shadows=0`, `&aa=0` to take those away); it sets window.__ready (or __error) and offers window.__measure(view, frames). */
export function instancesRenderPage(groups: { glb: string; cdnGlb: string; set: string }[]): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Instances: how to draw them</title>
<style>html,body{margin:0;height:100%;overflow:hidden}canvas{display:block}</style>
<script type="importmap">{"imports":{"three":"/three/build/three.module.js","three/addons/":"/three/examples/jsm/","bvh.js":"/lib/bvh.js","@three.ez/instanced-mesh":"/lib/instanced-mesh.js"}}</script>
</head><body>
<script type="module">
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { InstancedMesh2 } from '@three.ez/instanced-mesh';
import * as engine from '/lib/engine.js';

try {
const params = new URLSearchParams(location.search);
const mode = params.get('mode') ?? 'instanced';
// The engine's modes draw the assets as the viewer gets them from the asset CDN (levels and impostor included).
const engineMode = mode === 'culled' || mode === 'culledfull';
const GRID = Number(params.get('grid') ?? 8);
const SHADOWS = params.get('shadows') !== '0';
const renderer = new THREE.WebGLRenderer({ antialias: params.get('aa') !== '0' });
renderer.setPixelRatio(1);
renderer.setSize(800, 600);
renderer.shadowMap.enabled = SHADOWS;
renderer.shadowMap.type = THREE.PCFShadowMap;
document.body.appendChild(renderer.domElement);
const gl = renderer.getContext();
const scene = new THREE.Scene();
scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 1.5));
const sun = new THREE.DirectionalLight(0xffffff, 2);
sun.castShadow = true;
sun.shadow.mapSize.set(1024, 1024);
const H = 150;
Object.assign(sun.shadow.camera, { left: -H, right: H, top: H, bottom: -H, near: H * 0.01, far: H * 4 });
sun.shadow.camera.updateProjectionMatrix();
scene.add(sun, sun.target);
const camera = new THREE.PerspectiveCamera(45, 800 / 600, 0.1, 2000);
// The asset CDN's GLBs are meshopt-compressed (as the viewer's loader reads them).
const loader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
const groups = ${JSON.stringify(groups)};
const loaded = await Promise.all(groups.map(async (g) => {
  const [gltf, buffer] = await Promise.all([loader.loadAsync(engineMode ? g.cdnGlb : g.glb), fetch(g.set).then((r) => r.arrayBuffer())]);
  const count = new DataView(buffer).getUint32(8, true);
  const packed = new Float32Array(buffer, 24 + count * 4, count * 12);
  const m = new Float32Array(count * 16);
  for (let i = 0, p = 0, o = 0; i < count; i++, p += 12, o += 16) {
    m[o] = packed[p]; m[o + 1] = packed[p + 1]; m[o + 2] = packed[p + 2];
    m[o + 4] = packed[p + 3]; m[o + 5] = packed[p + 4]; m[o + 6] = packed[p + 5];
    m[o + 8] = packed[p + 6]; m[o + 9] = packed[p + 7]; m[o + 10] = packed[p + 8];
    m[o + 12] = packed[p + 9]; m[o + 13] = packed[p + 10]; m[o + 14] = packed[p + 11]; m[o + 15] = 1;
  }
  gltf.scene.updateMatrixWorld(true);
  const parts = [];
  gltf.scene.traverse((o) => { if (o.isMesh) parts.push({ geometry: o.geometry.clone().applyMatrix4(o.matrixWorld), material: o.material }); });
  return { count, matrices: m, parts, gltf };
}));

const t0 = performance.now();
const matrix = new THREE.Matrix4();
const meshes = [];
const world = engine.createViewerWorld();
world.render.renderer = renderer;
world.render.instanceLevels = mode === 'culled';
const engineGroups = [];
for (const g of loaded) {
  if (engineMode) {
    const eid = engine.addViewerEntity(world);
    const object = new THREE.Group();
    engine.bindObject(world, eid, object);
    scene.add(object);
    const asset = engine.assetFromGltf(g.gltf, 'a' + engineGroups.length);
    const ids = new Uint32Array(g.count);
    for (let i = 0; i < g.count; i++) ids[i] = i;
    const group = engine.createInstanceGroup(world, eid, { uuid: 'g' + engineGroups.length, asset, ids, matrices: g.matrices });
    engine.rebuildBounds(group);
    engineGroups.push(group);
    meshes.push(...group.meshes);
  } else if (mode === 'instanced') {
    const attribute = new THREE.InstancedBufferAttribute(g.matrices, 16);
    for (const part of g.parts) {
      const mesh = new THREE.InstancedMesh(part.geometry, part.material, 0);
      mesh.instanceMatrix = attribute;
      mesh.count = g.count;
      mesh.computeBoundingSphere();
      meshes.push(mesh);
    }
  } else if (mode === 'im2' || mode === 'im2linear') {
    const merged = g.parts.length > 1 ? mergeGeometries(g.parts.map((p) => p.geometry), true) : g.parts[0].geometry;
    if (!merged) throw new Error('the parts of an asset could not be merged');
    const mesh = new InstancedMesh2(merged, g.parts.length > 1 ? g.parts.map((p) => p.material) : g.parts[0].material, { capacity: g.count, renderer });
    mesh.addInstances(g.count);
    // The matrices straight into its texture's data (16 floats an instance, as setMatrixAt writes them).
    mesh.matricesTexture._data.set(g.matrices);
    if (mode === 'im2') mesh.computeBVH();
    meshes.push(mesh);
  } else if (mode === 'chunks') {
    let minX = Infinity, maxX = -Infinity, minZ = Infinity, maxZ = -Infinity;
    for (let i = 0; i < g.count; i++) {
      const x = g.matrices[i * 16 + 12], z = g.matrices[i * 16 + 14];
      if (x < minX) minX = x; if (x > maxX) maxX = x; if (z < minZ) minZ = z; if (z > maxZ) maxZ = z;
    }
    const sx = (maxX - minX) / GRID || 1, sz = (maxZ - minZ) / GRID || 1;
    const cellOf = new Uint16Array(g.count);
    const sizes = new Uint32Array(GRID * GRID);
    for (let i = 0; i < g.count; i++) {
      const cx = Math.min(GRID - 1, Math.floor((g.matrices[i * 16 + 12] - minX) / sx));
      const cz = Math.min(GRID - 1, Math.floor((g.matrices[i * 16 + 14] - minZ) / sz));
      sizes[(cellOf[i] = cz * GRID + cx)]++;
    }
    const arrays = Array.from(sizes, (n) => new Float32Array(n * 16));
    const fill = new Uint32Array(GRID * GRID);
    for (let i = 0; i < g.count; i++) {
      const c = cellOf[i];
      arrays[c].set(g.matrices.subarray(i * 16, i * 16 + 16), fill[c]++ * 16);
    }
    arrays.forEach((array, c) => {
      if (!sizes[c]) return;
      const attribute = new THREE.InstancedBufferAttribute(array, 16);
      for (const part of g.parts) {
        const mesh = new THREE.InstancedMesh(part.geometry, part.material, 0);
        mesh.instanceMatrix = attribute;
        mesh.count = sizes[c];
        mesh.computeBoundingSphere();
        meshes.push(mesh);
      }
    });
  } else throw new Error('unknown mode ' + mode);
}
for (const mesh of meshes) {
  mesh.castShadow = true;
  mesh.receiveShadow = true;
  if (!mesh.parent) scene.add(mesh);
}
const buildMs = performance.now() - t0;

// The views.
const box = new THREE.Box3();
for (const g of loaded) for (let i = 0; i < g.count; i++) box.expandByPoint(new THREE.Vector3(g.matrices[i * 16 + 12], g.matrices[i * 16 + 13], g.matrices[i * 16 + 14]));
const sphere = box.getBoundingSphere(new THREE.Sphere());
function place(view) {
  const target = new THREE.Vector3();
  if (view === 'whole') {
    const distance = sphere.radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2));
    target.copy(sphere.center);
    camera.position.copy(sphere.center).add(new THREE.Vector3(0.6, 0.4, 1).normalize().multiplyScalar(distance));
    camera.near = distance / 100;
    camera.far = distance * 4;
  } else if (view === 'street') {
    target.set(sphere.center.x + 50, 1.7, sphere.center.z + 3);
    camera.position.set(sphere.center.x, 1.7, sphere.center.z + 3);
    camera.near = 0.1;
    camera.far = 2000;
  } else {
    const down = THREE.MathUtils.degToRad(35);
    target.set(sphere.center.x + 10, 0, sphere.center.z + 10);
    camera.position.set(target.x - (30 / Math.tan(down)) * Math.SQRT1_2, 30, target.z - (30 / Math.tan(down)) * Math.SQRT1_2);
    camera.near = 0.1;
    camera.far = 2000;
  }
  camera.updateProjectionMatrix();
  camera.lookAt(target);
  camera.updateMatrixWorld();
  sun.target.position.copy(target);
  sun.position.copy(target).add(new THREE.Vector3(0.5, 0.8, 0.3).normalize().multiplyScalar(2 * H));
  scene.updateMatrixWorld(true);
}
const pixel = new Uint8Array(4);
const cullTime = () => engineGroups.reduce((t, g) => t + g.culling.stats.cullMs, 0);
// The camera turns a little each frame (moving: every pass list is found again), back at rest for the picture.
window.__measure = (view, frames, moving) => {
  place(view);
  const frame = [], render = [], cull = [];
  const start = camera.position.clone();
  for (let f = 0; f < frames; f++) {
    if (moving) {
      camera.position.copy(start).add(new THREE.Vector3(Math.sin(f) * 0.5, 0, Math.cos(f) * 0.5));
      camera.updateMatrixWorld();
    }
    // As the viewer's render system does each frame: the view every pass chooses levels for.
    if (engineMode) engine.setLevelView(camera, renderer.domElement.height);
    const c0 = cullTime();
    const a = performance.now();
    renderer.render(scene, camera);
    const b = performance.now();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    frame.push(performance.now() - a);
    render.push(b - a);
    cull.push(cullTime() - c0);
  }
  return { frame, render, cull: engineMode ? cull : null, calls: renderer.info.render.calls, triangles: renderer.info.render.triangles };
};
window.__ready = { buildMs, meshes: meshes.length, instances: loaded.reduce((n, g) => n + g.count, 0) };
} catch (error) {
  window.__error = String(error && error.stack || error);
}
</script></body></html>`;
}


/** One mode in a fresh browser: the views in order, `frames[view]` frames each (after `warmup` frames before the first). */
export async function measureRenderMode(
  pageUrl: string,
  mode: RenderMode,
  options: { frames: Record<RenderView, number>; grid: number; timeoutMs: number; query?: string; warmup?: number; views?: readonly RenderView[]; moving?: boolean },
): Promise<RenderRun> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'bench-instances-render-'));
  let context: BrowserContext | null = null;
  try {
    context = await chromium.launchPersistentContext(userDataDir, { executablePath: findChromium(), args: CHROMIUM_ARGS, headless: true, viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
    const page = context.pages()[0] ?? (await context.newPage());
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${pageUrl}?mode=${mode}&grid=${options.grid}${options.query ? `&${options.query}` : ''}`, { waitUntil: 'commit', timeout: options.timeoutMs });
    await page.waitForFunction('window.__ready || window.__error', undefined, { timeout: options.timeoutMs, polling: 200 });
    const error = (await page.evaluate('window.__error || null')) as string | null;
    if (error || errors.length) throw new Error(`the ${mode} page failed: ${error ?? errors.join('; ')}`);
    const ready = (await page.evaluate('window.__ready')) as { buildMs: number };
    const views: Partial<Record<RenderView, RenderFigures>> = {};
    page.setDefaultTimeout(options.timeoutMs);
    let first = true;
    for (const view of options.views ?? (['inside', 'whole'] as const)) {
      // Frames not counted before the first view: programs linked, textures and buffers uploaded.
      // A later view needs none (the same programs and data, only the camera moves).
      if (first) await page.evaluate(`window.__measure(${JSON.stringify(view)}, ${options.warmup ?? 2})`);
      first = false;
      const before = browserCpu(userDataDir);
      const frames = options.frames[view];
      const r = (await page.evaluate(`window.__measure(${JSON.stringify(view)}, ${frames}, ${options.moving ? 'true' : 'false'})`)) as { frame: number[]; render: number[]; cull: number[] | null; calls: number; triangles: number };
      const after = browserCpu(userDataDir);
      if (errors.length) throw new Error(`the ${mode} page failed: ${errors.join('; ')}`);
      views[view] = {
        frameMs: median(r.frame),
        renderMs: median(r.render),
        cpuMs: before && after ? (after.total - before.total) / frames : null,
        calls: r.calls,
        triangles: r.triangles,
        frames,
        cullMs: r.cull ? median(r.cull) : null,
      };
    }
    return { mode, buildMs: ready.buildMs, views };
  } finally {
    if (context) await context.close().catch(() => undefined);
    rmSync(userDataDir, { recursive: true, force: true });
  }
}
