import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEETING_CLOSE, tooManyMeetingSockets, tooManyPendingMeetingSockets } from '../../../src/protocol/meeting.ts';
import { TokenError, type AuthUser } from '../../../src/server/auth/tokens.ts';
import { startServer, type TestServer } from '../helpers.ts';
import { TestClient } from './ws-client.ts';

/**
 * Issue 33, item 8 (meetings): one person holds at most MEETING_SOCKETS_PER_USER signed-in meeting
 * sockets (per server process); one more is closed 4029 with a reason that says the limit and when
 * to try again. One address holds at most as many sockets that have not signed in yet. Both counts
 * drop as sockets close.
 */

const LIMIT = 3;
let server: TestServer;
let ws: string;
const open: TestClient[] = [];

function client(path = '/meetings/room1'): TestClient {
  const c = new TestClient(`${ws}${path}`);
  open.push(c);
  return c;
}

/** The token is the person's id. */
async function verifyToken(token: string): Promise<AuthUser> {
  if (!/^[a-z]+$/.test(token)) throw new TokenError('Invalid token');
  return { id: token, firstName: token, lastName: 'Tester' };
}

/** Signs in as `token`: the client id, or the close that refused it. */
async function signIn(token: string, path?: string): Promise<{ id: string } | { closed: { code: number; reason: string } }> {
  const c = client(path);
  await c.opened;
  c.send({ type: 'AUTH_REQUEST', token });
  const outcome = await Promise.race([c.next('AUTH_RESPONSE').then((m) => ({ id: m.client._id })), c.waitClosed().then((closed) => ({ closed }))]);
  return outcome;
}

/** Tries until `attempt` succeeds: the server hears a close a moment after the client sees it. */
async function eventually<T>(attempt: () => Promise<T | undefined>, tries = 40): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await attempt();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('did not happen');
}

beforeAll(async () => {
  // The limit comes from the configuration (MEETING_SOCKETS_PER_USER) through attachMeetings.
  server = await startServer({ env: { MEETING_SOCKETS_PER_USER: String(LIMIT) }, app: { verifyToken, meetings: { limits: { authTimeoutMs: 4000 } } } });
  ws = server.url.replace('http', 'ws');
  await server.store.putScene({ _id: 'room1', name: 'Room', viewerConfig: {}, models: [] });
  await server.store.putScene({ _id: 'room2', name: 'Room 2', viewerConfig: {}, models: [] });
});

afterAll(async () => {
  for (const c of open) c.ws.terminate();
  await server?.close();
});

describe('meeting sockets per person', () => {
  it(`refuses a person's socket past ${LIMIT} with 4029, not another person's; a closed one frees a place`, async () => {
    expect(server.config.limits.meetingSocketsPerUser).toBe(LIMIT);
    const ada: TestClient[] = [];
    for (let i = 0; i < LIMIT; i++) {
      // In any of the scenes' meetings: the limit is the person's, not the meeting's.
      const outcome = await signIn('ada', i === 0 ? '/meetings/room2' : '/meetings/room1');
      expect(outcome).toHaveProperty('id');
      ada.push(open.at(-1)!);
    }
    const refused = await signIn('ada');
    expect(refused).toEqual({ closed: { code: MEETING_CLOSE.TOO_MANY, reason: tooManyMeetingSockets(LIMIT) } });
    expect(tooManyMeetingSockets(LIMIT)).toMatch(/at most 3 per person; close another tab or try again in 30 s/);
    // The others in the meeting never heard of the refused socket.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ada[1].received.filter((m) => m.type === 'USER_JOINED')).toHaveLength(1); // only ada[2]

    // Another person is not affected: all of their own sockets get in.
    for (let i = 0; i < LIMIT; i++) expect(await signIn('alan')).toHaveProperty('id');
    expect(ada.every((c) => c.closed === null)).toBe(true);

    // One of ada's closes: she may open one again (and then no more).
    ada[0].close();
    await ada[0].waitClosed();
    const again = await eventually(async () => {
      const outcome = await signIn('ada');
      return 'id' in outcome ? outcome : undefined;
    });
    expect(again).toHaveProperty('id');
    expect(await signIn('ada')).toEqual({ closed: { code: MEETING_CLOSE.TOO_MANY, reason: tooManyMeetingSockets(LIMIT) } });
    for (const c of open) c.close();
  });

  it(`bounds the sockets of one address that have not signed in to ${LIMIT}, and counts signed-in ones apart`, async () => {
    for (const c of open) c.close();
    await Promise.all(open.map((c) => c.waitClosed().catch(() => undefined)));
    // Signed-in sockets of this address are not counted as waiting.
    for (let i = 0; i < LIMIT; i++) expect(await signIn('grace')).toHaveProperty('id');
    const waiting = await eventually(async () => {
      const batch: TestClient[] = [];
      for (let i = 0; i < LIMIT; i++) batch.push(client());
      await Promise.all(batch.map((c) => c.opened));
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (batch.every((c) => c.closed === null)) return batch;
      for (const c of batch) c.close();
      return undefined;
    });
    const flood = client();
    await flood.opened;
    expect(await flood.waitClosed()).toEqual({ code: MEETING_CLOSE.TOO_MANY, reason: tooManyPendingMeetingSockets(LIMIT) });
    // One that signs in leaves the waiting; its place is free again.
    waiting[0].send({ type: 'AUTH_REQUEST', token: 'hedy' });
    await waiting[0].next('AUTH_RESPONSE');
    const next = await eventually(async () => {
      const c = client();
      await c.opened;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return c.closed === null ? c : undefined;
    });
    // And it, too, may sign in.
    next.send({ type: 'AUTH_REQUEST', token: 'hedy' });
    await next.next('AUTH_RESPONSE');
    for (const c of open) c.close();
  });
});
