import { Box3, Box3Helper, Color, LineBasicMaterial, Vector3, type Camera, type Object3D, type Scene } from 'three';
import { addFrameStep } from '../engine/frame-steps';
import { getInstanceBounds, hasInstance, instanceGroupByUuid } from '../engine/instances';
import { HELPER_LAYER } from '../engine/layers';
import { modelById, nodeEid } from '../engine/stable-ids';
import type { ViewerWorld } from '../engine/world';
import { MAX_SHARED_SELECTION_IDS, SELECTION_FUNCTION, SELECTION_OBJECT, SHARED_TOOLS_INTERVAL_MS, SelectionArgs, describeArgsError, type SharedSelection } from '../protocol/shared-tools';
import { exemptFromClipping } from '../viewer/tools/helper-materials';
import type { Label, LabelLayer } from '../viewer/tools/labels';
import type { SharedToolsMeeting } from './shared-tools';

/**
 * The editors' selections in a meeting (issue 14, item 7): what a person selects in the editor goes
 * to the others as `selection.handleSelection(clientId, selection)` (stable ids: a model's node, a
 * scene object, instances of a group); each viewer shows every other person's selection as a box
 * in that person's colour with their name, beside (never instead of) its own selection. Each
 * person re-sends their selection when someone joins (it is theirs alone, so no one else could
 * answer for it), and it goes when they leave. Sent at most every SHARED_TOOLS_INTERVAL_MS (a box
 * selection changes fast), the last one always.
 */

export interface SharedSelectionsTarget {
  world: ViewerWorld;
  /** Where the boxes go (the helper layer: never picked, never in screenshots). */
  scene: Scene;
  labels: Pick<LabelLayer, 'add' | 'remove' | 'update'>;
  /** A participant's name and colour (null: not a participant, nothing is shown). */
  person(clientId: string): { name: string; color: Color } | null;
  /** The scene object's entity and name by uuid (lights, cameras, groups), or null. */
  sceneObject(uuid: string): { eid: number; name: string } | null;
}

export interface SharedSelections {
  /** This viewer's selection (the editor's), for the others; null: nothing selected. */
  publish(selection: SharedSelection): void;
  /** Connected, or someone joined: our selection goes (again) at the next flush. */
  announce(): void;
  left(clientId: string): void;
  /** The connection ended: the others' selections go (they are sent again after the reconnect). */
  disconnected(): void;
  flush(now: number): void;
  /** The others' selections as shown (tests, the page's test hooks). */
  shown(): { clientId: string; selection: NonNullable<SharedSelection>; label: string; visible: boolean; box: Box3 }[];
  dispose(): void;
}

/** A light or camera has no size: its box is this big around its place (m). */
const POINT_BOX_SIZE = 0.5;

interface Highlight {
  selection: NonNullable<SharedSelection>;
  helper: Box3Helper;
  box: Box3;
  label: Label;
  text: string;
}

const pointSize = new Vector3(POINT_BOX_SIZE, POINT_BOX_SIZE, POINT_BOX_SIZE);
const scratchBox = new Box3();
const scratchPoint = new Vector3();

