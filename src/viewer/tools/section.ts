import { addComponent } from 'bitecs';
import {
  BufferAttribute,
  BufferGeometry,
  Color,
  Group,
  Layers,
  LessEqualDepth,
  MathUtils,
  Mesh,
  Object3D,
  Plane,
  PlaneGeometry,
  Quaternion,
  Raycaster,
  Vector2,
  Vector3,
  type Material,
} from 'three';
import type { TransformControls } from 'three/examples/jsm/controls/TransformControls.js';
import { SectionPlane, Transform } from '../../../components';
import { addFrameStep } from '../../engine/frame-steps';
import { addTransform, markTransformDirty, removeTransformEntity } from '../../engine/hierarchy';
import { HELPER_LAYER, SCENE_LAYER } from '../../engine/layers';
import { bindObject, unbindObject } from '../../engine/registry';
import { detachFromThreeMatrixUpdates } from '../../engine/sync';
import { addViewerEntity } from '../../engine/world';
import type { SectionEventData } from '../events';
import type { Picker } from '../pick-types';
import type { ToolContext } from './context';
import { LineMaterial } from 'three/examples/jsm/lines/LineMaterial.js';
import { LineSegments2 } from 'three/examples/jsm/lines/LineSegments2.js';
import { LineSegmentsGeometry } from 'three/examples/jsm/lines/LineSegmentsGeometry.js';
import { contrastingColor, createCapMaterial, createLineMaterial, createPlaneFillMaterial, exemptFromClipping, onHelperLayer } from './helper-materials';
import { buildCap, isCappable } from './section-cap';
import { capPart, type CapPart } from './surface-picker';
import { SECTION_PLANE_COLOR, SECTION_PLANE_OPACITY, SECTION_PLANE_SIZE } from '../../protocol/constants';
import { snapSectionNormal } from './section-math';

/** Caps follow a moving plane at most this often (ms); a last rebuild follows the end of a drag. */
export const CAP_REBUILD_MS = 120;

export type GizmoMode = 'translate' | 'rotate';

/** Tilting turns in steps of this many degrees; the free-rotation key (Shift) turns freely. */
export const TILT_SNAP_DEGREES = 15;

/** A tilt as the label shows it: whole degrees on the snap, one decimal when turning freely. */
export function formatTilt(radians: number, free: boolean): string {
  const degrees = MathUtils.radToDeg(radians);
  const text = free ? degrees.toFixed(1) : Math.round(degrees).toFixed(0);
  return `${/^-0(\.0)?$/.test(text) ? text.slice(1) : text}°`;
}

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

type CapMaterial = ReturnType<typeof createCapMaterial>;

interface PlaneEntry {
  eid: number;
  number: number;
  plane: Plane;
  /** Centre of the square on the plane; its +Z axis is the plane's normal. The gizmo moves it. */
  pivot: Object3D;
  square: Mesh;
  outline: LineSegments2;
  caps: Group;
  capMaterials: Map<number, CapMaterial>;
  /** The cut's outline per cap colour, in the colour's contrasting colour. */
  capLineMaterials: Map<number, LineMaterial>;
  capArea: number;
  /** The caps' outlines, for picking and snapping on the cut (surface-picker.ts). */
  capParts: CapPart[];
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
  /** A press on the gizmo's handles takes the drag from the camera. */
  grab(clientX: number, clientY: number): boolean;
  release(): void;
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
const MODEL_LAYERS = new Layers();
MODEL_LAYERS.set(SCENE_LAYER);

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
  const clippingPlanes: Plane[] = [];
  let active = false;
  let selected = 0;
  let placing = 0;
  let mode: GizmoMode = 'translate';
  let counter = 0;
  let feedback: string | null = null;
  const raycaster = new Raycaster();
  raycaster.layers.set(HELPER_LAYER);
  const squareGeometry = new PlaneGeometry(1, 1);
  // The border and a centre grip (a small cross) as screen-constant lines: the plane reads as a
  // plane whatever its size on screen.
  const outlineGeometry = new LineSegmentsGeometry();
  const grip = 0.04;
  outlineGeometry.setPositions([
    -0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0, -0.5, 0.5, 0, -0.5, -0.5, 0,
    -grip, 0, 0, grip, 0, 0, 0, -grip, 0, 0, grip, 0,
  ]);
  const squareMaterial = createPlaneFillMaterial(SECTION_PLANE_COLOR, SECTION_PLANE_OPACITY);
  const selectedMaterial = createPlaneFillMaterial(SECTION_PLANE_COLOR, SECTION_PLANE_OPACITY * 1.75);
  // The square lies in the caps' plane: pushed back in depth, so the caps show through it
  // instead of fighting it.
  for (const m of [squareMaterial, selectedMaterial]) {
    m.polygonOffset = true;
    m.polygonOffsetFactor = 2;
    m.polygonOffsetUnits = 2;
  }
  const outlineMaterial = createLineMaterial(SECTION_PLANE_COLOR, 2);
  outlineMaterial.depthTest = true;
  const selectedOutlineMaterial = createLineMaterial(SECTION_PLANE_COLOR, 3);
  selectedOutlineMaterial.depthTest = true;
  // The tilt while dragging, at the plane's centre.
  const tiltLabel = ctx.labels.add('section-tilt-label', '');
  tiltLabel.inScreenshot = false;
  tiltLabel.element.dataset.testid = 'section-tilt';
  tiltLabel.element.style.display = 'none';
  tiltLabel.offsetY = -28;
  let freeRotation = false;

