import { BoxGeometry, Color, Group, Mesh, MeshBasicMaterial, PerspectiveCamera, PointLight, Scene, Vector3, type Box3Helper } from 'three';
import { describe, expect, it } from 'vitest';
import { runFrameSteps } from '../../../src/engine/frame-steps';
import { HELPER_LAYER } from '../../../src/engine/layers';
import { registerNode } from '../../../src/engine/stable-ids';
import { addViewerEntity, createViewerWorld, type ModelRecord } from '../../../src/engine/world';
import { createSharedSelections } from '../../../src/meeting/shared-selection';
import { MAX_SHARED_SELECTION_IDS, SELECTION_FUNCTION, SELECTION_OBJECT, SHARED_TOOLS_INTERVAL_MS } from '../../../src/protocol/shared-tools';
import type { Label } from '../../../src/viewer/tools/labels';
import { FakeHub } from './fake-meeting';

/**
 * The editors' selections in a meeting on a fake meeting: one's own goes out (throttled, again for
 * a newcomer), the others' are boxes in their colours with their names around the selected things,
 * following them, and never touch one's own selection.
 */
function setup() {
  const world = createViewerWorld();
  const scene = new Scene();
  world.render.scene = scene;
  world.render.camera = new PerspectiveCamera();
  // A model with a chair node (a 1 m box at x = 2) and a light (a scene object).
  const root = new Group();
  root.name = 'office.glb';
  const chair = new Mesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial());
  chair.name = 'Chair';
  chair.position.set(2, 0.5, 0);
  root.add(chair);
  scene.add(root);
  root.updateMatrixWorld(true);
  const chairEid = addViewerEntity(world);
  world.objects[chairEid] = chair;
  const record = { eid: addViewerEntity(world), modelId: 'office', name: 'office.glb', root, nodes: new Map(), nodeIds: new Map() } as unknown as ModelRecord;
  registerNode(record, 'chair-node', chairEid);
  world.models.set(record.eid, record);
  const light = new PointLight();
  light.position.set(0, 3, 0);
  scene.add(light);
  light.updateMatrixWorld(true);
  const lightEid = addViewerEntity(world);
  world.objects[lightEid] = light;

  const labels: (Label & { removed?: boolean })[] = [];
  let updates = 0;
  const hub = new FakeHub();
  const people = { me: hub.join('me'), ada: hub.join('ada') };
  const reports: string[] = [];
  const selections = createSharedSelections(
    people.me.meeting,
    {
      world,
      scene,
      labels: {
        add(className, text) {
          const element = { className, textContent: text, style: {} as Record<string, string>, dataset: {} as Record<string, string> } as unknown as HTMLDivElement;
          const label: Label = { element, point: new Vector3(), offsetY: 0, inScreenshot: true, setText: (t) => void (element.textContent = t), setClass: () => undefined };
          labels.push(label);
          return label;
        },
        remove(label) {
          (label as Label & { removed?: boolean }).removed = true;
        },
        update: () => void updates++,
      },
      person: (id) => (id === 'ada' ? { name: 'Ada Lovelace', color: new Color(0x33cc66) } : null),
      sceneObject: (uuid) => (uuid === 'lamp' ? { eid: lightEid, name: 'Lamp' } : null),
    },
    (m) => reports.push(m),
  );
  const helpers = () => scene.children.filter((o) => o.name.startsWith('selection:')) as Box3Helper[];
  const frame = () => {
    people.me.deliver();
    runFrameSteps(world, 'helpers');
    runFrameSteps(world, 'overlays');
  };
  const fromAda = (selection: unknown) => {
    people.ada.meeting.call(SELECTION_OBJECT, SELECTION_FUNCTION, ['ada', selection]);
    frame();
  };
  return { world, scene, chair, hub, people, selections, labels, helpers, frame, fromAda, reports, updates: () => updates };
}

