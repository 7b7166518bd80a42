import { Matrix4, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Transform, Visibility } from '../../../components';
import { nodeEid } from '../../../src/engine/stable-ids';
import { SNAP_TRANSLATE_M } from '../../../src/protocol/editor';
import type { HeadlessViewer } from '../../support/headless-viewer';
import { hit, setup, type Setup } from './editor-setup';

/**
 * The editor on a viewer without a browser (editor-setup.ts): enabling and disabling, the
 * history panel's jumps, the gizmo's spaces and snapping key, the view as an initial camera. Its
 * parts have their own tests (selection, model edits, scene objects, settings, materials, texture
 * upload, instances, unsaved edits, the editor's input).
 */

describe('editor: enabled and disabled (specification section 4)', () => {
  it('editing works only while enabled; disabling clears the selection and switches the camera config from editor to simple', async () => {
    const { world, h, editor, record, fetch, frame } = setup();
    const selections: unknown[] = [];
    editor.events.on('selection', (s) => selections.push(s));
    expect(editor.enabled).toBe(false);
    editor.enable();
    expect(h.cameraConfigs).toEqual(['editor']);
    // A click on the node selects it: the gizmo and the outline.
    h.viewer.events.emit('hit', hit(record, '0'));
    expect(editor.selection?.nodeId).toBe('0');
    expect(editor.gizmo.eid).toBe(nodeEid(record, '0'));
    h.rendered.length = 0;
    frame();
    expect(h.rendered).toContain(world.objects[nodeEid(record, '0')]);

    editor.disable();
    expect(editor.enabled).toBe(false);
    expect(editor.selection).toBeNull();
    expect(selections[selections.length - 1]).toBeNull();
    expect(editor.gizmo.eid).toBe(0);
    expect(h.cameraConfigs).toEqual(['editor', 'simple']);
    h.rendered.length = 0;
    frame();
    expect(h.rendered).toEqual([]); // no outline

    // Nothing edits while disabled: clicks, edits, keys (they pass through: not taken), saving.
    h.viewer.events.emit('hit', hit(record, '3'));
    expect(editor.selection).toBeNull();
    editor.setNode(record.modelId, '3', { visible: false });
    expect(Visibility.visible[nodeEid(record, '3')]).toBe(1);
    expect(editor.history.steps()).toEqual([]);
    expect(editor.queues.size).toBe(0);
    for (const action of ['undo', 'redo', 'save', 'translate-mode', 'delete', 'copy', 'gizmo-snap'] as const) expect(h.press(action), action).toBe(false);
    editor.queues.add(record.modelId, { key: 'k', uuid: 'u', createdAt: 0, type: 'updateNode', nodeId: '3', properties: { visible: true } });
    await editor.save();
    expect(fetch).not.toHaveBeenCalled();

    editor.enable();
    expect(h.cameraConfigs).toEqual(['editor', 'simple', 'editor']);
    await editor.save();
    expect(fetch).toHaveBeenCalledTimes(1);
    // Leaving the page: everything the editor added goes away (the gizmo's handles, its frame steps).
    expect(() => editor.dispose()).not.toThrow();
    expect(h.scene.getObjectByName('Editor gizmo')).toBeUndefined();
    expect([...world.steps.helpers, ...world.steps.afterDraw].map((s) => s.name)).toEqual([]);
  });
});

describe('editor: history', () => {
  it('jumps to a step of the history (back and forward) as the history panel does', () => {
    const { editor, record, world } = setup();
    editor.enable();
    const name = () => world.objects[nodeEid(record, '3')]!.name;
    editor.setNode(record.modelId, '3', { name: 'A' });
    editor.setNode(record.modelId, '3', { name: 'B' });
    editor.setNode(record.modelId, '3', { name: 'C' });
    const steps = editor.history.steps();
    expect(steps).toHaveLength(3);
    editor.history.jumpTo(steps[0]!.id);
    expect(name()).toBe('A');
    expect(editor.history.steps().map((s) => s.done)).toEqual([true, false, false]);
    editor.history.jumpTo(steps[2]!.id);
    expect(name()).toBe('C');
    editor.history.jumpTo(0);
    expect(name()).toBe('Base');
  });
});

/** Client pixels of a world point for the headless camera (800 x 600). */
function toScreen(h: HeadlessViewer, p: Vector3): { x: number; y: number } {
  const v = p.clone().project(h.camera);
  return { x: ((v.x + 1) / 2) * 800, y: ((1 - v.y) / 2) * 600 };
}

/**
 * A point on the gizmo's handle along `axis` (a world direction): three's TransformControls
 * scales its handles by the distance to the camera (factor below) and its size (0.9 here); the
 * arrows' pickers run from 0 to 0.6 handle units along their axis.
 */
