import { describe, expect, it } from 'vitest';
import { EMPTY, type Entry } from '../../../src/meeting/shared-tools-entries';
import { sendInParts, toPut } from '../../../src/meeting/shared-tools-wire';
import { MAX_TOOL_CHANGES, SHARED_TOOLS_MAX_MESSAGE_BYTES } from '../../../src/protocol/shared-tools';

describe('shared tools on the wire', () => {
  it('puts a plane as its position and rotation, a measurement as its points', () => {
    const plane: Entry = { id: 'a:1', kind: 'section', eid: 1, measure: null, rev: 2, writer: 'a', known: EMPTY };
    expect(toPut(plane, Float64Array.of(1, 2, 3, 0, 0, 0, 1))).toEqual({
      op: 'section',
      id: 'a:1',
      rev: 2,
      section: { position: [1, 2, 3], rotation: [0, 0, 0, 1] },
    });
    const angle: Entry = { ...plane, id: 'a:2', kind: 'measurement', measure: 'angle', rev: 1 };
    expect(toPut(angle, Float64Array.of(1, 0, 0, 0, 0, 0, 0, 1, 0))).toEqual({
      op: 'measurement',
      id: 'a:2',
      rev: 1,
      measurement: {
        kind: 'angle',
        points: [
          [1, 0, 0],
          [0, 0, 0],
          [0, 1, 0],
        ],
      },
    });
  });

  it('sends in parts under the count and byte limits, the last one marked; none: one empty last part', () => {
    const parts: [number, boolean][] = [];
    const items = Array.from({ length: MAX_TOOL_CHANGES * 2 + 1 }, (_, i) => ({ i }));
    expect(sendInParts(items, (part, last) => (parts.push([part.length, last]), true))).toEqual([]);
    expect(parts).toEqual([
      [MAX_TOOL_CHANGES, false],
      [MAX_TOOL_CHANGES, false],
      [1, true],
    ]);
    parts.length = 0;
    const big = 'x'.repeat(Math.floor(SHARED_TOOLS_MAX_MESSAGE_BYTES / 2));
    sendInParts([{ big }, { big }, { big }], (part, last) => (parts.push([part.length, last]), true));
    expect(parts.map(([n]) => n)).toEqual([1, 1, 1]);
    parts.length = 0;
    sendInParts([], (part, last) => (parts.push([part.length, last]), true));
    expect(parts).toEqual([[0, true]]);
  });

  it('gives back the items of the parts that could not be sent', () => {
    const items = Array.from({ length: MAX_TOOL_CHANGES + 2 }, (_, i) => i);
    let call = 0;
    expect(sendInParts(items, () => call++ !== 1)).toEqual([MAX_TOOL_CHANGES, MAX_TOOL_CHANGES + 1]);
  });
});
