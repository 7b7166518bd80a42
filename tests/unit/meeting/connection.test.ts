import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MeetingConnection, reconnectDelay, type SocketLike } from '../../../src/meeting/connection';
import { MEETING_CLOSE } from '../../../src/protocol/meeting';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: unknown[] = [];
  closedWith: [number?, string?] | null = null;
  onopen: ((event: unknown) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code?: number, reason?: string) {
    this.closedWith = [code, reason];
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

const CLIENT = { _id: 'me', profile: { firstName: 'Ada', lastName: 'Lovelace' } };

describe('meeting connection (viewer specification section 4)', () => {
  let sockets: FakeSocket[];
  let statuses: string[];
  let messages: unknown[];
  let connection: MeetingConnection;

  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
    statuses = [];
    messages = [];
    connection = new MeetingConnection({
      url: 'ws://x/meetings/s',
      token: async () => 'tok',
      onMessage: (m) => messages.push(m),
      onStatus: (s) => statuses.push(s),
      createSocket: () => {
        const s = new FakeSocket();
        sockets.push(s);
        return s;
      },
      random: () => 0.5,
    });
  });
  afterEach(() => {
    connection.stop();
    vi.useRealTimers();
  });

  const connect = async () => {
    connection.start();
    await vi.advanceTimersByTimeAsync(0);
    const socket = sockets.at(-1)!;
    socket.open();
    socket.receive({ type: 'AUTH_RESPONSE', client: CLIENT });
    return socket;
  };

  it('sends AUTH_REQUEST on open and is connected after AUTH_RESPONSE', async () => {
    connection.start();
    await vi.advanceTimersByTimeAsync(0);
    const socket = sockets[0];
    expect(connection.connected).toBe(false);
    socket.open();
    expect(socket.sent).toEqual([{ type: 'AUTH_REQUEST', token: 'tok' }]);
    expect(connection.send({ type: 'PING' })).toBe(false);
    socket.receive({ type: 'AUTH_RESPONSE', client: CLIENT });
    expect(connection.connected).toBe(true);
    expect(connection.self).toEqual(CLIENT);
    expect(statuses).toEqual(['connecting', 'connected']);
  });

  it('sends STATE_REQUEST and PING every 5 s after authentication', async () => {
    const socket = await connect();
    socket.sent = [];
    await vi.advanceTimersByTimeAsync(4999);
    expect(socket.sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(socket.sent).toEqual([{ type: 'STATE_REQUEST' }, { type: 'PING' }]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(socket.sent).toHaveLength(4);
  });

  it('on close marks itself not connected and reconnects after 2.5 s', async () => {
    const socket = await connect();
    socket.drop(1006);
    expect(connection.connected).toBe(false);
    expect(connection.status).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(2499);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets).toHaveLength(2);
    // No heartbeat from the dead socket.
    socket.sent = [];
    await vi.advanceTimersByTimeAsync(10_000);
    expect(socket.sent).toEqual([]);
  });

  it('backs off with jitter after repeated failures, and starts over once connected', () => {
    expect(reconnectDelay(1, () => 0)).toBe(2500);
    expect(reconnectDelay(1, () => 1)).toBe(2500);
    expect(reconnectDelay(2, () => 0)).toBe(2500);
    expect(reconnectDelay(2, () => 1)).toBe(5000);
    expect(reconnectDelay(3, () => 0.5)).toBe(7500);
    expect(reconnectDelay(20, () => 1)).toBe(30_000);
  });

  it('a failed attempt waits longer than the first retry', async () => {
    const socket = await connect();
    socket.drop();
    await vi.advanceTimersByTimeAsync(2500);
    sockets[1].drop(); // never opened
    await vi.advanceTimersByTimeAsync(2500);
    expect(sockets).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1250); // 3750 with random 0.5
    expect(sockets).toHaveLength(3);
  });

  it('stops with the reason on a final close (refused token)', async () => {
    connection.start();
    await vi.advanceTimersByTimeAsync(0);
    sockets[0].open();
    sockets[0].drop(MEETING_CLOSE.AUTH_FAILED, 'Invalid token: expired');
    expect(connection.status).toBe('stopped');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(1);
  });

  it('reports a malformed frame without passing it on', async () => {
    const errors: string[] = [];
    const c = new MeetingConnection({
      url: 'ws://x',
      token: async () => 't',
      onMessage: (m) => messages.push(m),
      onError: (e) => errors.push(e.message),
      createSocket: () => {
        const s = new FakeSocket();
        sockets.push(s);
        return s;
      },
    });
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    sockets.at(-1)!.onmessage?.({ data: '{"type":"STATE"}' });
    expect(messages).toEqual([]);
    expect(errors[0]).toMatch(/STATE.*invalid.*clients/);
    c.stop();
  });

  it('stops when no token can be had, saying why', async () => {
    const c = new MeetingConnection({ url: 'ws://x', token: async () => Promise.reject(new Error('Sign in required.')), onMessage: () => undefined, onStatus: (s, d) => statuses.push(`${s}:${d.reason ?? ''}`) });
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(statuses.at(-1)).toBe('stopped:Sign in required.');
  });
});
