import { describe, expect, it } from 'vitest';
import { createToolEntries } from '../../../src/meeting/shared-tools-entries';
import { applyDelete, applyPut } from '../../../src/meeting/shared-tools-remote';
import { fakeTools } from './fake-meeting';

const plane = (id: string, rev: number, x: number) => ({
  op: 'section' as const,
  id,
  rev,
  section: { position: [x, 0, 0] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number] },
});

describe('remote changes to shared tools', () => {
  it('makes a plane through the tools, moves it on a newer put, ignores an older one, and keeps what it holds as shared', () => {
    const tools = fakeTools();
    const entries = createToolEntries();
    const reports: string[] = [];
    const report = (m: string) => reports.push(m);
    applyPut(entries, tools.target, plane('b:1', 1, 2), 'b', report);
    const entry = entries.byId.get('b:1')!;
    expect(tools.sections.list().map((s) => s.position)).toEqual([[2, 0, 0]]);
    expect([...entry.known]).toEqual([2, 0, 0, 0, 0, 0, 1]);
    applyPut(entries, tools.target, plane('b:1', 2, 5), 'c', report);
    expect(tools.sections.list().map((s) => s.position)).toEqual([[5, 0, 0]]);
    expect([entry.rev, entry.writer]).toEqual([2, 'c']);
    applyPut(entries, tools.target, plane('b:1', 1, 9), 'z', report);
    expect(tools.sections.list().map((s) => s.position)).toEqual([[5, 0, 0]]);
    expect(entries.applying).toBe(0);
    expect(reports).toEqual([]);
  });

  it('replaces a measurement whose kind or point count changed', () => {
    const tools = fakeTools();
    const entries = createToolEntries();
    const put = (rev: number, kind: 'length' | 'area', points: [number, number, number][]) =>
      applyPut(entries, tools.target, { op: 'measurement', id: 'b:2', rev, measurement: { kind, points } as never }, 'b', () => {});
    put(1, 'length', [
      [0, 0, 0],
      [1, 0, 0],
    ]);
    const first = entries.byId.get('b:2')!.eid;
    put(2, 'length', [
      [0, 0, 0],
      [2, 0, 0],
    ]);
    expect(entries.byId.get('b:2')!.eid).toBe(first);
    put(3, 'area', [
      [0, 0, 0],
      [1, 0, 0],
      [1, 1, 0],
    ]);
    expect(entries.byId.get('b:2')!.eid).not.toBe(first);
    expect(entries.measurementEntries.has(first)).toBe(false);
  });

  it('deletes through the tools, and a late put of a deleted id does not bring it back', () => {
    const tools = fakeTools();
    const entries = createToolEntries();
    applyPut(entries, tools.target, plane('b:1', 1, 2), 'b', () => {});
    applyDelete(entries, tools.target, 'b:1', () => {});
    expect(tools.sections.list()).toEqual([]);
    expect(entries.pendingDeletes).toEqual([]); // not ours to send
    applyPut(entries, tools.target, plane('b:1', 5, 2), 'b', () => {});
    expect(tools.sections.list()).toEqual([]);
  });

  it('reports, never throws, what the tools refuse or an id reused for another kind', () => {
    const tools = fakeTools();
    const entries = createToolEntries();
    const reports: string[] = [];
    applyPut(entries, tools.target, plane('b:1', 1, 2), 'b', (m) => reports.push(m));
    applyPut(
      entries,
      tools.target,
      {
        op: 'measurement',
        id: 'b:1',
        rev: 2,
        measurement: {
          kind: 'length',
          points: [
            [0, 0, 0],
            [1, 0, 0],
          ],
        } as never,
      },
      'b',
      (m) => reports.push(m),
    );
    expect(reports).toEqual(['A shared measurement from b reuses the id of a section (b:1): it was ignored.']);
    tools.target.sections.remove(entries.byId.get('b:1')!.eid); // gone under the sharer's feet
    applyPut(entries, tools.target, plane('b:1', 3, 4), 'b', (m) => reports.push(m));
    expect(reports[1]).toMatch(/^A section plane shared by another participant could not be shown: There is no section plane/);
    expect(entries.applying).toBe(0);
  });
});