  // Connected to the canvas, not the container: TransformControls captures the pointer of every
  // press on its element while enabled, which on the container would swallow the clicks on the
  // panels drawn over the view. Its code is a chunk of its own, fetched when the tool is first
  // turned on, and the gizmo is made when a plane is first selected: building its handles takes
  // tens of milliseconds, which a viewer that never cuts should not pay before its first picture.
  let gizmo: TransformControls | null = null;
  let Gizmo: typeof TransformControls | null = null;
  let gizmoCode: Promise<void> | null = null;
  let disposed = false;
  const loadGizmo = () => {
    gizmoCode ??= import('three/examples/jsm/controls/TransformControls.js').then(
      (module) => {
        Gizmo = module.TransformControls;
        if (!disposed) showState();
      },
      (error: Error) => {
        // Tried again the next time the tool is turned on or a plane is selected.
        gizmoCode = null;
        if (disposed) return;
        console.error('The section plane handles could not be loaded:', error);
        feedback = `The handles that move and tilt a section plane could not be loaded (${error.message}); planes can still be made, flipped and removed.`;
        ctx.changed();
      },
    );
  };
  const applyMode = () => {
    if (!gizmo) return;
    gizmo.setMode(mode);
    // Moving only along the normal; tilting only about the square's own axes (a turn about the
    // normal changes nothing).
    gizmo.showX = mode === 'rotate';
    gizmo.showY = mode === 'rotate';
    gizmo.showZ = mode === 'translate';
  };
  /** The gizmo, made on first use; null while its code is still on its way. */
  const makeGizmo = (): TransformControls | null => {
    if (gizmo) return gizmo;
    if (!Gizmo) {
      loadGizmo();
      return null;
    }
    const made = new Gizmo(ctx.camera(), ctx.renderer.domElement);
    gizmo = made;
    made.setSpace('local');
    made.setSize(0.9);
    made.setRotationSnap(freeRotation ? null : MathUtils.degToRad(TILT_SNAP_DEGREES));
    made.enabled = false;
    const helper = made.getHelper();
    helper.name = 'Section plane gizmo';
    onHelperLayer(helper);
    helper.traverse((o) => {
      const material = (o as Mesh).material as Material | Material[] | undefined;
      if (material) for (const m of Array.isArray(material) ? material : [material]) exemptFromClipping(m);
    });
    made.getRaycaster().layers.set(HELPER_LAYER);
    ctx.helpers.add(helper);
    applyMode();
    made.addEventListener('change', () => ctx.redraw());
    made.addEventListener('objectChange', () => {
      const entry = entries.get(selected);
      if (!entry) return;
      writeTransform(entry);
      if (dragging && mode === 'rotate') {
        tiltLabel.point.copy(entry.pivot.position);
        tiltLabel.setText(`Tilt ${formatTilt((made as unknown as { rotationAngle: number }).rotationAngle, freeRotation)}`);
        tiltLabel.element.style.display = '';
      }
    });
    made.addEventListener('dragging-changed', (event) => {
      dragging = event.value === true;
      if (!dragging) tiltLabel.element.style.display = 'none';
      const entry = entries.get(selected);
      if (!entry || event.value) return;
      placing = 0;
      capsDue.set(entry.eid, 'now');
      updatedDue.add(entry.eid);
      ctx.redraw();
    });
    return made;
  };

