import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MeetingConnection, reconnectDelay, type SocketLike } from '../../../src/meeting/connection';
import { MEETING_CLOSE, MEETING_SIGN_IN_UNCHECKED, MEETING_TOO_MANY_RETRY_MS, tooManyMeetingSockets } from '../../../src/protocol/meeting';

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

  // Issue 33, item 7: the server's "try again" and the auth timeout are retried with backoff, each
  // attempt signing in at once on open with a fresh token; 4029 (item 8) waits its retry time.
  describe('sign-in retries (issue 33)', () => {
    let tokens: number;
    let details: { status: string; reason?: string; retryInMs?: number }[];
    let c: MeetingConnection;
    beforeEach(() => {
      tokens = 0;
      details = [];
      c = new MeetingConnection({
        url: 'ws://x/meetings/s',
        token: async () => `tok${++tokens}`,
        onMessage: () => undefined,
        onStatus: (status, d) => details.push({ status, reason: d.reason, retryInMs: d.retryInMs }),
        createSocket: () => {
          const s = new FakeSocket();
          sockets.push(s);
          return s;
        },
        random: () => 0.5,
      });
    });
    afterEach(() => c.stop());

    it('has the token before the socket exists, and sends AUTH_REQUEST in the open event itself', async () => {
      let give: (token: string) => void = () => undefined;
      const slow = new MeetingConnection({
        url: 'ws://x',
        token: () => new Promise<string>((resolve) => (give = resolve)),
        onMessage: () => undefined,
        createSocket: () => {
          const s = new FakeSocket();
          sockets.push(s);
          return s;
        },
      });
      slow.start();
      await vi.advanceTimersByTimeAsync(10_000);
      // A slow token (a host page's generator, a page busy loading) keeps the socket unopened: the
      // server's AUTH_REQUEST timeout cannot start before the client has what it must send.
      expect(sockets).toHaveLength(0);
      give('late-token');
      await vi.advanceTimersByTimeAsync(0);
      expect(sockets).toHaveLength(1);
      sockets[0].open();
      // Synchronously in the open event: nothing awaited between the open and the send.
      expect(sockets[0].sent).toEqual([{ type: 'AUTH_REQUEST', token: 'late-token' }]);
      slow.stop();
    });

    it("reconnects with backoff after the server's try-again close (1001) and the auth timeout (4001)", async () => {
      c.start();
      await vi.advanceTimersByTimeAsync(0);
      sockets[0].open();
      expect(sockets[0].sent).toEqual([{ type: 'AUTH_REQUEST', token: 'tok1' }]);
      // The server could not check the sign-in: try again, 2.5 s later.
      sockets[0].drop(MEETING_CLOSE.GOING_AWAY, MEETING_SIGN_IN_UNCHECKED);
      expect(c.status).toBe('reconnecting');
      expect(details.at(-1)).toEqual({ status: 'reconnecting', reason: MEETING_SIGN_IN_UNCHECKED, retryInMs: 2500 });
      await vi.advanceTimersByTimeAsync(2500);
      expect(sockets).toHaveLength(2);
      sockets[1].open();
      expect(sockets[1].sent).toEqual([{ type: 'AUTH_REQUEST', token: 'tok2' }]);
      // Cut for a late AUTH_REQUEST (a page too busy to answer the open): tried again, later.
      sockets[1].drop(MEETING_CLOSE.AUTH_TIMEOUT, 'No AUTH_REQUEST within 5 s');
      expect(details.at(-1)).toEqual({ status: 'reconnecting', reason: 'No AUTH_REQUEST within 5 s', retryInMs: 3750 });
      await vi.advanceTimersByTimeAsync(3749);
      expect(sockets).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1);
      expect(sockets).toHaveLength(3);
      sockets[2].open();
      sockets[2].drop(MEETING_CLOSE.GOING_AWAY, MEETING_SIGN_IN_UNCHECKED);
      expect(details.at(-1)?.retryInMs).toBe(7500);
      await vi.advanceTimersByTimeAsync(7500);
      sockets[3].open();
      expect(sockets[3].sent).toEqual([{ type: 'AUTH_REQUEST', token: 'tok4' }]);
      // Signed in at last: connected, and the next failure starts from 2.5 s again.
      sockets[3].receive({ type: 'AUTH_RESPONSE', client: CLIENT });
      expect(c.connected).toBe(true);
      sockets[3].drop(MEETING_CLOSE.GOING_AWAY, 'The server is shutting down');
      expect(details.at(-1)?.retryInMs).toBe(2500);
    });

    it('after 4029 (too many connections of this person) waits the retry time, then tries again', async () => {
      c.start();
      await vi.advanceTimersByTimeAsync(0);
      sockets[0].open();
      const reason = tooManyMeetingSockets(16);
      sockets[0].drop(MEETING_CLOSE.TOO_MANY, reason);
      // Not final (another tab may close), but not at the quick 2.5 s either: 30 s plus jitter.
      expect(c.status).toBe('reconnecting');
      const wait = MEETING_TOO_MANY_RETRY_MS + MEETING_TOO_MANY_RETRY_MS / 8; // random 0.5 of a quarter
      expect(details.at(-1)).toEqual({ status: 'reconnecting', reason, retryInMs: wait });
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(sockets).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(sockets).toHaveLength(2);
      sockets[1].open();
      expect(sockets[1].sent).toEqual([{ type: 'AUTH_REQUEST', token: 'tok2' }]);
    });
  });
});
