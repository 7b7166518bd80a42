import { addComponent } from 'bitecs';
import { Group, Mesh, Object3D, Plane, PlaneGeometry, Quaternion, Raycaster, Vector2, Vector3 } from 'three';
import { LineSegments2 } from 'three/examples/jsm/lines/LineSegments2.js';
import { LineSegmentsGeometry } from 'three/examples/jsm/lines/LineSegmentsGeometry.js';
import { SectionPlane, Transform } from '../../../components';
import { addFrameStep } from '../../engine/frame-steps';
import { addTransform, markTransformDirty, removeTransformEntity } from '../../engine/hierarchy';
import { HELPER_LAYER } from '../../engine/layers';
import { bindObject, unbindObject } from '../../engine/registry';
import { detachFromThreeMatrixUpdates } from '../../engine/sync';
import { addViewerEntity } from '../../engine/world';
import { SECTION_PLANE_COLOR, SECTION_PLANE_OPACITY, SECTION_PLANE_SIZE } from '../../protocol/constants';
import type { SectionEventData } from '../events';
import type { PointerHandler } from '../input/pointer-router';
import type { ToolContext } from './context';
import { createLineMaterial, createPlaneFillMaterial, onHelperLayer } from './helper-materials';
import { createSectionCaps, type PlaneEntry } from './section-caps';
import { createSectionGizmo, type GizmoMode } from './section-gizmo';
import { snapSectionNormal } from './section-math';

export { CAP_REBUILD_MS } from './section-caps';
export { formatTilt, TILT_SNAP_DEGREES, type GizmoMode } from './section-gizmo';

/** A new plane sits this far (m) outside the clicked surface. */
export const SURFACE_OFFSET = 1e-4;

export interface SectionInfo {
  id: number;
  label: string;
  normal: { x: number; y: number; z: number };
  constant: number;
  /** Area of the plane's caps (m²): the cut surfaces of closed meshes. */
  capArea: number;
}

export interface Sections {
  /** The section tool is on: squares shown, double-click creates, the selected plane has the gizmo. */
  setActive(on: boolean): void;
  /** Double-click: a plane on the surface under the pointer. Returns the new plane's id, or 0. */
  createAt(clientX: number, clientY: number): number;
  /** Creates a plane from world data (the kept side is where normal . p + constant >= 0). */
  create(point: Vector3, normal: Vector3): number;
  /**
   * Creates a plane from its pose (a point of it and the rotation turning +Z onto its normal) as
   * someone else made it (a meeting's shared plane): it is neither selected nor being placed, so
   * the person's own selection and tool stay as they were. Returns its id.
   */
  place(position: Vector3, rotation: Quaternion): number;
  /** The plane's pose (its Transform, the truth) into `position` and `rotation`; false when there is no such plane. */
  pose(eid: number, position: Vector3, rotation: Quaternion): boolean;
  /** Moves and turns a plane to a pose (a meeting's shared plane moved by someone else). */
  setPose(eid: number, position: Vector3, rotation: Quaternion): void;
  /** The gizmo's handles in the pointer router ('section-gizmo'): a press on one drags it. */
  readonly pointer: PointerHandler;
  /** Selects the plane whose square is under the pointer (false when none). */
  selectAt(clientX: number, clientY: number): boolean;
  select(eid: number): void;
  readonly selected: number;
  /** A plane just created and not yet confirmed: Escape removes it. */
  readonly placing: boolean;
  /** Confirms the plane being placed (a click elsewhere, Enter). */
  confirm(): void;
  remove(eid: number): void;
  flip(eid: number): void;
  setGizmoMode(mode: GizmoMode): void;
  readonly gizmoMode: GizmoMode;
  /** Held key: tilting turns freely instead of in TILT_SNAP_DEGREES steps. Returns whether the key was of use. */
  setFreeRotation(on: boolean): boolean;
  list(): SectionInfo[];
  readonly feedback: string | null;
  clearFeedback(): void;
  dispose(): void;
}

const Z = new Vector3(0, 0, 1);
const clean = (value: number) => (Math.abs(value) < NORMAL_NOISE ? 0 : value);
const snapped = new Vector3();
const normal = new Vector3();
const ndc = new Vector2();

