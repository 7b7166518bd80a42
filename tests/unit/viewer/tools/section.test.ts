import { Group, PerspectiveCamera, Quaternion, Scene, Vector3 } from 'three';
import { describe, expect, it, vi } from 'vitest';
import { sectionPlaneSystem } from '../../../../systems/sectionPlaneSystem';
import { transformSystem } from '../../../../systems/transformSystem';
import { runFrameSteps } from '../../../../src/engine/frame-steps';
import { createViewerWorld } from '../../../../src/engine/world';
import { Emitter, type ViewerEventMap } from '../../../../src/viewer/events';
import type { ToolContext } from '../../../../src/viewer/tools/context';
import { createSections } from '../../../../src/viewer/tools/section';

/** The section tool on a stand-in context (no model: no caps), with the frame's systems run by hand. */
function sectionsOnStandIn() {
  const world = createViewerWorld();
  const scene = new Scene();
  world.render.scene = scene;
  const events = new Emitter<ViewerEventMap>();
  const emitted: { type: string; action: string; id: number }[] = [];
  events.on('section', (e) => emitted.push({ type: 'section', action: e.action, id: e.id }));
  const element = { style: {}, addEventListener: () => undefined, removeEventListener: () => undefined, ownerDocument: { addEventListener: () => undefined, removeEventListener: () => undefined } };
  const camera = new PerspectiveCamera();
  const label = { element: { style: {}, dataset: {} }, point: new Vector3(), offsetY: 0, inScreenshot: true, setText: () => undefined, setClass: () => undefined };
  const ctx = {
    world,
    scene,
    container: element,
    renderer: { domElement: element, clippingPlanes: [] as unknown[] },
    helpers: new Group(),
    labels: { add: () => label, remove: () => undefined },
    events,
    picker: () => ({ pickAtClient: () => null }),
    setCaps: () => undefined,
    camera: () => camera,
    redraw: () => undefined,
    changed: () => undefined,
  } as unknown as ToolContext;
  const selected: number[] = [];
  const sections = createSections(ctx, (eid) => selected.push(eid));
  const frame = () => {
    transformSystem(world);
    sectionPlaneSystem(world);
    runFrameSteps(world, 'helpers');
  };
  return { world, ctx, sections, emitted, selected, frame };
}

describe("section planes placed and posed from outside (a meeting's shared planes)", () => {
  it('place makes a plane from its pose without selecting it or starting a placement; pose reads the Transform', () => {
    const { sections, emitted, selected, ctx } = sectionsOnStandIn();
    const rotation = new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), Math.PI / 2); // +Z onto -Y
    const id = sections.place(new Vector3(1, 0.6, 2), rotation);
    expect(sections.selected).toBe(0);
    expect(sections.placing).toBe(false);
    expect(selected).toEqual([]);
    expect(emitted).toEqual([{ type: 'section', action: 'created', id }]);
    const [plane] = sections.list();
    expect(plane.normal.y).toBeCloseTo(-1, 6);
    expect(plane.constant).toBeCloseTo(0.6, 6);
    expect((ctx.renderer.clippingPlanes as unknown[]).length).toBe(1);
    const p = new Vector3();
    const q = new Quaternion();
    expect(sections.pose(id, p, q)).toBe(true);
    expect(p.toArray().map((x) => Math.round(x * 1e6) / 1e6)).toEqual([1, 0.6, 2]);
    q.toArray().forEach((x, i) => expect(x).toBeCloseTo(rotation.toArray()[i], 6));
    expect(sections.pose(id + 1000, p, q)).toBe(false);
    // A plane made with create is the person's own: selected and being placed.
    const own = sections.create(new Vector3(0, 1, 0), new Vector3(0, -1, 0));
    expect(sections.selected).toBe(own);
    expect(sections.placing).toBe(true);
  });

  it('setPose moves and turns a plane: the frame derives its plane and tells the outside once', () => {
    const { sections, emitted, frame } = sectionsOnStandIn();
    const id = sections.place(new Vector3(0, 1, 0), new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), Math.PI / 2));
    frame();
    emitted.length = 0;
    sections.setPose(id, new Vector3(3, 0, 0), new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), -Math.PI / 2)); // +Z onto -X
    expect(emitted).toEqual([]);
    frame();
    const [plane] = sections.list();
    expect(plane.normal.x).toBeCloseTo(-1, 6);
    expect(plane.constant).toBeCloseTo(3, 6);
    expect(emitted).toEqual([{ type: 'section', action: 'updated', id }]);
    frame();
    expect(emitted).toHaveLength(1);
    expect(() => sections.setPose(id, new Vector3(0, 0, 0), new Quaternion(0, 0, 0, 0))).toThrow('A section plane needs a unit rotation.');
    expect(() => sections.setPose(id, new Vector3(Number.NaN, 0, 0), new Quaternion())).toThrow('A section plane needs a point with finite coordinates.');
    expect(() => sections.setPose(id + 1000, new Vector3(), new Quaternion())).toThrow(`There is no section plane ${id + 1000}.`);
    expect(() => sections.place(new Vector3(), new Quaternion(1, 1, 0, 0))).toThrow('A section plane needs a unit rotation.');
  });
});

describe('the section gizmo', () => {
  const gizmoOf = (ctx: ToolContext) => ctx.helpers.children.find((o) => o.name === 'Section plane gizmo') as (Group & { visible: boolean }) | undefined;

  it('is not made with the tool: its code is fetched when the tool turns on, and it is attached to the selected plane once that code is in', async () => {
    const { sections, ctx } = sectionsOnStandIn();
    expect(gizmoOf(ctx)).toBeUndefined();
    const id = sections.place(new Vector3(0, 1, 0), new Quaternion());
    sections.select(id);
    sections.setActive(true);
    // Nothing to grab before the gizmo exists.
    expect(sections.pointer.grab?.(10, 10)).toBe(false);
    await vi.waitFor(() => expect(gizmoOf(ctx)).toBeDefined());
    const controls = (gizmoOf(ctx) as unknown as { controls: { object?: { isObject3D: boolean }; enabled: boolean; rotationSnap: number | null; mode: string } }).controls;
    // Attached to the plane's pivot, and enabled.
    expect(controls.object?.isObject3D).toBe(true);
    expect(controls.enabled).toBe(true);
    // Free rotation set meanwhile is kept; mode changes reach it.
    sections.setGizmoMode('rotate');
    expect(controls.mode).toBe('rotate');
    expect(sections.setFreeRotation(true)).toBe(true);
    expect(controls.rotationSnap).toBeNull();
    sections.setActive(false);
    expect(controls.object).toBeUndefined();
    expect(controls.enabled).toBe(false);
    sections.dispose();
    expect(gizmoOf(ctx)).toBeUndefined();
  });

  it('a tool disposed before the code arrives makes none', async () => {
    const { sections, ctx } = sectionsOnStandIn();
    sections.select(sections.place(new Vector3(0, 1, 0), new Quaternion()));
    sections.setActive(true);
    sections.dispose();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gizmoOf(ctx)).toBeUndefined();
  });
});
