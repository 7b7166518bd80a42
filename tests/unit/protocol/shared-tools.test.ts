import { describe, expect, it } from 'vitest';
import { MAX_MEASUREMENT_POINTS } from '../../../src/protocol/comments';
import { MEETING_MAX_FRAME_BYTES, parseClientMessage } from '../../../src/protocol/meeting';
import {
  MAX_SHARED_SELECTION_IDS,
  MAX_TOOL_CHANGES,
  SELECTION_FUNCTION,
  SELECTION_OBJECT,
  SHARED_TOOLS_INTERVAL_MS,
  SHARED_TOOLS_MAX_MESSAGE_BYTES,
  SelectionArgs,
  SharedObjectId,
  TOOL_CHANGES_FUNCTION,
  TOOLS_OBJECT,
  ToolChangesArgs,
  ToolStateArgs,
  ToolStateRequestArgs,
  describeArgsError,
} from '../../../src/protocol/shared-tools';

const SECTION = { position: [0, 0.6, 0], rotation: [0.7071067811865476, 0, 0, 0.7071067811865476] };
const LENGTH = { kind: 'length', points: [[0, 0, 0], [2, 0, 0]] };

function error(result: { success: boolean; error?: unknown }): string {
  expect(result.success).toBe(false);
  return describeArgsError(result.error as never);
}

