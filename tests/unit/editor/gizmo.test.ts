import { Object3D, PerspectiveCamera, Scene } from 'three';
import { describe, expect, it, vi } from 'vitest';

// The pointer module and TransformControls need a DOM: stand-ins that record the handlers and
// drag the attached object along x.
const handlers: { grab?: (x: number, y: number) => boolean; drag?: (x: number, y: number) => void } = {};
vi.mock('../../../src/viewer/input/pointer', () => ({
  attachPointerInput: (_w: unknown, _c: unknown, _cv: unknown, _ci: unknown, h: typeof handlers) => {
    Object.assign(handlers, h);
    return { dispose() {} };
  },
}));
vi.mock('three/examples/jsm/controls/TransformControls.js', async () => {
  const { EventDispatcher, Object3D: O } = await import('three');
  class TransformControls extends EventDispatcher<{ objectChange: object }> {
    dragging = false;
    axis: string | null = null;
    mode = 'translate';
    space = 'world';
    camera: unknown;
    object: InstanceType<typeof O> | null = null;
    setSize() {}
    getHelper() {
      return new O();
    }
    getRaycaster() {
      return { layers: { set() {} } };
    }
    pointerHover() {
      this.axis = 'X';
    }
    pointerDown() {
      this.dragging = true;
    }
    pointerMove(p: { x: number }) {
      this.object!.position.x = p.x + 1;
      this.dispatchEvent({ type: 'objectChange' });
    }
    pointerUp() {
      this.dragging = false;
      this.axis = null;
    }
    attach(o: InstanceType<typeof O>) {
      this.object = o;
    }
    detach() {
      this.object = null;
    }
    setTranslationSnap() {}
    setRotationSnap() {}
    setScaleSnap() {}
    dispose() {}
  }
  return { TransformControls };
});

const { createNodeGizmo } = await import('../../../src/editor/gizmo');
const { createViewerWorld } = await import('../../../src/engine/world');
const { addEntity } = await import('bitecs');
const { Transform } = await import('../../../components');

describe('node gizmo', () => {
  it('a selection change mid-drag (Delete) ends the drag through onDragEnd: the move is kept', () => {
    const world = createViewerWorld();
    const eid = addEntity(world);
    Transform.scale.set([1, 1, 1], eid * 3);
    Transform.rotation.set([0, 0, 0, 1], eid * 4);
    world.objects[eid] = new Object3D();
    const canvas = { getBoundingClientRect: () => ({ left: 0, top: 0, width: 100, height: 100 }) } as unknown as HTMLCanvasElement;
    const onDragEnd = vi.fn();
    const gizmo = createNodeGizmo({ world, scene: new Scene(), container: canvas as unknown as HTMLElement, canvas, camera: () => new PerspectiveCamera(), cameraInput: () => ({}) as never, snap: () => false, enabled: () => true, onDragEnd });
    gizmo.attach(eid);
    expect(handlers.grab!(50, 50)).toBe(true);
    handlers.drag!(100, 50);
    expect(gizmo.dragging).toBe(true);
    gizmo.attach(0);
    expect(gizmo.dragging).toBe(false);
    expect(onDragEnd).toHaveBeenCalledTimes(1);
    const [who, before, after] = onDragEnd.mock.calls[0];
    expect(who).toBe(eid);
    expect(before[12]).toBe(0);
    expect(after[12]).toBe(2);
  });
});
