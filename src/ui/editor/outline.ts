import type { Light, Mesh, Object3D } from 'three';
import { Visibility } from '../../../components';
import type { ModelRecord, ViewerWorld } from '../../engine/world';

export type RowKind = 'model' | 'group' | 'mesh' | 'light' | 'camera';

export interface OutlineRow {
  key: string;
  modelId: string;
  nodeId: string | null;
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
  return rows.filter((r) => r.kind === 'model' || r.name.toLowerCase().includes(q));
}
