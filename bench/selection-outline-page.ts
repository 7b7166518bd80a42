/**
 * The page of bench/selection-outline.bench.ts (bundled by it with Vite, run in headless Chromium):
 * one scene, a selection, and the frame drawn several ways, each timed up to a 1-pixel readPixels
 * after it (which waits for the GPU): the plain picture (renderer.render: the low tier, no
 * post-processing), the stack (an EffectComposer: RenderPass, EffectPass(vignette)), the editor's
 * selection outline (src/editor/selection-outline.ts) after either, and the EffectPass holding
 * postprocessing's OutlineEffect too (its defaults: half-resolution mask, x-ray).
 */
import { AmbientLight, BoxGeometry, CylinderGeometry, DirectionalLight, Group, Mesh, MeshStandardMaterial, PerspectiveCamera, PlaneGeometry, Scene, WebGLRenderer, type Object3D } from 'three';
import { BlendFunction, EffectComposer, EffectPass, OutlineEffect, RenderPass, VignetteEffect } from 'postprocessing';
import { createSelectionOutline } from '../src/editor/selection-outline';
import { runFrameSteps } from '../src/engine/frame-steps';
import { createViewerWorld } from '../src/engine/world';

export interface OutlineBenchResult {
  /**
   * plain, stack: the pictures' own times; ours-low, ours-stack: our outline alone after each
   * (the GPU finished before and after it); ours-stack-added, pp-stack-added: what ours and
   * OutlineEffect add to the stack's frame (alternating frames, median of the differences).
   */
  way: 'plain' | 'stack' | 'ours-low' | 'ours-stack' | 'ours-stack-added' | 'pp-stack-added';
  selection: 'small' | 'large';
  ms: number;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/** A floor, a grid of `parts` boxes and cylinders, and two assemblies: a small one (one part) and a large one (40 parts). */
function buildScene(parts: number): { scene: Scene; small: Object3D; large: Object3D } {
  const scene = new Scene();
  scene.add(new AmbientLight(0xffffff, 0.6));
  const sun = new DirectionalLight(0xffffff, 1.5);
  sun.position.set(5, 10, 7);
  scene.add(sun);
  const floor = new Mesh(new PlaneGeometry(80, 80), new MeshStandardMaterial({ color: 0xcccccc }));
  floor.rotation.x = -Math.PI / 2;
  scene.add(floor);
  const box = new BoxGeometry(0.8, 0.8, 0.8);
  const cylinder = new CylinderGeometry(0.3, 0.3, 1.2, 24);
  const materials = [0xd9534f, 0x5bc0de, 0xf0ad4e, 0x5cb85c].map((color) => new MeshStandardMaterial({ color, roughness: 0.6 }));
  const side = Math.ceil(Math.sqrt(parts));
  for (let i = 0; i < parts; i++) {
    const mesh = new Mesh(i % 3 ? box : cylinder, materials[i % materials.length]);
    mesh.position.set((i % side) * 1.6 - side * 0.8, 0.5, Math.floor(i / side) * 1.6 - side * 0.8 - 6);
    scene.add(mesh);
  }
  const large = new Group();
  for (let i = 0; i < 40; i++) {
    const mesh = new Mesh(i % 2 ? box : cylinder, materials[(i + 1) % materials.length]);
    mesh.position.set((i % 8) * 0.7 - 2.5, 0.6 + Math.floor(i / 8) * 0.7, 3);
    large.add(mesh);
  }
  scene.add(large);
  const small = new Mesh(box, materials[2]);
  small.position.set(3.5, 0.5, 4);
  scene.add(small);
  return { scene, small, large };
}

export function runOutlineBench(options: { width: number; height: number; frames: number; parts: number }): OutlineBenchResult[] {
  const canvas = document.createElement('canvas');
  document.body.appendChild(canvas);
  const renderer = new WebGLRenderer({ canvas, antialias: true });
  renderer.setPixelRatio(1);
  renderer.setSize(options.width, options.height);
  const gl = renderer.getContext();
  const pixel = new Uint8Array(4);
  const { scene, small, large } = buildScene(options.parts);
  const camera = new PerspectiveCamera(45, options.width / options.height, 0.1, 200);
  camera.position.set(0, 9, 16);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  scene.updateMatrixWorld();

  const world = createViewerWorld();
  world.render.renderer = renderer;
  world.render.scene = scene;
  world.render.camera = camera;
  const ours = createSelectionOutline(world);

  const composer = new EffectComposer(renderer);
  composer.addPass(new RenderPass(scene, camera));
  const vignette = new VignetteEffect();
  const plainPass = new EffectPass(camera, vignette);
  composer.addPass(plainPass);
  const pp = new OutlineEffect(scene, camera, { blendFunction: BlendFunction.SCREEN, visibleEdgeColor: 0x1f8efa, edgeStrength: 2.5 });
  const ppPass = new EffectPass(camera, vignette, pp);
  ppPass.enabled = false;
  composer.addPass(ppPass);

  const sync = () => gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
  const timed = (draw: () => void): number => {
    const t0 = performance.now();
    draw();
    sync();
    return performance.now() - t0;
  };
  /** Median of b's frame time minus a's, frames alternating (the machine's drift cancels out). */
  const added = (a: () => void, b: () => void): number => {
    for (let i = 0; i < 3; i++) {
      timed(a);
      timed(b);
    }
    const diffs: number[] = [];
    for (let i = 0; i < options.frames; i++) diffs.push(timed(b) - timed(a));
    return median(diffs);
  };
  /** Median time of `what` alone, right after `before` has drawn and the GPU has finished it. */
  const alone = (before: () => void, what: () => void): number => {
    for (let i = 0; i < 3; i++) {
      before();
      timed(what);
    }
    const times: number[] = [];
    for (let i = 0; i < options.frames; i++) {
      before();
      sync();
      times.push(timed(what));
    }
    return median(times);
  };
  const stack = (withPp: boolean) => {
    plainPass.enabled = !withPp;
    ppPass.enabled = withPp;
    plainPass.renderToScreen = !withPp;
    ppPass.renderToScreen = withPp;
    composer.render(1 / 60);
  };
  const plain = () => renderer.render(scene, camera);
  const outline = () => runFrameSteps(world, 'afterDraw');

  const results: OutlineBenchResult[] = [];
  for (const selection of ['small', 'large'] as const) {
    const target = selection === 'small' ? small : large;
    ours.showObjects([target]);
    pp.selection.set(target === large ? large.children : [small]);
    results.push({ way: 'plain', selection, ms: alone(() => {}, plain) });
    results.push({ way: 'stack', selection, ms: alone(() => {}, () => stack(false)) });
    results.push({ way: 'ours-low', selection, ms: alone(plain, outline) });
    results.push({ way: 'ours-stack', selection, ms: alone(() => stack(false), outline) });
    results.push({
      way: 'ours-stack-added',
      selection,
      ms: added(
        () => stack(false),
        () => {
          stack(false);
          outline();
        },
      ),
    });
    results.push({ way: 'pp-stack-added', selection, ms: added(() => stack(false), () => stack(true)) });
  }
  return results;
}

(window as unknown as { runOutlineBench: typeof runOutlineBench }).runOutlineBench = runOutlineBench;
