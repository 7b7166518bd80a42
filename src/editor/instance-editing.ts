import { Box3, Matrix4, type Camera } from 'three';
import {
  addInstances,
  getInstanceBounds,
  getInstanceMatrix,
  instanceGroupByUuid,
  REMOVED_ID,
  removeInstances,
  setInstanceMatrices,
  type InstanceGroupRecord,
} from '../engine/instances';
import type { ViewerWorld } from '../engine/world';
import { FLOATS_PER_INSTANCE, packMatrix, unpackMatrices } from '../protocol/instances';
import type { InstanceChange } from '../protocol/instance-changes';
import type { PointerRouter } from '../viewer/input/pointer-router';
import type { InstanceApplier } from './instance-commands';
import { newUuid, type MutationQueues } from './mutation-queue';
import { INSTANCES_QUEUE } from './saver';

/**
 * Editing instances of instanced asset groups: the applier that writes the engine and queues the
 * changes to save (set / add / remove by stable id, 12 floats an instance), and box selection
 * (their outline is the selection's, selection-outline.ts).
 */

/** Ids per queued change: a box-selected move of 100,000 instances goes as several requests. */
export const IDS_PER_CHANGE = 20_000;

export function groupOrThrow(world: ViewerWorld, groupId: string): InstanceGroupRecord {
  const group = instanceGroupByUuid(world, groupId);
  if (!group) throw new Error(`The scene has no instanced asset group '${groupId}'.`);
  return group;
}

/** A queue key that a later change of the same instances replaces (a drag saved as its end). */
function idsKey(ids: readonly number[]): string {
  if (ids.length === 1) return String(ids[0]);
  let hash = 2166136261;
  for (const id of ids) hash = Math.imul(hash ^ id, 16777619) >>> 0;
  return `${ids[0]}+${ids.length}#${hash.toString(36)}`;
}

/** The changes that save an edit (16-number matrices in, 12-float packed out), in chunks. */
export function instanceChanges(type: InstanceChange['type'], groupId: string, ids: readonly number[], matrices?: Float32Array, now = Date.now()): (InstanceChange & { key: string })[] {
  const out: (InstanceChange & { key: string })[] = [];
  for (let start = 0; start < ids.length; start += IDS_PER_CHANGE) {
    const chunk = ids.slice(start, start + IDS_PER_CHANGE);
    const uuid = newUuid();
    if (type === 'removeInstances') {
      out.push({ key: `instances/${groupId}/remove/${uuid}`, uuid, createdAt: now, groupId, type, ids: chunk });
      continue;
    }
    const packed = new Float32Array(chunk.length * FLOATS_PER_INSTANCE);
    for (let i = 0; i < chunk.length; i++) packMatrix(matrices!.subarray((start + i) * 16, (start + i + 1) * 16), packed, i);
    const key = type === 'setInstances' ? `instances/${groupId}/set/${idsKey(chunk)}` : `instances/${groupId}/add/${uuid}`;
    out.push({ key, uuid, createdAt: now, groupId, type, ids: chunk, matrices: Array.from(packed) } as InstanceChange & { key: string });
  }
  return out;
}

export function createInstanceApplier(world: ViewerWorld, queues: MutationQueues, onChange: (groupId: string, removed: readonly number[] | null) => void): InstanceApplier {
  const queue = (changes: (InstanceChange & { key: string })[]) => {
    for (const change of changes) queues.add(INSTANCES_QUEUE, change);
  };
  return {
    setInstances(groupId, ids, matrices) {
      setInstanceMatrices(world, groupOrThrow(world, groupId), ids, matrices);
      queue(instanceChanges('setInstances', groupId, ids, matrices));
      onChange(groupId, null);
    },
    addInstances(groupId, ids, matrices) {
      addInstances(world, groupOrThrow(world, groupId), ids, matrices);
      queue(instanceChanges('addInstances', groupId, ids, matrices));
      onChange(groupId, null);
    },
    removeInstances(groupId, ids) {
      removeInstances(world, groupOrThrow(world, groupId), ids);
      queue(instanceChanges('removeInstances', groupId, ids));
      onChange(groupId, ids);
    },
  };
}

/** Replays saved-but-restored changes (a queue from an earlier visit) on the engine. */
export function replayInstanceChange(world: ViewerWorld, change: InstanceChange): void {
  const group = groupOrThrow(world, change.groupId);
  if (change.type === 'removeInstances') return removeInstances(world, group, change.ids);
  const full = unpackMatrices(change.matrices, new Float32Array(change.ids.length * 16), change.ids.length);
  if (change.type === 'setInstances') setInstanceMatrices(world, group, change.ids, full);
  else addInstances(world, group, change.ids, full);
}

/** The group-local matrices of these instances, 16 numbers each, in order. */
export function readInstanceMatrices(group: InstanceGroupRecord, ids: readonly number[]): Float32Array {
  const out = new Float32Array(ids.length * 16);
  const m = new Matrix4();
  for (let i = 0; i < ids.length; i++) out.set(getInstanceMatrix(group, ids[i]!, m).elements, i * 16);
  return out;
}

/**
 * Copies placed beside the originals: moved along the world X axis by the selection's width and
 * a tenth more, so they never sit inside what they copy. Returns group-local matrices.
 */