describe('shared selections', () => {
  it("another person's selection is a box in their colour, named, around the thing, on the helper layer", () => {
    const s = setup();
    s.fromAda({ kind: 'node', modelId: 'office', nodeId: 'chair-node' });
    const [helper] = s.helpers();
    expect(helper.name).toBe('selection:Ada Lovelace');
    expect(helper.layers.isEnabled(HELPER_LAYER)).toBe(true);
    expect(helper.layers.isEnabled(0)).toBe(false);
    expect(helper.visible).toBe(true);
    expect((helper.material as MeshBasicMaterial).color.getHex()).toBe(0x33cc66);
    expect(helper.box.min.toArray()).toEqual([1.5, 0, -0.5]);
    expect(helper.box.max.toArray()).toEqual([2.5, 1, 0.5]);
    const label = s.labels[0];
    expect(label.element.textContent).toBe('Ada Lovelace: Chair');
    expect(label.element.style.borderColor).toBe('#33cc66');
    expect(label.inScreenshot).toBe(false);
    expect(label.point.toArray()).toEqual([2, 1, 0]);
    expect(s.updates()).toBeGreaterThan(0);
    expect(s.selections.shown()).toEqual([expect.objectContaining({ clientId: 'ada', label: 'Ada Lovelace: Chair', visible: true })]);
  });

  it('the box follows the thing when it moves, and moves to the next selection; null or leaving removes it', () => {
    const s = setup();
    s.fromAda({ kind: 'node', modelId: 'office', nodeId: 'chair-node' });
    s.chair.position.x = 5;
    s.chair.updateMatrixWorld(true);
    s.world.transform.changed = 1; // the transform system moved something this frame
    s.frame();
    expect(s.helpers()[0].box.getCenter(new Vector3()).x).toBe(5);
    s.fromAda({ kind: 'object', uuid: 'lamp' });
    expect(s.helpers()).toHaveLength(1);
    expect(s.labels[0].element.textContent).toBe('Ada Lovelace: Lamp');
    // A light has no size: a small box around it.
    expect(s.helpers()[0].box.getCenter(new Vector3()).toArray()).toEqual([0, 3, 0]);
    s.fromAda(null);
    expect(s.helpers()).toEqual([]);
    expect(s.labels[0].removed).toBe(true);
    s.fromAda({ kind: 'object', uuid: 'lamp' });
    s.selections.left('ada');
    expect(s.helpers()).toEqual([]);
  });

  it('a thing this viewer does not have is not boxed; a non-participant is not shown; bad input is reported', () => {
    const s = setup();
    s.fromAda({ kind: 'node', modelId: 'other-model', nodeId: 'x' });
    expect(s.helpers()[0].visible).toBe(false);
    expect(s.labels[0].element.style.display).toBe('none');
    s.fromAda({ kind: 'instances', groupId: 'nope', ids: [1, 2], count: 2 });
    expect(s.labels[0].element.textContent).toBe('Ada Lovelace: 2 instances');
    const stranger = s.hub.join('stranger');
    stranger.meeting.call(SELECTION_OBJECT, SELECTION_FUNCTION, ['stranger', { kind: 'object', uuid: 'lamp' }]);
    s.frame();
    expect(s.helpers()).toHaveLength(1);
    s.fromAda({ kind: 'node', modelId: 5 });
    expect(s.reports).toEqual([expect.stringMatching(/^handleSelection from ada: bad arguments \(args\[1\]\.modelId: /)]);
    expect(s.selections.shown()[0].label).toBe('Ada Lovelace: 2 instances');
  });

  it("one's own selection goes out at most every 50 ms, the last one always, again when someone joins, not when unchanged", () => {
    const s = setup();
    const sent = () => s.hub.sent('me', SELECTION_FUNCTION).map((l) => l.args[1]);
    let now = 0;
    s.selections.publish({ kind: 'object', uuid: 'lamp' });
    s.selections.flush(now);
    s.selections.publish({ kind: 'node', modelId: 'office', nodeId: 'chair-node' });
    s.selections.flush((now += 10));
    s.selections.publish({ kind: 'node', modelId: 'office', nodeId: null });
    s.selections.flush((now += 10));
    expect(sent()).toEqual([{ kind: 'object', uuid: 'lamp' }]);
    s.selections.flush((now += SHARED_TOOLS_INTERVAL_MS));
    expect(sent()).toEqual([{ kind: 'object', uuid: 'lamp' }, { kind: 'node', modelId: 'office', nodeId: null }]);
    // Unchanged: nothing; a newcomer: again.
    s.selections.publish({ kind: 'node', modelId: 'office', nodeId: null });
    s.selections.flush((now += 100));
    expect(sent()).toHaveLength(2);
    s.selections.announce();
    s.selections.flush((now += 100));
    expect(sent()).toHaveLength(3);
    // Nothing selected: the others are told once; a newcomer needs no news of nothing.
    s.selections.publish(null);
    s.selections.flush((now += 100));
    s.selections.announce();
    s.selections.flush((now += 100));
    expect(sent()).toEqual([expect.anything(), expect.anything(), expect.anything(), null]);
    // A large instance selection is cut to the ids a message carries, with the count.
    const ids = Array.from({ length: 1000 }, (_, i) => i);
    s.selections.publish({ kind: 'instances', groupId: 'g', ids, count: ids.length });
    s.selections.flush((now += 100));
    expect(sent().at(-1)).toEqual({ kind: 'instances', groupId: 'g', ids: ids.slice(0, MAX_SHARED_SELECTION_IDS), count: 1000 });
  });

  it('a disconnect takes the others\' selections away and keeps one\'s own for after', () => {
    const s = setup();
    s.fromAda({ kind: 'object', uuid: 'lamp' });
    s.selections.publish({ kind: 'object', uuid: 'lamp' });
    s.people.me.online = false;
    s.selections.disconnected();
    s.selections.flush(1000);
    expect(s.helpers()).toEqual([]);
    expect(s.hub.sent('me', SELECTION_FUNCTION)).toEqual([]);
    s.people.me.online = true;
    s.selections.announce();
    s.selections.flush(2000);
    expect(s.hub.sent('me', SELECTION_FUNCTION)).toHaveLength(1);
  });
});
