import { Matrix4, Object3D, Quaternion, Vector3, type Camera, type Scene } from 'three';
import { TransformControls } from 'three/examples/jsm/controls/TransformControls.js';
import { Transform } from '../../components';
import { addFrameStep } from '../engine/frame-steps';
import { HELPER_LAYER } from '../engine/layers';
import { setLocalTransform } from '../engine/local-transform';
import type { ViewerWorld } from '../engine/world';
import { SNAP_ROTATE_RAD, SNAP_SCALE, SNAP_TRANSLATE_M } from '../protocol/editor';
import type { PointerRouter } from '../viewer/input/pointer-router';
import { getInstanceMatrix, instanceGroupByUuid, setInstanceMatrices, type InstanceGroupRecord } from '../engine/instances';

export type GizmoMode = 'translate' | 'rotate' | 'scale';
export type GizmoSpace = 'local' | 'world';

/** Instances of one instanced asset group, by stable id. */
export interface InstanceTarget {
  groupId: string;
  ids: readonly number[];
}

export interface NodeGizmo {
  /** Shows the gizmo on entity `eid` (0 hides it). */
  attach(eid: number): void;
  /**
   * Shows the gizmo on instances of a group (null hides it): at the instance's own pose for one,
   * at the centre of their positions (world axes) for several, which then move, turn and scale
   * together about it.
   */
  attachInstances(target: InstanceTarget | null): void;
  readonly eid: number;
  readonly instances: InstanceTarget | null;
  mode: GizmoMode;
  space: GizmoSpace;
  readonly dragging: boolean;
  dispose(): void;
}

export interface GizmoOptions {
  world: ViewerWorld;
  scene: Scene;
  canvas: HTMLCanvasElement;
  /** The viewer's pointer router: the gizmo's handles are its first slot ('gizmo'). */
  pointer: PointerRouter;
  camera: () => Camera;
  /** Whether the snapping key (the key map's gizmo-snap, Shift) is held now: the drag snaps while it is. */
  snap: () => boolean;
  enabled: () => boolean;
  /** One drag ended: the local matrices (16 numbers) before and after it. */
  onDragEnd: (eid: number, before: number[], after: number[]) => void;
  /** One drag of instances ended: their group-local matrices (16 numbers each, in the order of ids) before and after it. */
  onInstancesDragEnd?: (target: InstanceTarget, before: Float32Array, after: Float32Array) => void;
}

const m = new Matrix4();
const tp = new Vector3();
const tq = new Quaternion();
const ts = new Vector3();

/** The local matrix of an entity from its Transform. */
export function localMatrixOf(eid: number, target: number[] = new Array(16)): number[] {
  m.compose(tp.fromArray(Transform.position, eid * 3), tq.fromArray(Transform.rotation, eid * 4), ts.fromArray(Transform.scale, eid * 3));
  return m.toArray(target);
}

/**
 * The transform gizmo (three's TransformControls) for the selected node, driven by the frame: the
 * viewer's pointer router (src/viewer/input/pointer-router.ts, the 'gizmo' slot, offered a press
 * before everything else) hands it presses, and the moves coalesced once per frame in the input slot; it moves a proxy object, whose pose is written into the entity's
 * Transform (the truth; the transform and sync systems move the node). A drag ends as one call of
 * onDragEnd, which the editor records as one undo step. The gizmo is a helper (layer 15): never
 * picked, never in screenshots, drawn on every quality tier. (The selection's outline is
 * selection-outline.ts.)
 */