  const syncClipping = () => {
    clippingPlanes.length = 0;
    for (const entry of entries.values()) {
      for (const material of entry.capMaterials.values()) material.userData.skipPlane.value = clippingPlanes.length;
      clippingPlanes.push(entry.plane);
    }
    ctx.renderer.clippingPlanes = clippingPlanes;
  };

  const writeComponent = (entry: PlaneEntry) => {
    const o = entry.eid * 3;
    SectionPlane.normal[o] = entry.plane.normal.x;
    SectionPlane.normal[o + 1] = entry.plane.normal.y;
    SectionPlane.normal[o + 2] = entry.plane.normal.z;
    SectionPlane.constant[entry.eid] = entry.plane.constant;
    SectionPlane.size[entry.eid] = SECTION_PLANE_SIZE;
  };

  const eventData = (entry: PlaneEntry, action: SectionEventData['action']): SectionEventData => ({
    action,
    id: entry.eid,
    // `+ 0` turns a negated zero into 0 for the outside.
    normal: { x: entry.plane.normal.x + 0, y: entry.plane.normal.y + 0, z: entry.plane.normal.z + 0 },
    constant: entry.plane.constant,
  });

  // ---- caps ---------------------------------------------------------------------------------

  /** Planes whose caps must follow, with whether at once (a drag ended, a flip) or throttled. */
  const capsDue = new Map<number, 'now' | 'throttled'>();
  const lastCap = new Map<number, number>();
  /** Planes whose 'updated' event waits until the frame has brought their plane up to date. */
  const updatedDue = new Set<number>();
  let dragging = false;
  /** Planes whose pose setPose changed since the last frame. */
  const posed = new Set<number>();

  const publishCaps = () => {
    const parts: CapPart[] = [];
    for (const entry of entries.values()) parts.push(...entry.capParts);
    ctx.setCaps(parts);
  };

  const rebuildCaps = (entry: PlaneEntry) => {
    for (const child of [...entry.caps.children]) {
      (child as Mesh).geometry.dispose();
      entry.caps.remove(child);
    }

    entry.capParts = [];
    let area = 0;
    // The picker's trees when it has them (ViewerPicker.treeOf), so a geometry gets one tree.
    const picker = ctx.picker() as Picker & { treeOf?: (mesh: Mesh) => unknown };
    const treeOf = picker.treeOf ? (mesh: Mesh) => picker.treeOf!(mesh) : undefined;
    for (const record of ctx.world.models.values()) {
      record.root.traverseVisible((object) => {
        const mesh = object as Mesh;
        if (!mesh.isMesh || !object.layers.test(MODEL_LAYERS) || !isCappable(mesh)) return;
        let cap;
        try {
          cap = buildCap(mesh, entry.plane, treeOf);
        } catch (error) {
          console.warn(`The cut of "${mesh.name}" could not be capped:`, error);
          return;
        }
        if (!cap || cap.positions.length === 0) return;
        area += cap.area;
        const geometry = new BufferGeometry();
        geometry.setAttribute('position', new BufferAttribute(cap.positions, 3));
        const normals = new Float32Array(cap.positions.length);
        // Caps face the cut-away side, where the person looks from.
        for (let i = 0; i < normals.length; i += 3) {
          normals[i] = -entry.plane.normal.x;
          normals[i + 1] = -entry.plane.normal.y;
          normals[i + 2] = -entry.plane.normal.z;
        }
        geometry.setAttribute('normal', new BufferAttribute(normals, 3));
        geometry.computeBoundingSphere();
        const capMaterial = capMaterialFor(entry, mesh);
        const capMesh = new Mesh(geometry, capMaterial);
        capMesh.name = `Section cap of ${mesh.name || 'mesh'}`;
        capMesh.matrixAutoUpdate = false;
        entry.caps.add(capMesh);
        const outline = cutOutline(cap.outline, cap.loopStarts, capLineMaterialFor(entry, capMaterial));
        if (outline) entry.caps.add(outline);
        entry.capParts.push(capPart(entry.plane, mesh, cap));
      });
    }
    publishCaps();
    entry.capArea = area;
    entry.caps.updateMatrixWorld(true);
    lastCap.set(entry.eid, performance.now());
    ctx.redraw();
    ctx.changed();
  };

