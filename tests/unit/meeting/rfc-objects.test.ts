import { describe, expect, it } from 'vitest';
import { createRfcObjects } from '../../../src/meeting/rfc-objects';
import type { Rfc } from '../../../src/protocol/meeting';

/** The meeting's objects and the calls on them (src/meeting/rfc-objects.ts): applied, or reported, never thrown. */

const rfc = (object: string, fn: string, args: unknown[]): Rfc => ({ type: 'RFC', object, function: fn, args });

describe('rfc objects (src/meeting/rfc-objects.ts)', () => {
  it("applies a call to its object's handler with the sender's id and the arguments", () => {
    const objects = createRfcObjects((message) => expect.fail(message));
    const calls: unknown[][] = [];
    objects.register('tools', { handleIt: (sender, args) => void calls.push([sender, args]) });
    objects.dispatch(rfc('tools', 'handleIt', ['bob', 1, 'two']));
    expect(calls).toEqual([['bob', ['bob', 1, 'two']]]);
  });

  it('reports an unknown object or function (own functions only), a call with no sender, and a handler that throws', () => {
    const reports: string[] = [];
    const objects = createRfcObjects((message) => reports.push(message));
    objects.register('tools', {
      fails() {
        throw new Error('bad arguments');
      },
      failsOddly() {
        throw 'not an error';
      },
    });
    expect(() => {
      objects.dispatch(rfc('nothing', 'handleIt', ['bob']));
      objects.dispatch(rfc('tools', 'toString', ['bob']));
      objects.dispatch(rfc('tools', 'fails', [42]));
      objects.dispatch(rfc('tools', 'fails', ['bob']));
      objects.dispatch(rfc('tools', 'failsOddly', ['bob']));
    }).not.toThrow();
    expect(reports).toEqual([
      "Another participant called 'handleIt' on the meeting's object 'nothing', which this viewer does not have.",
      "Another participant called 'toString' on the meeting's object 'tools', which this viewer does not have.",
      'The call tools.fails has no sender id.',
      'bad arguments',
      'not an error',
    ]);
  });

  it('registers an object once; unregistering frees the name and its calls are unknown again', () => {
    const reports: string[] = [];
    const objects = createRfcObjects((message) => reports.push(message));
    const calls: string[] = [];
    const off = objects.register('view', { handleViewState: (sender) => void calls.push(sender) });
    expect(() => objects.register('view', {})).toThrow("The meeting object 'view' is already registered.");
    off();
    objects.dispatch(rfc('view', 'handleViewState', ['bob']));
    expect(calls).toEqual([]);
    expect(reports).toHaveLength(1);
    objects.register('view', { handleViewState: (sender) => void calls.push(sender) });
    objects.dispatch(rfc('view', 'handleViewState', ['cy']));
    expect(calls).toEqual(['cy']);
  });
});