describe('shared tools protocol', () => {
  it('sends at the avatars\' pace and keeps every message under the frame limit', () => {
    expect(SHARED_TOOLS_INTERVAL_MS).toBe(50);
    expect(SHARED_TOOLS_MAX_MESSAGE_BYTES).toBeLessThan(MEETING_MAX_FRAME_BYTES);
    // A full message of the largest measurement fits the server's frame limit.
    const points = Array.from({ length: MAX_MEASUREMENT_POINTS }, (_, i) => [i * 1.0000000000001, -i / 3, Math.PI * i]);
    const frame = JSON.stringify({ type: 'RFC', object: TOOLS_OBJECT, function: TOOL_CHANGES_FUNCTION, args: ['abcdefghijkl', [{ op: 'measurement', id: 'abcdefghijkl:999999999', rev: 123456789, measurement: { kind: 'area', points } }]] });
    expect(frame.length).toBeLessThan(MEETING_MAX_FRAME_BYTES);
  });

  it('takes puts of planes and measurements and deletes, as RFCs the server relays', () => {
    const args = ['me', [
      { op: 'section', id: 'me:1', rev: 1, section: SECTION },
      { op: 'measurement', id: 'me:2', rev: 3, measurement: LENGTH },
      { op: 'measurement', id: 'me:3', rev: 1, measurement: { kind: 'area', points: [[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]] } },
      { op: 'measurement', id: 'me:4', rev: 1, measurement: { kind: 'angle', points: [[1, 0, 0], [0, 0, 0], [0, 1, 0]] } },
      { op: 'delete', id: 'other:7' },
    ]];
    expect(ToolChangesArgs.safeParse(args).success).toBe(true);
    expect(parseClientMessage(JSON.stringify({ type: 'RFC', object: TOOLS_OBJECT, function: TOOL_CHANGES_FUNCTION, args })).ok).toBe(true);
    expect(parseClientMessage(JSON.stringify({ type: 'RFC', object: SELECTION_OBJECT, function: SELECTION_FUNCTION, args: ['me', null] })).ok).toBe(true);
  });

  it('refuses malformed changes, naming the argument', () => {
    expect(error(ToolChangesArgs.safeParse(['me', []]))).toMatch(/^args\[1\]: /);
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'section', id: 'me:1', rev: 1, section: { ...SECTION, rotation: [0, 0, 0, 2] } }]]))).toBe('args[1][0].section.rotation: rotation must be a unit quaternion');
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'section', id: 'me:1', rev: 1, section: { ...SECTION, position: [0, Number.NaN, 0] } }]]))).toMatch(/^args\[1\]\[0\]\.section\.position\[1\]: /);
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'measurement', id: 'me:1', rev: 1, measurement: { kind: 'length', points: [[0, 0, 0], [1, 0, 0], [2, 0, 0]] } }]]))).toBe(
      'args[1][0].measurement.points: a length measurement needs 2 points, got 3',
    );
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'measurement', id: 'me:1', rev: 1, measurement: { kind: 'angle', points: [[0, 0, 0], [1, 0, 0]] } }]]))).toMatch(/angle measurement needs 3 points, got 2/);
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'measurement', id: 'me:1', rev: 1, measurement: { kind: 'area', points: [[0, 0, 0], [1, 0, 0]] } }]]))).toMatch(/area measurement needs at least 3 points/);
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'measurement', id: 'me:1', rev: 1, measurement: { kind: 'volume', points: [] } }]]))).toMatch(/^args\[1\]\[0\]\.measurement\.kind: /);
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'section', id: 'me:1', rev: 0, section: SECTION }]]))).toMatch(/^args\[1\]\[0\]\.rev: /);
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'section', id: 'me:1', rev: 1.5, section: SECTION }]]))).toMatch(/rev must be a whole number/);
    expect(error(ToolChangesArgs.safeParse(['me', [{ op: 'move', id: 'me:1' }]]))).toMatch(/^args\[1\]\[0\]\.op: /);
    expect(error(ToolChangesArgs.safeParse(['me', Array.from({ length: MAX_TOOL_CHANGES + 1 }, (_, i) => ({ op: 'delete', id: `me:${i}` }))]))).toMatch(/^args\[1\]: /);
    expect(error(ToolChangesArgs.safeParse([42, [{ op: 'delete', id: 'me:1' }]]))).toMatch(/^args\[0\]: the client id must be a string/);
  });

  it('ids are the creator\'s client id and a counter', () => {
    expect(SharedObjectId.safeParse('Qx3_-a9ZkLm2:17').success).toBe(true);
    for (const bad of ['me', 'me:', ':1', 'me:1:2', 'a b:1', 'me:-1', 'me:1e3', `${'x'.repeat(101)}:1`]) expect(SharedObjectId.safeParse(bad).success, bad).toBe(false);
  });

  it('asks one participant for the state and takes it in parts', () => {
    expect(ToolStateRequestArgs.safeParse(['new', 'old']).success).toBe(true);
    expect(ToolStateRequestArgs.safeParse(['new']).success).toBe(false);
    const part = { objects: [{ op: 'section', id: 'a:1', rev: 2, writer: 'b', section: SECTION }, { op: 'measurement', id: 'c:5', rev: 1, writer: 'c', measurement: LENGTH }], last: true };
    expect(ToolStateArgs.safeParse(['old', 'new', part]).success).toBe(true);
    expect(ToolStateArgs.safeParse(['old', 'new', { objects: [], last: false }]).success).toBe(true);
    expect(error(ToolStateArgs.safeParse(['old', 'new', { objects: [{ op: 'section', id: 'a:1', rev: 2, section: SECTION }], last: true }]))).toMatch(/^args\[2\]\.objects\[0\]/);
    expect(error(ToolStateArgs.safeParse(['old', 'new', { objects: [] }]))).toMatch(/^args\[2\]\.last: /);
  });

  it('carries an editor selection by stable ids, or null', () => {
    for (const selection of [
      null,
      { kind: 'node', modelId: 'm1', nodeId: 'n5' },
      { kind: 'node', modelId: 'm1', nodeId: null },
      { kind: 'object', uuid: 'light-1' },
      { kind: 'instances', groupId: 'g', ids: [0, 4, 9], count: 3 },
    ]) {
      expect(SelectionArgs.safeParse(['me', selection]).success, JSON.stringify(selection)).toBe(true);
    }
    expect(error(SelectionArgs.safeParse(['me', { kind: 'instances', groupId: 'g', ids: [], count: 0 }]))).toMatch(/^args\[1\]\.ids: /);
    expect(error(SelectionArgs.safeParse(['me', { kind: 'instances', groupId: 'g', ids: Array.from({ length: MAX_SHARED_SELECTION_IDS + 1 }, (_, i) => i), count: 300 }]))).toMatch(/^args\[1\]\.ids: /);
    expect(error(SelectionArgs.safeParse(['me', { kind: 'node', modelId: '', nodeId: 'x' }]))).toMatch(/^args\[1\]\.modelId: /);
    expect(error(SelectionArgs.safeParse(['me', { kind: 'material', id: 'x' }]))).toMatch(/^args\[1\]\.kind: /);
    expect(error(SelectionArgs.safeParse(['me']))).toMatch(/^args/);
  });
});