  const capLineMaterialFor = (entry: PlaneEntry, capMaterial: CapMaterial): LineMaterial => {
    const hex = capMaterial.color.getHex();
    let material = entry.capLineMaterials.get(hex);
    if (!material) {
      material = exemptFromClipping(new LineMaterial({ color: contrastingColor(capMaterial.color).getHex(), linewidth: 2, worldUnits: false }));
      // On the cap's plane: drawn where the cap is (ties pass); never cut (it lies on its own plane,
      // where clipping would cut it by rounding).
      material.depthFunc = LessEqualDepth;
      entry.capLineMaterials.set(hex, material);
    }
    return material;
  };

  const capMaterialFor = (entry: PlaneEntry, mesh: Mesh): CapMaterial => {
    const source = Array.isArray(mesh.material) ? mesh.material[0] : mesh.material;
    const colour = (source as Material & { color?: Color }).color;
    const hex = colour ? colour.getHex() : 0x9aa4ae;
    let material = entry.capMaterials.get(hex);
    if (!material) {
      material = createCapMaterial(new Color(hex));
      entry.capMaterials.set(hex, material);
      syncClipping();
    }
    return material;
  };

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
      const throttled = posed.delete(eid) || dragging;
      if (capsDue.get(eid) !== 'now') capsDue.set(eid, throttled ? 'throttled' : 'now');
      ctx.redraw();
    }
    const now = performance.now();
    for (const [eid, when] of capsDue) {
      const entry = entries.get(eid);
      if (!entry) {
        capsDue.delete(eid);
        continue;
      }
      if (when === 'throttled' && now - (lastCap.get(eid) ?? 0) < CAP_REBUILD_MS) continue;
      capsDue.delete(eid);
      rebuildCaps(entry);
    }
    for (const eid of updatedDue) {
      const entry = entries.get(eid);
      if (entry) ctx.events.emit('section', eventData(entry, 'updated'));
    }
    if (updatedDue.size) ctx.changed();
    updatedDue.clear();
  };
  const removeStep = addFrameStep(ctx.world, 'helpers', { name: 'section planes', run: follow });
  // The gizmo draws for the camera in use (the projection may replace it).
  const removeCameraStep = addFrameStep(ctx.world, 'helpers', {
    name: 'section gizmo camera',
    run() {
      if (gizmo?.object) gizmo.camera = ctx.camera();
    },
  });

  const showState = () => {
    for (const entry of entries.values()) {
      entry.pivot.visible = active;
      entry.square.material = entry.eid === selected ? selectedMaterial : squareMaterial;
      entry.outline.material = entry.eid === selected ? selectedOutlineMaterial : outlineMaterial;
    }
    const target = active ? entries.get(selected) : undefined;
    const shown = target ? makeGizmo() : null;
    if (target && shown) {
      shown.camera = ctx.camera();
      shown.attach(target.pivot);
      shown.enabled = true;
    } else if (gizmo) {
      gizmo.detach();
      gizmo.enabled = false;
    }
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

  const checkPose = (position: Vector3, rotation: Quaternion) => {
    if (!Number.isFinite(position.x + position.y + position.z)) throw new Error('A section plane needs a point with finite coordinates.');
    const length = Math.hypot(rotation.x, rotation.y, rotation.z, rotation.w);
    if (!Number.isFinite(length) || Math.abs(length - 1) > 1e-3) throw new Error('A section plane needs a unit rotation.');
  };

  /** A new plane at `point`, turned by `rotation` (+Z onto the normal `n`); `own`: made here, so selected and being placed. */
  const spawn = (point: Vector3, rotation: Quaternion, n: Vector3, own: boolean): number => {
    const eid = addViewerEntity(ctx.world);
    addTransform(ctx.world, eid, 0, point.toArray(), rotation.toArray());
    addComponent(ctx.world, eid, SectionPlane);
    const pivot = new Object3D();
    pivot.name = `Section plane ${eid}`;
    pivot.position.copy(point);
    pivot.quaternion.copy(rotation);
    // The entity's Transform places it (the sync system writes its matrixWorld).
    pivot.updateMatrixWorld(true);
    detachFromThreeMatrixUpdates(pivot);
    const square = new Mesh(squareGeometry, squareMaterial);
    square.scale.setScalar(SECTION_PLANE_SIZE);
    square.renderOrder = 998;
    const outline = new LineSegments2(outlineGeometry, outlineMaterial);
    outline.scale.setScalar(SECTION_PLANE_SIZE);
    outline.renderOrder = 999;
    pivot.add(square, outline);
    onHelperLayer(pivot);
    ctx.helpers.add(pivot);
    bindObject(ctx.world, eid, pivot);
    const caps = new Group();
    caps.name = `Section caps ${eid}`;
    ctx.scene.add(caps);
    const entry: PlaneEntry = {
      eid,
      number: ++counter,
      plane: new Plane(),
      pivot,
      square,
      outline,
      caps,
      capMaterials: new Map(),
      capLineMaterials: new Map(),
      capArea: 0,
      capParts: [],
    };
    entries.set(eid, entry);
    // The exact normal given, at once (the caps and the 'created' event need it now; the section
    // plane system derives the same plane from the Transform in the next frame).
    entry.plane.setFromNormalAndCoplanarPoint(n, point);
    writeComponent(entry);
    syncClipping();
    rebuildCaps(entry);
    if (own) {
      // A new plane is pushed into the model first: it starts in move mode.
      mode = 'translate';
      applyMode();
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
    capsDue.delete(eid);
    updatedDue.delete(eid);
    posed.delete(eid);
    lastCap.delete(eid);
    if (gizmo?.object === entry.pivot) gizmo.detach();
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
    syncClipping();
    publishCaps();
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
      if (on) loadGizmo();
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
    grab(clientX, clientY) {
      if (!active || !gizmo?.object || !gizmo.enabled) return false;
      gizmo.camera = ctx.camera();
      const p = pointerNdc(clientX, clientY);
      gizmo.pointerHover({ x: p.x, y: p.y, button: 0 } as unknown as PointerEvent);
      return gizmo.axis !== null;
    },
    release() {
      ctx.redraw();
    },
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
      capsDue.set(eid, 'now');
      updatedDue.add(eid);
    },
    setGizmoMode(next) {
      if (next !== 'translate' && next !== 'rotate') throw new Error(`Unknown gizmo mode '${String(next)}': expected translate or rotate.`);
      mode = next;
      applyMode();
      ctx.redraw();
      ctx.changed();
    },
    get gizmoMode() {
      return mode;
    },
    setFreeRotation(on) {
      const useful = active && selected !== 0 && mode === 'rotate';
      if (on && !useful) return false;
      if (freeRotation === on) return useful;
      freeRotation = on;
      gizmo?.setRotationSnap(on ? null : MathUtils.degToRad(TILT_SNAP_DEGREES));
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
      disposed = true;
      removeStep();
      removeCameraStep();
      for (const eid of [...entries.keys()]) remove(eid);
      if (gizmo) {
        gizmo.detach();
        gizmo.getHelper().removeFromParent();
        gizmo.dispose();
        gizmo = null;
      }
      squareGeometry.dispose();
      outlineGeometry.dispose();
      squareMaterial.dispose();
      selectedMaterial.dispose();
      outlineMaterial.dispose();
      selectedOutlineMaterial.dispose();
      ctx.labels.remove(tiltLabel);
      ctx.renderer.clippingPlanes = [];
    },
  };
}

/** The cut's closed loops as screen-constant line segments (null when there is no loop). */
function cutOutline(outline: Float32Array, loopStarts: Uint32Array, material: LineMaterial): LineSegments2 | null {
  const positions: number[] = [];
  for (let l = 0; l + 1 < loopStarts.length; l++) {
    const start = loopStarts[l];
    const end = loopStarts[l + 1];
    for (let i = start; i < end; i++) {
      const j = i + 1 < end ? i + 1 : start;
      positions.push(outline[i * 3], outline[i * 3 + 1], outline[i * 3 + 2], outline[j * 3], outline[j * 3 + 1], outline[j * 3 + 2]);
    }
  }
  if (positions.length === 0) return null;
  const geometry = new LineSegmentsGeometry();
  geometry.setPositions(positions);
  const lines = new LineSegments2(geometry, material);
  lines.name = 'Section cut outline';
  lines.matrixAutoUpdate = false;
  lines.renderOrder = 1;
  return lines;
}