export function createSharedSelections(meeting: SharedToolsMeeting & { selfId(): string | null }, target: SharedSelectionsTarget, report: (message: string) => void): SharedSelections {
  const { world } = target;
  const highlights = new Map<string, Highlight>();
  let mine: SharedSelection = null;
  let due = false;
  let lastSent = -Infinity;
  let labelsDue = false;

  /** The world box of a selection into `out` (empty when its thing is not in this scene) and its name. */
  const measure = (selection: NonNullable<SharedSelection>, out: Box3, named: boolean): string => {
    out.makeEmpty();
    switch (selection.kind) {
      case 'node': {
        const record = modelById(world, selection.modelId);
        if (!record) return selection.nodeId ?? selection.modelId;
        const eid = selection.nodeId ? nodeEid(record, selection.nodeId) : 0;
        const object: Object3D | undefined = eid ? world.objects[eid] : record.root;
        if (object) out.setFromObject(object);
        return object?.name || selection.nodeId || record.name;
      }
      case 'object': {
        const entry = target.sceneObject(selection.uuid);
        const object = entry ? world.objects[entry.eid] : undefined;
        if (!entry || !object) return selection.uuid;
        out.setFromObject(object);
        if (out.isEmpty()) out.setFromCenterAndSize(object.getWorldPosition(scratchPoint), pointSize);
        return entry.name;
      }
      case 'instances': {
        const group = instanceGroupByUuid(world, selection.groupId);
        if (group) for (const id of selection.ids) if (hasInstance(group, id)) out.union(getInstanceBounds(group, id, scratchBox));
        return named ? `${selection.count} instance${selection.count === 1 ? '' : 's'}` : '';
      }
    }
  };

  /** Fits the box and its label to the selection; `name`: the person's name, to (re)write the label's text. */
  const place = (highlight: Highlight, name: string | null) => {
    const thing = measure(highlight.selection, highlight.box, name !== null);
    const visible = !highlight.box.isEmpty();
    highlight.helper.visible = visible;
    if (name !== null) {
      highlight.text = `${name}: ${thing}`;
      highlight.label.setText(highlight.text);
    }
    const display = visible ? '' : 'none';
    if (highlight.label.element.style.display !== display) highlight.label.element.style.display = display;
    if (visible) {
      const b = highlight.box;
      highlight.label.point.set((b.min.x + b.max.x) / 2, b.max.y, (b.min.z + b.max.z) / 2);
    }
    labelsDue = true;
    world.render.needsRender = true;
  };

  const remove = (clientId: string) => {
    const highlight = highlights.get(clientId);
    if (!highlight) return;
    highlights.delete(clientId);
    highlight.helper.removeFromParent();
    highlight.helper.geometry.dispose();
    (highlight.helper.material as LineBasicMaterial).dispose();
    target.labels.remove(highlight.label);
    world.render.needsRender = true;
  };

  const show = (clientId: string, selection: SharedSelection) => {
    if (selection === null) return remove(clientId);
    const person = target.person(clientId);
    if (!person) return; // not (or no longer) in the meeting
    let highlight = highlights.get(clientId);
    if (!highlight) {
      const box = new Box3();
      const material = exemptFromClipping(new LineBasicMaterial({ color: person.color, depthTest: false, transparent: true, opacity: 0.95 }));
      const helper = new Box3Helper(box);
      (helper.material as LineBasicMaterial).dispose();
      helper.material = material;
      helper.name = `selection:${person.name}`;
      helper.renderOrder = 997;
      helper.layers.set(HELPER_LAYER);
      target.scene.add(helper);
      const label = target.labels.add('meeting-selection', person.name);
      label.inScreenshot = false;
      label.offsetY = -14;
      label.element.dataset.testid = 'meeting-selection';
      label.element.style.borderColor = `#${person.color.getHexString()}`;
      highlight = { selection, helper, box, label, text: '' };
      highlights.set(clientId, highlight);
    }
    highlight.selection = selection;
    place(highlight, person.name);
  };

  const unregister = meeting.register(SELECTION_OBJECT, {
    [SELECTION_FUNCTION](sender, args) {
      const parsed = SelectionArgs.safeParse(args);
      if (!parsed.success) return report(`${SELECTION_FUNCTION} from ${sender}: bad arguments (${describeArgsError(parsed.error)}).`);
      show(sender, parsed.data[1]);
    },
  });

  // The boxes follow what they hold (a drag, an undo, an animation, a model that arrived) after the transform system.
  const removeStep = addFrameStep(world, 'helpers', {
    name: 'meeting: selections',
    run(w) {
      if (highlights.size === 0 || w.transform.changed === 0) return;
      for (const highlight of highlights.values()) place(highlight, null);
    },
  });
  const removeLabelStep = addFrameStep(world, 'overlays', {
    name: 'meeting: selection labels',
    run(w) {
      if (!labelsDue || !w.render.camera) return;
      labelsDue = false;
      target.labels.update(w.render.camera as Camera);
    },
  });

  return {
    publish(selection) {
      if (selection?.kind === 'instances' && selection.ids.length > MAX_SHARED_SELECTION_IDS) selection = { ...selection, ids: selection.ids.slice(0, MAX_SHARED_SELECTION_IDS) };
      if (JSON.stringify(selection) === JSON.stringify(mine)) return;
      mine = selection;
      due = true;
    },
    announce() {
      if (mine !== null) due = true;
    },
    left: remove,
    disconnected() {
      for (const id of [...highlights.keys()]) remove(id);
    },
    flush(now) {
      if (!due || now - lastSent < SHARED_TOOLS_INTERVAL_MS) return;
      const self = meeting.selfId();
      if (self === null) return;
      if (meeting.call(SELECTION_OBJECT, SELECTION_FUNCTION, [self, mine])) {
        due = false;
        lastSent = now;
      }
    },
    shown() {
      return [...highlights].map(([clientId, h]) => ({ clientId, selection: h.selection, label: h.text, visible: h.helper.visible, box: h.box.clone() }));
    },
    dispose() {
      unregister();
      removeStep();
      removeLabelStep();
      for (const id of [...highlights.keys()]) remove(id);
    },
  };
}
