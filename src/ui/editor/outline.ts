import type { Light, Mesh, Object3D } from 'three';
import { Visibility } from '../../../components';
import type { ModelRecord, ViewerWorld } from '../../engine/world';
import type { SceneObject } from '../../protocol/scene-objects';

export type RowKind = 'model' | 'group' | 'mesh' | 'light' | 'camera' | 'objects';

export interface OutlineRow {
  key: string;
  modelId: string;
  nodeId: string | null;
  /** A scene object's uuid (lights, cameras, groups the editor added). */
  objectId?: string;
  name: string;
  kind: RowKind;
  depth: number;
  visible: boolean;
}

function kindOf(object: Object3D): RowKind {
  if ((object as Light).isLight) return 'light';
  if ((object as { isCamera?: boolean }).isCamera) return 'camera';
  if ((object as Mesh).isMesh) return 'mesh';
  return 'group';
}

/**
 * The outliner's rows: each model, then its registered nodes depth first (primitives that are not
 * nodes are left out). Iterative, so a deep hierarchy cannot overflow the stack.
 */
export function outlineRows(world: ViewerWorld): OutlineRow[] {
  const rows: OutlineRow[] = [];
  for (const record of world.models.values()) {
    rows.push({ key: record.modelId, modelId: record.modelId, nodeId: null, name: record.name || record.modelId, kind: 'model', depth: 0, visible: true });
    pushNodes(record, rows);
  }
  return rows;
}

function pushNodes(record: ModelRecord, rows: OutlineRow[]): void {
  const stack: [Object3D, number][] = [];
  for (let i = record.root.children.length - 1; i >= 0; i--) stack.push([record.root.children[i], 1]);
  while (stack.length) {
    const [object, depth] = stack.pop()!;
    const eid = object.userData.eid as number | undefined;
    const nodeId = eid ? record.nodeIds.get(eid) : undefined;
    let childDepth = depth;
    if (nodeId !== undefined && eid) {
      rows.push({ key: `${record.modelId}/${nodeId}`, modelId: record.modelId, nodeId, name: object.name || `Node ${nodeId}`, kind: kindOf(object), depth, visible: Visibility.visible[eid] === 1 });
      childDepth = depth + 1;
    }
    for (let i = object.children.length - 1; i >= 0; i--) stack.push([object.children[i], childDepth]);
  }
}

/** Rows whose name contains the search (case-insensitive), with their models. */
export function filterRows(rows: OutlineRow[], search: string): OutlineRow[] {
  const q = search.trim().toLowerCase();
  if (!q) return rows;
  return rows.filter((r) => r.kind === 'model' || r.kind === 'objects' || r.name.toLowerCase().includes(q));
}

/**
 * The rows of the scene objects: a heading, then each object under its parent, depth first (an
 * object whose parent is missing, or in a cycle, shows at the top level).
 */
export function objectRows(objects: readonly SceneObject[]): OutlineRow[] {
  if (objects.length === 0) return [];
  const rows: OutlineRow[] = [{ key: '@objects', modelId: '', nodeId: null, name: 'Lights, cameras and groups', kind: 'objects', depth: 0, visible: true }];
  const ids = new Set(objects.map((o) => o.uuid));
  const children = new Map<string | null, SceneObject[]>();
  for (const o of objects) {
    const parent = o.parent && ids.has(o.parent) && o.parent !== o.uuid ? o.parent : null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(o);
  }
  const seen = new Set<string>();
  const stack: [SceneObject, number][] = [...(children.get(null) ?? [])].reverse().map((o) => [o, 1]);
  const push = (o: SceneObject, depth: number) => {
    seen.add(o.uuid);
    const kind: RowKind = o.type === 'Group' ? 'group' : o.type === 'PerspectiveCamera' ? 'camera' : 'light';
    rows.push({ key: `@${o.uuid}`, modelId: '', nodeId: null, objectId: o.uuid, name: o.name || o.type, kind, depth, visible: o.visible });
  };
  while (stack.length) {
    const [o, depth] = stack.pop()!;
    if (seen.has(o.uuid)) continue;
    push(o, depth);
    const kids = children.get(o.uuid) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], depth + 1]);
  }
  // Objects in a parent cycle never reached from the top: shown at the top level.
  for (const o of objects) if (!seen.has(o.uuid)) push(o, 1);
  return rows;
}
