import { PerspectiveCamera, Scene, Vector2, Vector4, type Object3D, type WebGLRenderer } from 'three';
import type { ViewerWorld } from '../../src/engine/world';
import { Emitter } from '../../src/viewer/events';
import type { KeyHandler } from '../../src/viewer/input/keyboard';
import { attachDomPointerSource } from '../../src/viewer/input/pointer';
import { createPointerRouter } from '../../src/viewer/input/pointer-router';
import { KEY_MAP, type KeyAction } from '../../src/viewer/input/keymap';
import type { Viewer } from '../../src/viewer/viewer';

/**
 * What the editor uses of a viewer, without a browser (unit tests of src/editor/editor.ts and the
 * editor bench): the world with its scene and camera, the viewer's event emitter, a key map
 * keyboard whose handlers a test calls by action, the camera config, and a canvas that is a plain
 * EventTarget, so the real pointer router and its DOM source (src/viewer/input/) and three's
 * TransformControls run on synthetic pointer events. Nothing is drawn: the renderer records the
 * calls the selection outline makes and draws nothing.
 */
export interface HeadlessViewer {
  viewer: Viewer;
  scene: Scene;
  camera: PerspectiveCamera;
  /** The camera configs set, in order ('editor', 'simple'). */
  cameraConfigs: string[];
  /** Calls the bound handler of a key map action as the keyboard would; returns whether it took the key (false when none is bound). */
  press(action: KeyAction, pressed?: boolean): boolean;
  /** A pointer event on the canvas at client pixels (the canvas fills 0..width, 0..height); a move between a down and an up has the button held. */
  pointer(type: 'pointerdown' | 'pointermove' | 'pointerup', x: number, y: number): void;
  /** What the fake renderer was asked to render (the outline's mask and line passes). */
  rendered: Object3D[];
}

export function headlessViewer(world: ViewerWorld, options: { width?: number; height?: number } = {}): HeadlessViewer {
  const width = options.width ?? 800;
  const height = options.height ?? 600;
  const scene = new Scene();
  const camera = new PerspectiveCamera(45, width / height, 0.1, 5000);
  camera.position.set(0, 2, 10);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();

  const element = { style: {}, dataset: {}, className: '', remove() {} };
  const canvas = Object.assign(new EventTarget(), {
    ownerDocument: { activeElement: null as unknown, createElement: () => ({ ...element, style: {}, dataset: {} }) },
    getBoundingClientRect: () => ({ left: 0, top: 0, width, height, right: width, bottom: height, x: 0, y: 0 }),
    appendChild() {},
    setPointerCapture() {},
    releasePointerCapture() {},
    focus() {
      canvas.ownerDocument.activeElement = canvas;
    },
    parentElement: null as unknown,
  });
  // The canvas is its own container: events dispatched on it are on the canvas (pointer.ts checks the target).
  canvas.parentElement = canvas;

  const rendered: Object3D[] = [];
  const renderer = {
    domElement: canvas,
    shadowMap: { autoUpdate: true, needsUpdate: false },
    autoClear: true,
    info: { render: { calls: 0, triangles: 0 } },
    target: null as unknown,
    scissorTest: false,
    getPixelRatio: () => 1,
    getDrawingBufferSize: (v: Vector2) => v.set(width, height),
    getRenderTarget() {
      return this.target;
    },
    setRenderTarget(t: unknown) {
      this.target = t;
    },
    getClearColor: (c: { setHex(h: number): void }) => c.setHex(0),
    getClearAlpha: () => 1,
    setClearColor() {},
    getScissor: (v: Vector4) => v.set(0, 0, width, height),
    getScissorTest() {
      return this.scissorTest;
    },
    setScissor() {},
    setScissorTest(on: boolean) {
      this.scissorTest = on;
    },
    clear() {},
    render(object: Object3D) {
      rendered.push(object);
    },
  };
  world.render.renderer = renderer as unknown as WebGLRenderer;
  world.render.scene = scene;
  world.render.camera = camera;

  const handlers = new Map<KeyAction, KeyHandler>();
  const keys = {
    bind(action: KeyAction, handler: KeyHandler) {
      if (!KEY_MAP.some((b) => b.action === action)) throw new Error(`'${action}' is not an action of the key map.`);
      handlers.set(action, handler);
      return () => handlers.delete(action);
    },
    boundContexts: () => new Set(),
    shift: false,
    onShift: () => () => {},
    focused: true,
    dispose() {},
  };

  const cameraConfigs: string[] = [];
  const controls = { enabled: true };
  // The viewer's one pointer router, fed by the canvas's events (the canvas is its own container).
  const pointer = createPointerRouter(world, { camera: () => controls });
  attachDomPointerSource(pointer, canvas as unknown as HTMLElement, canvas as unknown as HTMLCanvasElement);
  const viewer = {
    world,
    context: { scene, renderer, camera },
    controls,
    pointer,
    navigation: {
      camera,
      setCameraConfig(config: string) {
        cameraConfigs.push(config);
        return config;
      },
    },
    keys,
    events: new Emitter(),
  } as unknown as Viewer;

  let timeStamp = 0;
  let held = false;
  return {
    viewer,
    scene,
    camera,
    cameraConfigs,
    rendered,
    press(action, pressed = true) {
      const handler = handlers.get(action);
      if (!handler) return false;
      return handler({ action, pressed, shift: false, repeat: false });
    },
    pointer(type, x, y) {
      const event = new Event(type);
      timeStamp += 16;
      if (type === 'pointerdown') held = true;
      if (type === 'pointerup') held = false;
      const down = held;
      Object.defineProperties(event, {
        clientX: { value: x },
        clientY: { value: y },
        pointerId: { value: 1 },
        pointerType: { value: 'mouse' },
        isPrimary: { value: true },
        button: { value: type === 'pointermove' ? -1 : 0 },
        buttons: { value: down ? 1 : 0 },
        shiftKey: { value: false },
        timeStamp: { value: timeStamp },
      });
      canvas.dispatchEvent(event);
    },
  };
}
