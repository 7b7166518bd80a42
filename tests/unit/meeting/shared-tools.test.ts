import { Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { createViewerWorld } from '../../../src/engine/world';
import { createSharedTools, type SharedTools } from '../../../src/meeting/shared-tools';
import { MEETING_MAX_FRAME_BYTES } from '../../../src/protocol/meeting';
import { SHARED_TOOLS_INTERVAL_MS, TOOL_CHANGES_FUNCTION, TOOL_STATE_FUNCTION, TOOL_STATE_REQUEST_FUNCTION, TOOL_STATE_TIMEOUT_MS, TOOLS_OBJECT } from '../../../src/protocol/shared-tools';
import { FakeHub, fakeTools } from './fake-meeting';

/**
 * The sharing of section planes and measurements, with people on a fake meeting (tests/unit/meeting/
 * fake-meeting.ts): each has tools on one world (the ECS's arrays are global, so the people share
 * the entity space, as separate pages would not need to) and a sharer; `hub.settle()` is the
 * message system applying what arrived.
 */
function meeting(ids: string[]) {
  const hub = new FakeHub();
  const world = createViewerWorld();
  const people = new Map<string, { tools: ReturnType<typeof fakeTools>; sharer: SharedTools; reports: string[]; p: ReturnType<FakeHub['join']> }>();
  for (const id of ids) {
    const p = hub.join(id);
    const tools = fakeTools(world);
    const reports: string[] = [];
    const sharer = createSharedTools(p.meeting, tools.target, { report: (m) => reports.push(m) });
    people.set(id, { tools, sharer, reports, p });
  }
  const person = (id: string) => people.get(id)!;
  let now = 1000;
  /** Every sharer's frame step at `now`, then delivery; time moves on by `step`. */
  const frame = (step = SHARED_TOOLS_INTERVAL_MS) => {
    for (const { sharer } of people.values()) sharer.flush(now);
    hub.settle();
    now += step;
  };
  const connectAll = () => {
    const all = [...people.keys()];
    for (const [id, { sharer }] of people) sharer.connected(id, all);
    // Joined together, nobody holds a set: those who asked each other move on at once.
    for (let i = 0; i < 10 && [...people.values()].some((p) => !p.sharer.synced); i++) frame();
    expect([...people.values()].every((p) => p.sharer.synced)).toBe(true);
  };
  return { hub, world, people, person, frame, connectAll, now: () => now, advance: (ms: number) => (now += ms) };
}

const v = (x: number, y: number, z: number) => new Vector3(x, y, z);
const round = (a: number[]) => a.map((x) => Math.round(x * 1e5) / 1e5 + 0);

function planes(tools: ReturnType<typeof fakeTools>) {
  return tools.sections.list().map((p) => ({ position: round(p.position), rotation: round(p.rotation) }));
}

describe('shared section planes', () => {
  it('a plane made by one appears for the others with the same id, and nothing echoes back', () => {
    const m = meeting(['a', 'b', 'c']);
    m.connectAll();
    const a = m.person('a');
    const eid = a.tools.sections.create(v(0, 0.6, 0), v(0, -1, 0));
    expect(a.sharer.isSharedSection(eid)).toBe(true);
    m.frame();
    const expected = planes(a.tools);
    expect(expected).toHaveLength(1);
    expect(planes(m.person('b').tools)).toEqual(expected);
    expect(planes(m.person('c').tools)).toEqual(expected);
    const ids = ['a', 'b', 'c'].map((id) => m.person(id).sharer.list().map((o) => o.id));
    expect(ids).toEqual([['a:1'], ['a:1'], ['a:1']]);
    // B and C applied it: nothing goes back out, however many frames pass.
    const before = m.hub.log.length;
    for (let i = 0; i < 5; i++) m.frame();
    expect(m.hub.log.length).toBe(before);
    expect(m.hub.sent('a', TOOL_CHANGES_FUNCTION)).toHaveLength(1);
    expect(m.hub.sent('b', TOOL_CHANGES_FUNCTION)).toEqual([]);
    expect(m.hub.sent('c', TOOL_CHANGES_FUNCTION)).toEqual([]);
  });

  it('a drag goes out at most every 50 ms, and its last pose always', () => {
    const m = meeting(['a', 'b']);
    m.connectAll();
    const a = m.person('a');
    const eid = a.tools.sections.create(v(0, 1, 0), v(0, -1, 0));
    m.frame();
    const sends = () => m.hub.sent('a', TOOL_CHANGES_FUNCTION).length;
    const start = sends();
    // 60 fps for half a second: a pose every 16 ms.
    for (let i = 1; i <= 30; i++) {
      a.tools.sections.move(eid, v(0, 1 + i * 0.01, 0));
      m.frame(16);
    }
    const during = sends() - start;
    expect(during).toBeGreaterThanOrEqual(8);
    expect(during).toBeLessThanOrEqual(11); // 480 ms / 50 ms, plus the first at once
    // The drag stopped between two sends: the last pose still goes, at the next send's time.
    m.advance(SHARED_TOOLS_INTERVAL_MS);
    m.frame();
    expect(planes(m.person('b').tools)).toEqual(planes(a.tools));
    expect(planes(a.tools)[0].position).toEqual([0, 1.3, 0]);
  });

  it('anyone may move, tilt or delete a shared plane; a late put of a deleted plane does not bring it back', () => {
    const m = meeting(['a', 'b', 'c']);
    m.connectAll();
    const a = m.person('a');
    const b = m.person('b');
    a.tools.sections.create(v(0, 1, 0), v(0, -1, 0));
    m.frame();
    // B tilts it (a new rotation) and moves it.
    const [bEid] = b.tools.sections.list().map((p) => p.id);
    b.tools.sections.setPose(bEid, v(1, 2, 3), new Quaternion().setFromAxisAngle(v(1, 0, 0), Math.PI / 4));
    m.frame();
    expect(planes(a.tools)).toEqual(planes(b.tools));
    expect(planes(m.person('c').tools)).toEqual(planes(b.tools));
    expect(a.sharer.list()[0].rev).toBe(2);
    // C deletes it: gone everywhere.
    const stalePut = m.hub.sent('b', TOOL_CHANGES_FUNCTION).at(-1)!;
    m.person('c').tools.sections.remove(m.person('c').tools.sections.list()[0].id);
    m.frame();
    for (const id of ['a', 'b', 'c']) {
      expect(m.person(id).tools.sections.list(), id).toEqual([]);
      expect(m.person(id).sharer.list(), id).toEqual([]);
    }
    // B's old move arrives again (a slow link): it stays deleted.
    a.p.inbox.push({ object: TOOLS_OBJECT, function: TOOL_CHANGES_FUNCTION, args: JSON.parse(JSON.stringify(stalePut.args)) });
    m.hub.settle();
    expect(a.tools.sections.list()).toEqual([]);
  });

  it('two people moving the same plane at once end with the same plane everywhere', () => {
    const m = meeting(['a', 'b']);
    m.connectAll();
    const a = m.person('a');
    const b = m.person('b');
    a.tools.sections.create(v(0, 1, 0), v(0, -1, 0));
    m.frame();
    a.tools.sections.move(a.tools.sections.list()[0].id, v(0, 5, 0));
    b.tools.sections.move(b.tools.sections.list()[0].id, v(0, 7, 0));
    // Both send revision 2 in the same frame; each receives the other's.
    m.frame();
    m.frame();
    expect(planes(a.tools)).toEqual(planes(b.tools));
    expect(planes(a.tools)[0].position).toEqual([0, 7, 0]); // equal revisions: the greater writer id wins
  });

  it("a follower's copies (made under unshared) and planes from before the meeting stay the person's own", () => {
    const hub = new FakeHub();
    const world = createViewerWorld();
    const a = hub.join('a');
    const aTools = fakeTools(world);
    const before = aTools.sections.create(v(0, 1, 0), v(1, 0, 0));
    const aSharer = createSharedTools(a.meeting, aTools.target, { report: () => undefined });
    const b = hub.join('b');
    const bTools = fakeTools(world);
    const bSharer = createSharedTools(b.meeting, bTools.target, { report: () => undefined });
    aSharer.connected('a', ['a', 'b']);
    bSharer.connected('b', ['a', 'b']);
    const copy = aSharer.unshared(() => aTools.sections.place(v(0, 2, 0), new Quaternion()));
    for (let t = 0; t < 300; t += 50) {
      aSharer.flush(t);
      bSharer.flush(t);
      hub.settle();
    }
    expect(aSharer.isSharedSection(before)).toBe(false);
    expect(aSharer.isSharedSection(copy)).toBe(false);
    expect(bTools.sections.list()).toEqual([]);
    expect(hub.sent('a', TOOL_CHANGES_FUNCTION)).toEqual([]);
  });
});

describe('shared measurements', () => {
  it('a finished measurement, its corrected points and its deletion reach everyone', () => {
    const m = meeting(['a', 'b', 'c']);
    m.connectAll();
    const b = m.person('b');
    const eid = b.tools.measurements.complete('length', [v(0, 0, 0), v(2, 0, 0)]);
    m.frame();
    for (const id of ['a', 'c']) expect(m.person(id).tools.measurements.list().map((x) => ({ kind: x.kind, points: x.points }))).toEqual([{ kind: 'length', points: [[0, 0, 0], [2, 0, 0]] }]);
    // B drags the end: A and C follow (throttled), the last point always.
    for (let i = 1; i <= 5; i++) {
      b.tools.measurements.drag(eid, 1, v(2 + i * 0.1, 0, 0));
      m.frame(10);
    }
    m.frame();
    expect(m.person('a').tools.measurements.list()[0].points[1][0]).toBeCloseTo(2.5, 10);
    expect(m.person('c').tools.measurements.list()[0].points[1][0]).toBeCloseTo(2.5, 10);
    // A deletes it.
    const a = m.person('a');
    a.tools.measurements.remove(a.tools.measurements.list()[0].id);
    m.frame();
    for (const id of ['a', 'b', 'c']) expect(m.person(id).tools.measurements.list(), id).toEqual([]);
    // Nothing echoed: B sent the creation and the drag, nothing after A's delete.
    const bSends = m.hub.sent('b', TOOL_CHANGES_FUNCTION).map((l) => (l.args[1] as { op: string }[]).map((c) => c.op));
    expect(bSends.every((ops) => ops.every((op) => op === 'measurement'))).toBe(true);
  });

  it('areas and angles keep their kind; a kind or point count change replaces the measurement', () => {
    const m = meeting(['a', 'b']);
    m.connectAll();
    const a = m.person('a');
    a.tools.measurements.complete('area', [v(0, 0, 0), v(1, 0, 0), v(1, 0, 1), v(0, 0, 1)]);
    a.tools.measurements.complete('angle', [v(1, 0, 0), v(0, 0, 0), v(0, 1, 0)]);
    m.frame();
    const list = m.person('b').tools.measurements.list();
    expect(list.map((x) => [x.kind, x.points.length])).toEqual([
      ['area', 4],
      ['angle', 3],
    ]);
    // A put of the same id with another point count (a newer revision) replaces it.
    m.person('a').p.meeting.call(TOOLS_OBJECT, TOOL_CHANGES_FUNCTION, [
      'a',
      [{ op: 'measurement', id: 'a:1', rev: 9, measurement: { kind: 'area', points: [[0, 0, 0], [2, 0, 0], [2, 0, 2]] } }],
    ]);
    m.hub.settle();
    expect(m.person('b').tools.measurements.list().map((x) => [x.kind, x.points.length])).toEqual([
      ['angle', 3],
      ['area', 3],
    ]);
    expect(m.person('b').sharer.list().find((o) => o.id === 'a:1')?.rev).toBe(9);
  });
});

describe('newcomers and reconnects', () => {
  it('a newcomer asks one participant (the lowest id) and gets the whole set, objects whose creator left included', () => {
    const m = meeting(['a', 'b', 'c']);
    const [a, b, c] = ['a', 'b', 'c'].map(m.person);
    a.sharer.connected('a', ['a']);
    b.sharer.connected('b', ['a', 'b']);
    c.p.online = false;
    m.frame();
    m.frame();
    a.tools.sections.create(v(0, 1, 0), v(0, -1, 0));
    b.tools.measurements.complete('length', [v(0, 0, 0), v(3, 0, 0)]);
    m.frame();
    // The creator of the plane leaves; C comes.
    a.p.online = false;
    b.sharer.left('a');
    c.p.online = true;
    c.sharer.connected('c', ['b', 'c']);
    expect(c.sharer.synced).toBe(false);
    m.frame();
    expect(m.hub.sent('c', TOOL_STATE_REQUEST_FUNCTION).map((l) => l.args)).toEqual([['c', 'b']]);
    expect(m.hub.sent('b', TOOL_STATE_FUNCTION)).toHaveLength(1);
    expect(c.sharer.synced).toBe(true);
    expect(planes(c.tools)).toEqual(planes(b.tools));
    expect(c.tools.measurements.list().map((x) => x.points)).toEqual([[[0, 0, 0], [3, 0, 0]]]);
    expect(c.sharer.list().map((o) => o.id).sort()).toEqual(['a:1', 'b:1']);
    // C has it all and sends nothing back.
    m.frame();
    expect(m.hub.sent('c', TOOL_CHANGES_FUNCTION)).toEqual([]);
  });

  it('the one asked answers only once it holds the set; silence moves on to the next after the timeout', () => {
    const m = meeting(['a', 'b', 'c']);
    const [a, b, c] = ['a', 'b', 'c'].map(m.person);
    c.sharer.connected('c', ['c']);
    m.frame();
    c.tools.sections.create(v(0, 1, 0), v(0, -1, 0));
    m.frame();
    // A joins and asks B (lowest of the others), but B's page is stalled (a hidden tab).
    b.sharer.connected('b', ['b', 'c']);
    a.sharer.connected('a', ['a', 'b', 'c']);
    const stalled = b.p.deliver.bind(b.p);
    b.p.deliver = () => 0;
    b.sharer.flush(m.now());
    a.sharer.flush(m.now());
    m.hub.settle();
    expect(m.hub.sent('a', TOOL_STATE_REQUEST_FUNCTION).map((l) => l.args[1])).toEqual(['b']);
    expect(a.sharer.synced).toBe(false);
    m.advance(TOOL_STATE_TIMEOUT_MS);
    m.frame();
    m.frame();
    expect(m.hub.sent('a', TOOL_STATE_REQUEST_FUNCTION).map((l) => l.args[1])).toEqual(['b', 'c']);
    expect(a.sharer.synced).toBe(true);
    expect(planes(a.tools)).toEqual(planes(c.tools));
    // B wakes up: it gets its own answer from C, then answers A (harmless: A has it all).
    b.p.deliver = stalled;
    m.frame();
    m.frame();
    expect(b.sharer.synced).toBe(true);
    expect(planes(b.tools)).toEqual(planes(c.tools));
    expect(planes(a.tools)).toEqual(planes(c.tools));
  });

  it('when the one asked leaves, the next is asked at once; when nobody answers, the set is what one holds', () => {
    const m = meeting(['a', 'b', 'c']);
    const [a, b, c] = ['a', 'b', 'c'].map(m.person);
    // Everyone joins at once: nobody holds a set yet, so nobody answers.
    for (const [id, { sharer }] of m.people) sharer.connected(id, ['a', 'b', 'c']);
    m.frame();
    expect(m.hub.sent('c', TOOL_STATE_REQUEST_FUNCTION).map((l) => l.args[1])).toEqual(['a']);
    c.sharer.left('a');
    m.frame();
    expect(m.hub.sent('c', TOOL_STATE_REQUEST_FUNCTION).map((l) => l.args[1])).toEqual(['a', 'b']);
    for (let i = 0; i < 3; i++) {
      m.advance(TOOL_STATE_TIMEOUT_MS);
      m.frame();
    }
    for (const p of [a, b, c]) expect(p.sharer.synced).toBe(true);
    // Planes made meanwhile reached everyone as changes.
    b.tools.sections.create(v(0, 1, 0), v(0, -1, 0));
    m.frame();
    expect(planes(c.tools)).toEqual(planes(b.tools));
  });

  it('after a reconnect, objects the answer lacks were deleted meanwhile; edits made offline go out', () => {
    const m = meeting(['a', 'b']);
    m.connectAll();
    const [a, b] = ['a', 'b'].map(m.person);
    a.tools.sections.create(v(0, 1, 0), v(0, -1, 0));
    a.tools.sections.create(v(0, 2, 0), v(0, -1, 0));
    m.frame();
    // A drops; B deletes the first plane meanwhile; A moves the second one offline.
    a.p.online = false;
    a.sharer.disconnected();
    b.tools.sections.remove(b.tools.sections.list()[0].id);
    m.frame();
    a.tools.sections.move(a.tools.sections.list()[1].id, v(0, 4, 0));
    m.frame();
    expect(a.tools.sections.list()).toHaveLength(2);
    // Back (with a new client id, as after a real reconnect).
    a.p.online = true;
    a.sharer.connected('a', ['a', 'b']);
    m.frame();
    m.frame();
    expect(planes(a.tools)).toEqual(planes(b.tools));
    expect(planes(a.tools)).toHaveLength(1);
    expect(planes(b.tools)[0].position).toEqual([0, 4, 0]);
  });

  it('a large set goes in parts under the frame limit', () => {
    const m = meeting(['a', 'b']);
    const [a, b] = ['a', 'b'].map(m.person);
    a.sharer.connected('a', ['a']);
    m.frame();
    const points = Array.from({ length: 200 }, (_, i) => v(i * 1.123456789, 0, (i % 7) / 3));
    for (let i = 0; i < 20; i++) a.tools.measurements.complete('area', points.map((p) => p.clone().setY(i)));
    m.frame();
    const changes = m.hub.sent('a', TOOL_CHANGES_FUNCTION);
    expect(changes.length).toBeGreaterThan(1);
    for (const l of changes) expect(l.bytes).toBeLessThan(MEETING_MAX_FRAME_BYTES);
    b.sharer.connected('b', ['a', 'b']);
    m.frame();
    const parts = m.hub.sent('a', TOOL_STATE_FUNCTION);
    expect(parts.length).toBeGreaterThan(1);
    for (const l of parts) expect(l.bytes).toBeLessThan(MEETING_MAX_FRAME_BYTES);
    expect(parts.map((l) => (l.args[2] as { last: boolean }).last)).toEqual([...parts.slice(1).map(() => false), true]);
    expect(b.tools.measurements.list()).toHaveLength(20);
    expect(b.sharer.synced).toBe(true);
  });
});

describe('bad input', () => {
  it('a malformed change is reported, never thrown, and nothing of it is applied', () => {
    const m = meeting(['a', 'b']);
    m.connectAll();
    const b = m.person('b');
    const send = (args: unknown[]) => {
      m.person('a').p.meeting.call(TOOLS_OBJECT, TOOL_CHANGES_FUNCTION, args);
      expect(() => m.hub.settle()).not.toThrow();
    };
    send(['a', [{ op: 'section', id: 'a:1', rev: 1, section: { position: [0, 0, 0], rotation: [0, 0, 0, 0] } }, { op: 'measurement', id: 'a:2', rev: 1, measurement: { kind: 'length', points: [[0, 0, 0], [1, 0, 0]] } }]]);
    send(['a', 'not a list']);
    m.person('a').p.meeting.call(TOOLS_OBJECT, TOOL_STATE_FUNCTION, ['a', 'b', { objects: [{ op: 'section' }], last: true }]);
    m.hub.settle();
    expect(b.reports).toEqual([
      'handleToolChanges from a: bad arguments (args[1][0].section.rotation: rotation must be a unit quaternion); nothing was applied.',
      expect.stringMatching(/^handleToolChanges from a: bad arguments \(args\[1\]: /),
      expect.stringMatching(/^handleToolState from a: bad arguments \(args\[2\]\.objects\[0\]/),
    ]);
    expect(b.tools.sections.list()).toEqual([]);
    expect(b.tools.measurements.list()).toEqual([]);
  });

  it('a change the tools refuse is reported and the others still apply', () => {
    const m = meeting(['a', 'b']);
    m.connectAll();
    const b = m.person('b');
    // A measurement id reused for a plane.
    m.person('a').p.meeting.call(TOOLS_OBJECT, TOOL_CHANGES_FUNCTION, [
      'a',
      [
        { op: 'measurement', id: 'a:5', rev: 1, measurement: { kind: 'length', points: [[0, 0, 0], [1, 0, 0]] } },
        { op: 'section', id: 'a:5', rev: 2, section: { position: [0, 0, 0], rotation: [0, 0, 0, 1] } },
        { op: 'section', id: 'a:6', rev: 1, section: { position: [0, 0, 0], rotation: [0, 0, 0, 1] } },
      ],
    ]);
    m.hub.settle();
    expect(b.reports).toEqual(['A shared section from a reuses the id of a measurement (a:5): it was ignored.']);
    expect(b.tools.measurements.list()).toHaveLength(1);
    expect(b.tools.sections.list()).toHaveLength(1);
  });
});
