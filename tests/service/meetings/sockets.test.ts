import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import type { Connection } from '../../../src/server/meetings/rooms.ts';
import { reasonText, RefusalLog, release, seconds, SocketCorks } from '../../../src/server/meetings/sockets.ts';

describe('close texts', () => {
  it('a reason is cut to the 123 bytes a close frame holds, never inside a character', () => {
    expect(reasonText('short')).toBe('short');
    const exact = 'x'.repeat(123);
    expect(reasonText(exact)).toBe(exact);
    expect(reasonText('x'.repeat(124))).toBe(`${'x'.repeat(120)}...`);
    // 'é' is two bytes: byte 120 falls inside the 60th, which is dropped whole.
    const cut = reasonText(`${'x'.repeat(119)}é${'y'.repeat(10)}`);
    expect(cut).toBe(`${'x'.repeat(119)}...`);
    expect(Buffer.byteLength(reasonText('é'.repeat(100)))).toBeLessThanOrEqual(123);
  });

  it('seconds: whole seconds from one second, milliseconds under it', () => {
    expect(seconds(5000)).toBe('5 s');
    expect(seconds(1499)).toBe('1 s');
    expect(seconds(300)).toBe('300 ms');
  });
});

describe('per-key counts', () => {
  it('release counts one down and forgets the key at zero', () => {
    const counts = new Map([['a', 2]]);
    release(counts, 'a');
    expect(counts.get('a')).toBe(1);
    release(counts, 'a');
    expect(counts.has('a')).toBe(false);
    release(counts, 'never');
    expect(counts.size).toBe(0);
  });
});

describe('refusals in the log', () => {
  it('logs the first refusal of a key, then once a minute with how many it left out', () => {
    const log = new RefusalLog();
    expect(log.due('address 1', 0)).toBe('');
    expect(log.due('address 1', 1000)).toBeNull();
    expect(log.due('address 1', 59_999)).toBeNull();
    // Another key has a minute of its own.
    expect(log.due('person p', 2000)).toBe('');
    expect(log.due('address 1', 60_000)).toBe(' (and 2 more since the last such line)');
    expect(log.due('address 1', 120_000)).toBe('');
  });
});

/** A connection whose ws holds a fake TCP socket that counts corks. */
function connection(socket: { destroyed: boolean } | null) {
  const calls = { cork: 0, uncork: 0 };
  const tcp = socket && { ...socket, cork: () => void calls.cork++, uncork: () => void calls.uncork++ };
  const conn = { ws: { _socket: tcp } as unknown as WebSocket } as Connection;
  return { conn, calls };
}

describe('corked writes', () => {
  it("corks a connection's socket once per turn and uncorks it when the turn ends", async () => {
    const corks = new SocketCorks();
    const a = connection({ destroyed: false });
    const b = connection({ destroyed: false });
    corks.cork(a.conn);
    corks.cork(a.conn);
    corks.cork(b.conn);
    expect(a.calls).toEqual({ cork: 1, uncork: 0 });
    expect(a.conn.corked).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(a.calls).toEqual({ cork: 1, uncork: 1 });
    expect(b.calls).toEqual({ cork: 1, uncork: 1 });
    expect(a.conn.corked).toBe(false);
    // The next turn corks again.
    corks.cork(a.conn);
    expect(a.calls.cork).toBe(2);
  });

  it('leaves a socket it cannot reach or that is destroyed alone', () => {
    const corks = new SocketCorks();
    const gone = connection({ destroyed: true });
    const none = connection(null);
    corks.cork(gone.conn);
    corks.cork(none.conn);
    expect(gone.calls.cork).toBe(0);
    expect(gone.conn.corked).toBeUndefined();
    expect(none.conn.corked).toBeUndefined();
  });
});
