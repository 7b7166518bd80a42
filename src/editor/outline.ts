import type { Light, Mesh, Object3D } from 'three';
import { Visibility } from '../../components';
import type { ModelRecord, ViewerWorld } from '../engine/world';
import type { SceneObject } from '../protocol/scene-objects';

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
 * A row of the model tree as the scene's structure gives it: what an edit never changes (ids,
 * kind, depth). Names and visibility are read when a row is drawn (outlinerView).
 */
export interface TreeRow {
  key: string;
  modelId: string;
  nodeId: string | null;
  /** The node's entity (0 for a model's own row). */
  eid: number;
  kind: RowKind;
  depth: number;
}

/**
 * The model tree: each model, then its registered nodes depth first (primitives that are not nodes
 * are left out). Iterative, so a deep hierarchy cannot overflow the stack. Walks every node: the
 * outliner keeps it until the structure changes (createTreeCache).
 */
export function treeRows(world: ViewerWorld): TreeRow[] {
  const rows: TreeRow[] = [];
  for (const record of world.models.values()) {
    rows.push({ key: record.modelId, modelId: record.modelId, nodeId: null, eid: 0, kind: 'model', depth: 0 });
    pushNodes(record, rows);
  }
  return rows;
}

function pushNodes(record: ModelRecord, rows: TreeRow[]): void {
  const stack: [Object3D, number][] = [];
  for (let i = record.root.children.length - 1; i >= 0; i--) stack.push([record.root.children[i], 1]);
  while (stack.length) {
    const [object, depth] = stack.pop()!;
    const eid = object.userData.eid as number | undefined;
    const nodeId = eid ? record.nodeIds.get(eid) : undefined;
    let childDepth = depth;
    if (nodeId !== undefined && eid) {
      rows.push({ key: `${record.modelId}/${nodeId}`, modelId: record.modelId, nodeId, eid, kind: kindOf(object), depth });
      childDepth = depth + 1;
    }
    for (let i = object.children.length - 1; i >= 0; i--) stack.push([object.children[i], childDepth]);
  }
}

/**
 * The model tree, walked again only when the scene's structure changed: an entity spawned, removed
 * or reparented (world.transform.version counts those) or a model came or went. Edits of names,
 * visibility or materials never walk it.
 */
export function createTreeCache(world: ViewerWorld): { rows(): TreeRow[]; readonly walks: number } {
  let rows: TreeRow[] = [];
  let version = -1;
  let models = -1;
  let walks = 0;
  return {
    rows() {
      if (version !== world.transform.version || models !== world.models.size) {
        version = world.transform.version;
        models = world.models.size;
        rows = treeRows(world);
        walks++;
      }
      return rows;
    },
    get walks() {
      return walks;
    },
  };
}

/** A tree row as drawn now: its name and visibility read from the scene. */
export function readRow(world: ViewerWorld, row: TreeRow): OutlineRow {
  if (!row.eid) {
    const record = [...world.models.values()].find((r) => r.modelId === row.modelId);
    return { key: row.key, modelId: row.modelId, nodeId: null, name: record?.name || row.modelId, kind: 'model', depth: 0, visible: true };
  }
  return { key: row.key, modelId: row.modelId, nodeId: row.nodeId, name: nameOf(world, row), kind: row.kind, depth: row.depth, visible: Visibility.visible[row.eid] === 1 };
}

function nameOf(world: ViewerWorld, row: TreeRow): string {
  return world.objects[row.eid]?.name || `Node ${row.nodeId}`;
}

/**
 * What the outliner draws: the scene objects' rows, then the model tree's, those whose name
 * contains the search (models and headings always), at most `limit` of them read now; and how
 * many match in all. Without a search only the drawn rows are read, so a change of one name or
 * one visibility costs `limit` reads however large the scene; a search reads every name once.
 */
export function outlinerView(world: ViewerWorld, tree: readonly TreeRow[], objects: readonly OutlineRow[], search: string, limit: number): { rows: OutlineRow[]; matching: number } {
  const q = search.trim().toLowerCase();
  const rows: OutlineRow[] = [];
  let matching = 0;
  for (const row of filterRows(objects as OutlineRow[], search)) {
    matching++;
    if (rows.length < limit) rows.push(row);
  }
  for (const row of tree) {
    if (q && row.kind !== 'model' && !nameOf(world, row).toLowerCase().includes(q)) continue;
    matching++;
    if (rows.length < limit) rows.push(readRow(world, row));
  }
  return { rows, matching };
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