/** Components of a derived normal closer to 0 than this are 0 (float32 rotations add noise to axis-aligned planes). */
const NORMAL_NOISE = 1e-6;

/**
 * Section planes (section-tool): created by a double-click on a surface, drawn as a 5 m yellow
 * square at 0.2 opacity with a TransformControls gizmo to move it along its normal or tilt it,
 * several at once. Each plane is an entity whose Transform is the truth (the gizmo, flip and the
 * API write it); the section plane system derives its normal and constant, and a step of the
 * frame's helpers slot follows: the renderer's global clipping planes (so the picture and the
 * picker both leave the cut parts out), and the caps of the closed meshes it cuts (section-cap.ts),
 * in each mesh's colour, cut by the other planes but not its own, rebuilt at most every
 * CAP_REBUILD_MS while a plane moves and once more when it stops.
 */
export function createSections(ctx: ToolContext, onSelect: (eid: number) => void): Sections {
  const entries = new Map<number, PlaneEntry>();
  let active = false;
  let selected = 0;
  let placing = 0;
  let counter = 0;
  let feedback: string | null = null;
  const raycaster = new Raycaster();
  raycaster.layers.set(HELPER_LAYER);
  const look = createPlaneLook();

  const caps = createSectionCaps(ctx, entries);
  /** Planes whose 'updated' event waits until the frame has brought their plane up to date. */
  const updatedDue = new Set<number>();
  /** Planes whose pose setPose changed since the last frame. */
  const posed = new Set<number>();

  // ---- the gizmo (section-gizmo.ts) ---------------------------------------------------------

  const gizmo = createSectionGizmo(ctx, {
    moved() {
      const entry = entries.get(selected);
      if (entry) writeTransform(entry);
    },
    dragEnded() {
      const entry = entries.get(selected);
      if (!entry) return;
      placing = 0;
      caps.due.set(entry.eid, 'now');
      updatedDue.add(entry.eid);
      ctx.redraw();
    },
    loaded: () => showState(),
    failed(error) {
      console.error('The section plane handles could not be loaded:', error);
      feedback = `The handles that move and tilt a section plane could not be loaded (${error.message}); planes can still be made, flipped and removed.`;
      ctx.changed();
    },
  });

  // ---- planes -------------------------------------------------------------------------------

  /** The pivot's pose (moved by the gizmo or flip) becomes the entity's Transform: the truth. */
  const writeTransform = (entry: PlaneEntry) => {
    const eid = entry.eid;
    Transform.position.set([entry.pivot.position.x, entry.pivot.position.y, entry.pivot.position.z], eid * 3);
    Transform.rotation.set([entry.pivot.quaternion.x, entry.pivot.quaternion.y, entry.pivot.quaternion.z, entry.pivot.quaternion.w], eid * 4);
    markTransformDirty(ctx.world, eid);
    ctx.redraw();
  };

  /**
   * The frame's helpers step: planes whose derived normal and constant changed (the section plane
   * system) update their three.js Plane, which the clipping list holds, and have their caps
   * rebuilt (throttled while dragging); then the 'updated' events that waited for them.
   */
  const follow = () => {
    for (const entry of entries.values()) {
      const eid = entry.eid;
      if (!SectionPlane.changed[eid]) continue;
      SectionPlane.changed[eid] = 0;
      const o = eid * 3;
      normal.set(clean(SectionPlane.normal[o]), clean(SectionPlane.normal[o + 1]), clean(SectionPlane.normal[o + 2])).normalize();
      const constant = SectionPlane.constant[eid];
      if (entry.plane.normal.distanceToSquared(normal) < 1e-18 && Math.abs(entry.plane.constant - constant) < 1e-9) continue;
      entry.plane.normal.copy(normal);
      entry.plane.constant = constant;
      // A pose set from outside (setPose: a meeting's plane dragged by someone) is throttled like a drag.
      const throttled = posed.delete(eid) || gizmo.dragging;
      if (caps.due.get(eid) !== 'now') caps.due.set(eid, throttled ? 'throttled' : 'now');
      ctx.redraw();
    }
    caps.rebuildDue(performance.now());
    for (const eid of updatedDue) {
      const entry = entries.get(eid);
      if (entry) ctx.events.emit('section', eventData(entry, 'updated'));
    }
    if (updatedDue.size) ctx.changed();
    updatedDue.clear();
  };
  const removeStep = addFrameStep(ctx.world, 'helpers', { name: 'section planes', run: follow });

  const showState = () => {
    for (const entry of entries.values()) {
      entry.pivot.visible = active;
      entry.square.material = entry.eid === selected ? look.selectedSquare : look.square;
      entry.outline.material = entry.eid === selected ? look.selectedOutline : look.outline;
    }
    gizmo.show((active && entries.get(selected)?.pivot) || null);
    ctx.redraw();
    ctx.changed();
  };

  const select = (eid: number) => {
    if (eid !== 0 && !entries.has(eid)) throw new Error(`There is no section plane ${eid}.`);
    if (placing && placing !== eid) placing = 0;
    selected = eid;
    if (eid) onSelect(eid);
    showState();
  };

  const create = (point: Vector3, planeNormal: Vector3): number => {
    const n = planeNormal.clone().normalize();
    if (!Number.isFinite(n.x + n.y + n.z) || n.lengthSq() < 0.5) throw new Error('A section plane needs a normal of non-zero length.');
    if (!Number.isFinite(point.x + point.y + point.z)) throw new Error('A section plane needs a point with finite coordinates.');
    return spawn(point, new Quaternion().setFromUnitVectors(Z, n), n, true);
  };

  /** A new plane at `point`, turned by `rotation` (+Z onto the normal `n`); `own`: made here, so selected and being placed. */
  const spawn = (point: Vector3, rotation: Quaternion, n: Vector3, own: boolean): number => {
    const eid = addViewerEntity(ctx.world);
    addTransform(ctx.world, eid, 0, point.toArray(), rotation.toArray());
    addComponent(ctx.world, eid, SectionPlane);
    const entry = makePlane(look, eid, ++counter, point, rotation);
    ctx.helpers.add(entry.pivot);
    bindObject(ctx.world, eid, entry.pivot);
    ctx.scene.add(entry.caps);
    entries.set(eid, entry);
    // The exact normal given, at once (the caps and the 'created' event need it now; the section
    // plane system derives the same plane from the Transform in the next frame).
    entry.plane.setFromNormalAndCoplanarPoint(n, point);
    writeComponent(entry);
    caps.syncClipping();
    caps.rebuild(entry);
    if (own) {
      // A new plane is pushed into the model first: it starts in move mode.
      gizmo.mode = 'translate';
      placing = eid;
      selected = eid;
      onSelect(eid);
    }
    showState();
    ctx.events.emit('section', eventData(entry, 'created'));
    return eid;
  };

  const place = (position: Vector3, rotation: Quaternion): number => {
    checkPose(position, rotation);
    const q = rotation.clone().normalize();
    return spawn(position, q, new Vector3(0, 0, 1).applyQuaternion(q), false);
  };

  const setPose = (eid: number, position: Vector3, rotation: Quaternion) => {
    const entry = entries.get(eid);
    if (!entry) throw new Error(`There is no section plane ${eid}.`);
    checkPose(position, rotation);
    entry.pivot.position.copy(position);
    entry.pivot.quaternion.copy(rotation).normalize();
    writeTransform(entry);
    // Caps follow at most every CAP_REBUILD_MS while the poses keep coming (someone drags), and once more after.
    posed.add(eid);
    updatedDue.add(eid);
  };

  const remove = (eid: number) => {
    const entry = entries.get(eid);
    if (!entry) throw new Error(`There is no section plane ${eid}.`);
    caps.forget(eid);
    updatedDue.delete(eid);
    posed.delete(eid);
    gizmo.release(entry.pivot);
    entries.delete(eid);
    if (selected === eid) selected = 0;
    if (placing === eid) placing = 0;
    entry.pivot.removeFromParent();
    for (const child of entry.caps.children) (child as Mesh).geometry.dispose();
    entry.caps.removeFromParent();
    for (const material of entry.capMaterials.values()) material.dispose();
    for (const material of entry.capLineMaterials.values()) material.dispose();
    unbindObject(ctx.world, eid);
    removeTransformEntity(ctx.world, eid);
    caps.syncClipping();
    caps.publish();
    ctx.events.emit('section', eventData(entry, 'deleted'));
    showState();
  };

  const pointerNdc = (clientX: number, clientY: number) => {
    const rect = ctx.container.getBoundingClientRect();
    return ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
  };

  return {
    setActive(on) {
      active = on;
      if (on) gizmo.load();
      if (!on) placing = 0;
      feedback = null;
      showState();
    },
    createAt(clientX, clientY) {
      const hit = ctx.picker().pickAtClient(clientX, clientY);
      if (!hit) {
        feedback = 'Missed the model: double-click (or double-tap) on its surface to place a section plane there.';
        ctx.changed();
        return 0;
      }
      feedback = null;
      // The plane lies along the clicked surface (its normal snapped to exactly horizontal or
      // vertical within the tolerance) and keeps what is behind it: see snapSectionNormal.
      snapSectionNormal(hit.normal, snapped).negate();
      // A hair outside the surface, so the clicked face itself is not cut by rounding.
      return create(hit.point.clone().addScaledVector(snapped, -SURFACE_OFFSET), snapped);
    },
    create,
    place,
    pose(eid, position, rotation) {
      if (!entries.has(eid)) return false;
      position.fromArray(Transform.position, eid * 3);
      rotation.fromArray(Transform.rotation, eid * 4);
      return true;
    },
    setPose,
    // Offered only while the tool is on (the gizmo is shown only then).
    pointer: gizmo.pointer,
    selectAt(clientX, clientY) {
      if (!active || entries.size === 0) return false;
      raycaster.setFromCamera(pointerNdc(clientX, clientY), ctx.camera());
      const squares = [...entries.values()].map((e) => e.square);
      const hit = raycaster.intersectObjects(squares, false)[0];
      if (!hit) return false;
      const entry = [...entries.values()].find((e) => e.square === hit.object);
      if (!entry) return false;
      select(entry.eid);
      return true;
    },
    select,
    get selected() {
      return selected;
    },
    get placing() {
      return placing !== 0;
    },
    confirm() {
      placing = 0;
      ctx.changed();
    },
    remove,
    flip(eid) {
      const entry = entries.get(eid);
      if (!entry) throw new Error(`There is no section plane ${eid}.`);
      entry.pivot.quaternion.multiply(new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), Math.PI));
      writeTransform(entry);
      caps.due.set(eid, 'now');
      updatedDue.add(eid);
    },
    setGizmoMode(next) {
      if (next !== 'translate' && next !== 'rotate') throw new Error(`Unknown gizmo mode '${String(next)}': expected translate or rotate.`);
      gizmo.mode = next;
      ctx.redraw();
      ctx.changed();
    },
    get gizmoMode() {
      return gizmo.mode;
    },
    setFreeRotation(on) {
      const useful = active && selected !== 0 && gizmo.mode === 'rotate';
      if (on && !useful) return false;
      if (gizmo.freeRotation === on) return useful;
      gizmo.freeRotation = on;
      return true;
    },
    list() {
      return [...entries.values()].map((e) => ({
        id: e.eid,
        label: `Section ${e.number}`,
        normal: { x: e.plane.normal.x, y: e.plane.normal.y, z: e.plane.normal.z },
        constant: e.plane.constant,
        capArea: e.capArea,
      }));
    },
    get feedback() {
      return feedback;
    },
    clearFeedback() {
      if (feedback === null) return;
      feedback = null;
      ctx.changed();
    },
    dispose() {
      removeStep();
      for (const eid of [...entries.keys()]) remove(eid);
      gizmo.dispose();
      look.dispose();
      ctx.renderer.clippingPlanes = [];
    },
  };
}

