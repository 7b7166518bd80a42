import { Object3D, PerspectiveCamera, Scene } from 'three';
import { describe, expect, it, vi } from 'vitest';
import type { PointerRouter } from '../../../src/viewer/input/pointer-router';

// TransformControls needs a DOM: a stand-in that drags the attached object along x; the pointer
// router is one that records the handlers and the slot they were added in.
const handlers: { grab?: (x: number, y: number) => boolean; drag?: (x: number, y: number) => void } = {};
const slots: string[] = [];
const router = {
  add: (slot: string, h: typeof handlers) => {
    slots.push(slot);
    Object.assign(handlers, h);
    return () => undefined;
  },
} as unknown as PointerRouter;
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
    const gizmo = createNodeGizmo({ world, scene: new Scene(), canvas, pointer: router, camera: () => new PerspectiveCamera(), snap: () => false, enabled: () => true, onDragEnd });
    expect(slots).toEqual(['gizmo']);
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
