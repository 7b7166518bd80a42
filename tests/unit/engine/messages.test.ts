import { describe, expect, it, vi } from 'vitest';
import { drainMessages, enqueueMessage, MAX_QUEUED_MESSAGES, onMessage } from '../../../src/engine/messages';
import { createViewerWorld } from '../../../src/engine/world';

describe('scene messages', () => {
  it('queues messages and applies them in arrival order when drained, with replies', () => {
    const world = createViewerWorld();
    const applied: unknown[] = [];
    onMessage(world, 'move', (_w, payload) => {
      applied.push(payload);
      return `moved ${String(payload)}`;
    });
    const reply = vi.fn();
    enqueueMessage(world, { source: 'host', type: 'move', payload: 1, reply });
    enqueueMessage(world, { source: 'meeting', type: 'move', payload: 2, reply });
    expect(applied).toEqual([]);
    expect(drainMessages(world)).toBe(2);
    expect(applied).toEqual([1, 2]);
    expect(reply).toHaveBeenNthCalledWith(1, 'moved 1', null);
    expect(reply).toHaveBeenNthCalledWith(2, 'moved 2', null);
    expect(drainMessages(world)).toBe(0);
  });

  it('answers a failing handler and an unknown type with an Error, and goes on', () => {
    const world = createViewerWorld();
    onMessage(world, 'bad', () => {
      throw new Error('no such node');
    });
    const ok = vi.fn();
    onMessage(world, 'ok', ok);
    const reply = vi.fn();
    enqueueMessage(world, { source: 'host', type: 'bad', payload: null, reply });
    enqueueMessage(world, { source: 'host', type: 'nope', payload: null, reply });
    enqueueMessage(world, { source: 'host', type: 'ok', payload: null });
    drainMessages(world);
    expect(reply.mock.calls[0][1]).toEqual(new Error('no such node'));
    expect(reply.mock.calls[1][1]?.message).toBe("No handler for 'nope' messages from host.");
    expect(ok).toHaveBeenCalledTimes(1);
  });

  it('leaves messages queued by a handler for the next frame', () => {
    const world = createViewerWorld();
    const seen: number[] = [];
    onMessage(world, 'echo', (w, payload) => {
      seen.push(payload as number);
      if ((payload as number) < 3) enqueueMessage(w, { source: 'test', type: 'echo', payload: (payload as number) + 1 });
    });
    enqueueMessage(world, { source: 'test', type: 'echo', payload: 1 });
    drainMessages(world);
    expect(seen).toEqual([1]);
    drainMessages(world);
    expect(seen).toEqual([1, 2]);
  });

  it('refuses a second handler for a type and bounds the queue', () => {
    const world = createViewerWorld();
    onMessage(world, 'a', () => undefined);
    expect(() => onMessage(world, 'a', () => undefined)).toThrow("A handler for 'a' messages is already registered.");
    const reply = vi.fn();
    enqueueMessage(world, { source: 'flood', type: 'a', payload: 0, reply });
    for (let i = 1; i <= MAX_QUEUED_MESSAGES; i++) enqueueMessage(world, { source: 'flood', type: 'a', payload: i });
    expect(world.messages.queue.length).toBe(MAX_QUEUED_MESSAGES);
    expect(reply.mock.calls[0][1]?.message).toMatch(/dropped/);
  });
});