/** What every plane's square and border are drawn with (the selected one brighter and wider). */
function createPlaneLook() {
  const squareGeometry = new PlaneGeometry(1, 1);
  // The border and a centre grip (a small cross) as screen-constant lines: the plane reads as a
  // plane whatever its size on screen.
  const outlineGeometry = new LineSegmentsGeometry();
  const grip = 0.04;
  outlineGeometry.setPositions([
    -0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0, -0.5, 0.5, 0, -0.5, -0.5, 0,
    -grip, 0, 0, grip, 0, 0, 0, -grip, 0, 0, grip, 0,
  ]);
  const square = createPlaneFillMaterial(SECTION_PLANE_COLOR, SECTION_PLANE_OPACITY);
  const selectedSquare = createPlaneFillMaterial(SECTION_PLANE_COLOR, SECTION_PLANE_OPACITY * 1.75);
  // The square lies in the caps' plane: pushed back in depth, so the caps show through it
  // instead of fighting it.
  for (const m of [square, selectedSquare]) {
    m.polygonOffset = true;
    m.polygonOffsetFactor = 2;
    m.polygonOffsetUnits = 2;
  }
  const outline = createLineMaterial(SECTION_PLANE_COLOR, 2);
  outline.depthTest = true;
  const selectedOutline = createLineMaterial(SECTION_PLANE_COLOR, 3);
  selectedOutline.depthTest = true;
  return {
    squareGeometry,
    outlineGeometry,
    square,
    selectedSquare,
    outline,
    selectedOutline,
    dispose() {
      squareGeometry.dispose();
      outlineGeometry.dispose();
      for (const m of [square, selectedSquare, outline, selectedOutline]) m.dispose();
    },
  };
}