function onHandle(h: HeadlessViewer, centre: Vector3, axis: Vector3): { x: number; y: number } {
  const factor = centre.distanceTo(h.camera.position) * Math.min((1.9 * Math.tan((Math.PI * h.camera.fov) / 360)) / h.camera.zoom, 7);
  return toScreen(h, centre.clone().addScaledVector(axis.clone().normalize(), (0.45 * factor * 0.9) / 4));
}

/** Drags from `from` by (dx, dy) pixels in a few frames; returns the node's local position after. */
function drag(s: Setup, eid: number, from: { x: number; y: number }, dx: number, dy: number): Vector3 {
  s.frame();
  s.h.pointer('pointermove', from.x, from.y);
  s.frame();
  s.h.pointer('pointerdown', from.x, from.y);
  for (let i = 1; i <= 4; i++) {
    s.h.pointer('pointermove', from.x + (dx * i) / 4, from.y + (dy * i) / 4);
    s.frame();
  }
  s.h.pointer('pointerup', from.x + dx, from.y + dy);
  s.frame();
  return new Vector3().fromArray(Transform.position, eid * 3);
}

describe('editor: the gizmo (three.js TransformControls) in world and local space, and its snapping key', () => {
  // The base turned 45° about Z: its local X axis points up and to the right.
  const turned = (s: Setup) => {
    const m = new Matrix4().compose(new Vector3(3, 0, 0), new Quaternion().setFromAxisAngle(new Vector3(0, 0, 1), Math.PI / 4), new Vector3(1, 1, 1));
    s.editor.setNode(s.record.modelId, '3', { matrix: m.toArray() as number[] });
    s.frame();
  };

  it('world space: the X handle moves the node along world X only', () => {
    const s = setup();
    s.editor.enable();
    turned(s);
    s.h.viewer.events.emit('hit', hit(s.record, '3'));
    expect(s.editor.gizmo.space).toBe('world');
    const eid = nodeEid(s.record, '3');
    const after = drag(s, eid, onHandle(s.h, new Vector3(3, 0, 0), new Vector3(1, 0, 0)), 60, 0);
    expect(after.x).toBeGreaterThan(3.2);
    expect(after.y).toBeCloseTo(0, 6);
    // One drag, one step.
    expect(s.editor.history.steps()).toHaveLength(2);
    expect(s.editor.history.steps()[1]!.name).toBe('Move Base');
  });

  it('local space: the same kind of drag moves it along its own (turned) X axis', () => {
    const s = setup();
    s.editor.enable();
    turned(s);
    s.h.viewer.events.emit('hit', hit(s.record, '3'));
    s.editor.setGizmoSpace('local');
    expect(s.editor.gizmo.space).toBe('local');
    const eid = nodeEid(s.record, '3');
    const after = drag(s, eid, onHandle(s.h, new Vector3(3, 0, 0), new Vector3(1, 1, 0)), 60, 0);
    // Along (1, 1, 0): x and y grow alike.
    expect(after.x - 3).toBeGreaterThan(0.1);
    expect(after.y).toBeCloseTo(after.x - 3, 4);
  });

  it('holding the snapping key (the key map gizmo-snap, Shift) snaps the move to 0.1 m steps', () => {
    const free = setup();
    free.editor.enable();
    free.h.viewer.events.emit('hit', hit(free.record, '3'));
    const eid = nodeEid(free.record, '3');
    const unsnapped = drag(free, eid, onHandle(free.h, new Vector3(3, 0, 0), new Vector3(1, 0, 0)), 47, 0);
    const offGrid = (v: number) => Math.abs(v / SNAP_TRANSLATE_M - Math.round(v / SNAP_TRANSLATE_M));
    expect(offGrid(unsnapped.x)).toBeGreaterThan(1e-3);

    const s = setup();
    s.editor.enable();
    expect(s.h.press('gizmo-snap')).toBe(false); // nothing selected: not taken
    s.h.viewer.events.emit('hit', hit(s.record, '3'));
    expect(s.h.press('gizmo-snap')).toBe(true);
    const snapped = drag(s, nodeEid(s.record, '3'), onHandle(s.h, new Vector3(3, 0, 0), new Vector3(1, 0, 0)), 47, 0);
    expect(snapped.x).not.toBeCloseTo(3, 3);
    expect(offGrid(snapped.x)).toBeLessThan(1e-6);
    expect(s.h.press('gizmo-snap', false)).toBe(true);
  });
});

describe('editor: the view now', () => {
  it('is the view pose where the last move ends (world.view), not the camera mid-move', () => {
    const { editor, world } = setup();
    world.view.positionEnd.set(1, 2, 3);
    world.view.targetEnd.set(0, 1, 0);
    world.view.position.set(9, 9, 9);
    world.view.version++;
    expect(editor.currentView()).toEqual({ position: { x: 1, y: 2, z: 3 }, target: { x: 0, y: 1, z: 0 } });
  });
});
