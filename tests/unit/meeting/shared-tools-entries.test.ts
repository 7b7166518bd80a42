import { Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { addEntry, createToolEntries, currentState, EMPTY, forgetEntry, newer, sameState, type Entry } from '../../../src/meeting/shared-tools-entries';
import { fakeTools } from './fake-meeting';

const entry = (fields: Partial<Entry>): Entry => ({ id: 'a:1', kind: 'section', eid: 1, measure: null, rev: 0, writer: 'a', known: EMPTY, ...fields });

describe('shared tool entries', () => {
  it('finds an entry by id and by entity of its kind, and forgets it with a tombstone', () => {
    const entries = createToolEntries();
    const plane = entry({ id: 'a:1', eid: 5 });
    const length = entry({ id: 'a:2', kind: 'measurement', eid: 5, measure: 'length' });
    addEntry(entries, plane);
    addEntry(entries, length);
    expect(entries.sectionEntries.get(5)).toBe(plane);
    expect(entries.measurementEntries.get(5)).toBe(length);
    entries.stale = new Set(['a:1', 'a:2']);
    forgetEntry(entries, plane, true);
    expect(entries.byId.has('a:1')).toBe(false);
    expect(entries.sectionEntries.has(5)).toBe(false);
    expect(entries.tombstones.has('a:1')).toBe(true);
    expect([...entries.stale]).toEqual(['a:2']);
    expect(entries.pendingDeletes).toEqual(['a:1']);
  });

  it('sends no deletion of its own while applying a remote change, nor when not told to', () => {
    const entries = createToolEntries();
    const a = entry({ id: 'a:1' });
    const b = entry({ id: 'a:2', eid: 2 });
    addEntry(entries, a);
    addEntry(entries, b);
    entries.applying = 1;
    forgetEntry(entries, a, true);
    entries.applying = 0;
    forgetEntry(entries, b, false);
    expect(entries.pendingDeletes).toEqual([]);
    expect([...entries.tombstones]).toEqual(['a:1', 'a:2']);
  });

  it("reads a plane's pose and a measurement's points as they are now", () => {
    const tools = fakeTools();
    const eid = tools.target.sections.place(new Vector3(1, 2, 3), new Quaternion(0, 0, 0, 1));
    expect([...currentState(tools.target, entry({ eid }))!]).toEqual([1, 2, 3, 0, 0, 0, 1]);
    expect(currentState(tools.target, entry({ eid: 999 }))).toBeNull();
    const m = tools.target.measurements.restore('length', [new Vector3(0, 0, 0), new Vector3(1, 0, 0)]);
    expect([...currentState(tools.target, entry({ kind: 'measurement', eid: m, measure: 'length' }))!]).toEqual([0, 0, 0, 1, 0, 0]);
  });

  it('compares states value by value, and orders edits by revision, then writer', () => {
    expect(sameState(Float64Array.of(1, 2), Float64Array.of(1, 2))).toBe(true);
    expect(sameState(Float64Array.of(1, 2), Float64Array.of(1, 3))).toBe(false);
    expect(sameState(Float64Array.of(1, 2), EMPTY)).toBe(false);
    const held = entry({ rev: 3, writer: 'b' });
    expect(newer(4, 'a', held)).toBe(true);
    expect(newer(3, 'c', held)).toBe(true);
    expect(newer(3, 'a', held)).toBe(false);
    expect(newer(2, 'z', held)).toBe(false);
  });
});