export function createNodeGizmo(options: GizmoOptions): NodeGizmo {
  const { world } = options;
  const controls = new TransformControls(options.camera());
  controls.setSize(0.9);
  const helper = controls.getHelper();
  helper.name = 'Editor gizmo';
  helper.traverse((o) => o.layers.set(HELPER_LAYER));
  controls.getRaycaster().layers.set(HELPER_LAYER);
  options.scene.add(helper);

  // The proxy stands for the node: its parent carries the node's parent's world matrix.
  const proxyParent = new Object3D();
  proxyParent.matrixAutoUpdate = false;
  proxyParent.matrixWorldAutoUpdate = false;
  const proxy = new Object3D();
  proxyParent.add(proxy);

  let eid = 0;
  let before: number[] = new Array(16);
  // TransformControls' pointer methods read x, y (NDC) and button only.
  const pointer = { x: 0, y: 0, button: 0 } as unknown as PointerEvent & { x: number; y: number };

  // TransformControls tells a move (button -1) from a press or release (button 0).
  const toPointer = (clientX: number, clientY: number, button = 0) => {
    (pointer as { button: number }).button = button;
    const rect = options.canvas.getBoundingClientRect();
    (pointer as { x: number }).x = ((clientX - rect.left) / Math.max(rect.width, 1)) * 2 - 1;
    (pointer as { y: number }).y = -((clientY - rect.top) / Math.max(rect.height, 1)) * 2 + 1;
    return pointer;
  };

  // Instances: their group, their group-local matrices at the drag's start, and the pivot's
  // world matrix then (the drag's change is pivotNow * pivotStart^-1, applied in world space).
  let target: InstanceTarget | null = null;
  let group: InstanceGroupRecord | null = null;
  let startLocal = new Float32Array(0);
  let working = new Float32Array(0);
  const pivotStartInverse = new Matrix4();
  const groupInverse = new Matrix4();
  const delta = new Matrix4();
  const im = new Matrix4();

  const readInstances = (out: Float32Array) => {
    if (!group || !target) return;
    for (let i = 0; i < target.ids.length; i++) {
      getInstanceMatrix(group, target.ids[i]!, im);
      for (let k = 0; k < 16; k++) out[i * 16 + k] = im.elements[k]!;
    }
  };

  /** The pivot's pose: one instance's own world pose, or the centre of several, world axes. */
  const loadInstancePivot = () => {
    if (!group || !target) return;
    proxyParent.matrixWorld.identity();
    if (target.ids.length === 1) {
      getInstanceMatrix(group, target.ids[0]!, im).premultiply(group.object.matrixWorld);
      im.decompose(proxy.position, proxy.quaternion, proxy.scale);
    } else {
      proxy.position.set(0, 0, 0);
      for (const id of target.ids) {
        getInstanceMatrix(group, id, im).premultiply(group.object.matrixWorld);
        proxy.position.x += im.elements[12]!;
        proxy.position.y += im.elements[13]!;
        proxy.position.z += im.elements[14]!;
      }
      proxy.position.multiplyScalar(1 / target.ids.length);
      proxy.quaternion.identity();
      proxy.scale.set(1, 1, 1);
    }
    proxy.updateMatrixWorld(true);
  };

  const writeInstances = () => {
    if (!group || !target) return;
    proxy.updateMatrixWorld(true);
    delta.multiplyMatrices(proxy.matrixWorld, pivotStartInverse);
    groupInverse.copy(group.object.matrixWorld).invert();
    // local' = G^-1 * delta * G * local
    delta.premultiply(groupInverse).multiply(group.object.matrixWorld);
    for (let i = 0; i < target.ids.length; i++) {
      im.fromArray(startLocal, i * 16).premultiply(delta);
      for (let k = 0; k < 16; k++) working[i * 16 + k] = im.elements[k]!;
    }
    setInstanceMatrices(world, group, target.ids, working);
  };

  const loadProxy = () => {
    if (target) return loadInstancePivot();
    const parent = Transform.parent[eid];
    if (parent) proxyParent.matrixWorld.fromArray(Transform.world, parent * 16);
    else proxyParent.matrixWorld.identity();
    proxy.position.fromArray(Transform.position, eid * 3);
    proxy.quaternion.fromArray(Transform.rotation, eid * 4);
    proxy.scale.fromArray(Transform.scale, eid * 3);
    proxy.updateMatrixWorld(true);
  };

  const writeEntity = () => {
    if (target) return writeInstances();
    if (!eid) return;
    setLocalTransform(world, eid, proxy.position, proxy.quaternion, proxy.scale);
  };
  controls.addEventListener('objectChange', writeEntity);

  /** Ends a drag as one onDragEnd (one undo step): on release, or when the gizmo moves elsewhere mid-drag. */
  const endDrag = (p: PointerEvent | null) => {
    if (!controls.dragging) return;
    controls.pointerUp(p as PointerEvent);
    if (target) {
      const after = new Float32Array(startLocal.length);
      readInstances(after);
      if (after.some((v, i) => v !== startLocal[i])) options.onInstancesDragEnd?.(target, startLocal.slice(), after);
      world.render.needsRender = true;
      return;
    }
    const after = localMatrixOf(eid);
    if (after.some((v, i) => v !== before[i])) options.onDragEnd(eid, before.slice(), after);
    world.render.needsRender = true;
  };

  const removePointer = options.pointer.add('gizmo', {
    grab(x, y) {
      if ((!eid && !target) || !options.enabled()) return false;
      controls.camera = options.camera();
      loadProxy();
      const p = toPointer(x, y);
      controls.pointerHover(p);
      if (controls.axis === null) return false;
      controls.pointerDown(p);
      if (!controls.dragging) return false;
      if (target) {
        readInstances(startLocal);
        pivotStartInverse.copy(proxy.matrixWorld).invert();
        return true;
      }
      before = localMatrixOf(eid, before);
      return true;
    },
    drag(x, y) {
      if (!controls.dragging) return;
      const snap = options.snap();
      controls.setTranslationSnap(snap ? SNAP_TRANSLATE_M : null);
      controls.setRotationSnap(snap ? SNAP_ROTATE_RAD : null);
      controls.setScaleSnap(snap ? SNAP_SCALE : null);
      controls.pointerMove(toPointer(x, y, -1));
    },
    release(x, y) {
      if (controls.dragging) endDrag(toPointer(x, y));
    },
    hover(x, y) {
      if ((!eid && !target) || controls.dragging) return;
      const axis = controls.axis;
      controls.camera = options.camera();
      controls.pointerHover(toPointer(x, y));
      // A highlighted handle changes the picture, no shadow.
      if (controls.axis !== axis) world.render.needsPicture = true;
    },
    leave() {
      if (controls.axis !== null && !controls.dragging) {
        controls.axis = null;
        world.render.needsPicture = true;
      }
    },
  });

  // The gizmo follows its node (an undo, a saved edit, an animation) and the camera in use.
  const removeStep = addFrameStep(world, 'helpers', {
    name: 'editor gizmo',
    run() {
      if (target) {
        controls.camera = options.camera();
        // The group went away (an undo of its creation, a reload): nothing to hold.
        if (!group || instanceGroupByUuid(world, target.groupId) !== group) return void api.attachInstances(null);
        if (!controls.dragging) loadProxy();
        return;
      }
      if (!eid) return;
      controls.camera = options.camera();
      if (!controls.dragging) loadProxy();
    },
  });

  const api: NodeGizmo = {
    attach(next) {
      // A key that changes the selection mid-drag (Delete, Escape...): the move so far is kept.
      endDrag(null);
      target = null;
      group = null;
      eid = next;
      if (eid && world.objects[eid]) {
        loadProxy();
        controls.attach(proxy);
      } else {
        eid = 0;
        controls.detach();
      }
      world.render.needsRender = true;
    },
    attachInstances(next) {
      endDrag(null);
      eid = 0;
      group = next ? instanceGroupByUuid(world, next.groupId) : null;
      target = group && next && next.ids.length > 0 ? { groupId: next.groupId, ids: [...next.ids] } : null;
      if (target) {
        startLocal = new Float32Array(target.ids.length * 16);
        working = new Float32Array(target.ids.length * 16);
        loadProxy();
        controls.attach(proxy);
      } else {
        group = null;
        controls.detach();
      }
      world.render.needsRender = true;
    },
    get eid() {
      return eid;
    },
    get instances() {
      return target;
    },
    get mode() {
      return controls.mode as GizmoMode;
    },
    set mode(mode: GizmoMode) {
      controls.setMode(mode);
      world.render.needsRender = true;
    },
    get space() {
      return controls.space as GizmoSpace;
    },
    set space(space: GizmoSpace) {
      controls.setSpace(space);
      world.render.needsRender = true;
    },
    get dragging() {
      return controls.dragging;
    },
    dispose() {
      removeStep();
      removePointer();
      controls.detach();
      // Not controls.dispose(): it disconnects from a DOM element, and these controls never had one
      // (the pointer router drives them), so it would throw. Its handles' GPU resources go here.
      (helper as unknown as { dispose(): void }).dispose();
      helper.removeFromParent();
    },
  };
  return api;
}