/** A plane's objects: its pivot (placed by the entity's Transform) with the square and border, and the group of its caps. */
function makePlane(look: ReturnType<typeof createPlaneLook>, eid: number, number: number, point: Vector3, rotation: Quaternion): PlaneEntry {
  const pivot = new Object3D();
  pivot.name = `Section plane ${eid}`;
  pivot.position.copy(point);
  pivot.quaternion.copy(rotation);
  // The entity's Transform places it (the sync system writes its matrixWorld).
  pivot.updateMatrixWorld(true);
  detachFromThreeMatrixUpdates(pivot);
  const square = new Mesh(look.squareGeometry, look.square);
  square.scale.setScalar(SECTION_PLANE_SIZE);
  square.renderOrder = 998;
  const outline = new LineSegments2(look.outlineGeometry, look.outline);
  outline.scale.setScalar(SECTION_PLANE_SIZE);
  outline.renderOrder = 999;
  pivot.add(square, outline);
  onHelperLayer(pivot);
  const caps = new Group();
  caps.name = `Section caps ${eid}`;
  return { eid, number, plane: new Plane(), pivot, square, outline, caps, capMaterials: new Map(), capLineMaterials: new Map(), capArea: 0, capParts: [] };
}

function writeComponent(entry: PlaneEntry): void {
  const o = entry.eid * 3;
  SectionPlane.normal[o] = entry.plane.normal.x;
  SectionPlane.normal[o + 1] = entry.plane.normal.y;
  SectionPlane.normal[o + 2] = entry.plane.normal.z;
  SectionPlane.constant[entry.eid] = entry.plane.constant;
  SectionPlane.size[entry.eid] = SECTION_PLANE_SIZE;
}

function eventData(entry: PlaneEntry, action: SectionEventData['action']): SectionEventData {
  return {
    action,
    id: entry.eid,
    // `+ 0` turns a negated zero into 0 for the outside.
    normal: { x: entry.plane.normal.x + 0, y: entry.plane.normal.y + 0, z: entry.plane.normal.z + 0 },
    constant: entry.plane.constant,
  };
}

function checkPose(position: Vector3, rotation: Quaternion): void {
  if (!Number.isFinite(position.x + position.y + position.z)) throw new Error('A section plane needs a point with finite coordinates.');
  const length = Math.hypot(rotation.x, rotation.y, rotation.z, rotation.w);
  if (!Number.isFinite(length) || Math.abs(length - 1) > 1e-3) throw new Error('A section plane needs a unit rotation.');
}