export function besideMatrices(group: InstanceGroupRecord, ids: readonly number[]): Float32Array {
  const box = new Box3();
  const b = new Box3();
  for (const id of ids) box.union(getInstanceBounds(group, id, b));
  const width = box.isEmpty() ? 1 : Math.max(box.max.x - box.min.x, 0.01);
  const shift = new Matrix4().makeTranslation(width * 1.1, 0, 0);
  const local = new Matrix4().copy(group.object.matrixWorld).invert().multiply(shift).multiply(group.object.matrixWorld);
  const matrices = readInstanceMatrices(group, ids);
  const m = new Matrix4();
  for (let i = 0; i < ids.length; i++) matrices.set(m.fromArray(matrices, i * 16).premultiply(local).elements, i * 16);
  return matrices;
}

/**
 * The ids of a group's instances whose world centre projects inside a screen rectangle (NDC,
 * x0 < x1, y0 < y1) in front of the camera. One pass over the group's typed arrays.
 */
export function instancesInRect(group: InstanceGroupRecord, camera: Camera, x0: number, y0: number, x1: number, y1: number): number[] {
  const out: number[] = [];
  const view = new Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse).multiply(group.object.matrixWorld);
  const e = view.elements;
  const array = group.attribute.array as Float32Array;
  const ids = group.ids;
  const box = group.asset.box;
  // The asset's centre, carried by each instance matrix.
  const cx = (box[0]! + box[3]!) / 2;
  const cy = (box[1]! + box[4]!) / 2;
  const cz = (box[2]! + box[5]!) / 2;
  for (let slot = 0; slot < group.count; slot++) {
    if (ids[slot] === REMOVED_ID) continue;
    const o = slot * 16;
    const x = array[o]! * cx + array[o + 4]! * cy + array[o + 8]! * cz + array[o + 12]!;
    const y = array[o + 1]! * cx + array[o + 5]! * cy + array[o + 9]! * cz + array[o + 13]!;
    const z = array[o + 2]! * cx + array[o + 6]! * cy + array[o + 10]! * cz + array[o + 14]!;
    const w = e[3]! * x + e[7]! * y + e[11]! * z + e[15]!;
    if (w <= 0) continue;
    const px = (e[0]! * x + e[4]! * y + e[8]! * z + e[12]!) / w;
    const py = (e[1]! * x + e[5]! * y + e[9]! * z + e[13]!) / w;
    if (px >= x0 && px <= x1 && py >= y0 && py <= y1) out.push(ids[slot]!);
  }
  return out;
}

/**
 * Box selection: while armed, a left drag on the canvas draws a rectangle (a DOM overlay) and, on
 * release, selects the instances whose centres lie inside it (the camera does not move meanwhile).
 */
export function createBoxSelect(options: {
  world: ViewerWorld;
  container: HTMLElement;
  canvas: HTMLCanvasElement;
  camera: () => Camera;
  /** The viewer's pointer router: box selection is its 'selection' slot. */
  pointer: PointerRouter;
  armed: () => boolean;
  onSelect: (groupId: string, ids: number[]) => void;
  onEmpty: () => void;
}): { dispose(): void } {
  const { world } = options;
  const rect = options.container.ownerDocument.createElement('div');
  rect.className = 'box-select';
  rect.dataset.testid = 'box-select';
  rect.style.display = 'none';
  options.container.appendChild(rect);
  let sx = 0;
  let sy = 0;
  let ex = 0;
  let ey = 0;
  let active = false;

  const draw = () => {
    const c = options.container.getBoundingClientRect();
    rect.style.display = '';
    rect.style.left = `${Math.min(sx, ex) - c.left}px`;
    rect.style.top = `${Math.min(sy, ey) - c.top}px`;
    rect.style.width = `${Math.abs(ex - sx)}px`;
    rect.style.height = `${Math.abs(ey - sy)}px`;
  };

  const removePointer = options.pointer.add('selection', {
    grab(x, y) {
      if (!options.armed()) return false;
      active = true;
      sx = ex = x;
      sy = ey = y;
      draw();
      return true;
    },
    drag(x, y) {
      if (!active) return;
      ex = x;
      ey = y;
      draw();
    },
    release(x, y) {
      if (!active) return;
      active = false;
      ex = x;
      ey = y;
      rect.style.display = 'none';
      const r = options.canvas.getBoundingClientRect();
      const toX = (v: number) => ((v - r.left) / Math.max(r.width, 1)) * 2 - 1;
      const toY = (v: number) => -((v - r.top) / Math.max(r.height, 1)) * 2 + 1;
      const x0 = Math.min(toX(sx), toX(ex));
      const x1 = Math.max(toX(sx), toX(ex));
      const y0 = Math.min(toY(sy), toY(ey));
      const y1 = Math.max(toY(sy), toY(ey));
      if (x1 - x0 < 1e-3 || y1 - y0 < 1e-3) return;
      // The group with the most instances inside wins (a selection is of one group).
      const camera = options.camera();
      camera.updateMatrixWorld();
      let best: { groupId: string; ids: number[] } | null = null;
      for (const group of world.instanceGroups.values()) {
        if (!group.object.visible) continue;
        const ids = instancesInRect(group, camera, x0, y0, x1, y1);
        if (ids.length > (best?.ids.length ?? 0)) best = { groupId: group.uuid, ids };
      }
      if (best) options.onSelect(best.groupId, best.ids);
      else options.onEmpty();
    },
  });

  return {
    dispose() {
      removePointer();
      rect.remove();
    },
  };
}

export { idsKey };
