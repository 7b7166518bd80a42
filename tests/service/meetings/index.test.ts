import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEETING_CLOSE } from '../../../src/protocol/meeting.ts';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { endpointPath, meetingRoom, originAllowed } from '../../../src/server/meetings/index.ts';
import { startServer, type TestServer } from '../helpers.ts';
import { TestClient } from './ws-client.ts';

/** The meeting server on real sockets (DESIGN.md 4.2), in one process with short intervals. */

const HEARTBEAT_MS = 200;
let server: TestServer;
let ws: string;
const tokens: Record<string, string> = {};
const open: TestClient[] = [];

function client(path = '/meetings/room1', headers: Record<string, string> = {}): TestClient {
  const c = new TestClient(`${ws}${path}`, headers);
  open.push(c);
  return c;
}

beforeAll(async () => {
  server = await startServer({ app: { meetings: { limits: { heartbeatMs: HEARTBEAT_MS, authTimeoutMs: 300, ratePerS: 20, rateBurst: 40 }, maxFrameBytes: 4096 } } });
  ws = server.url.replace('http', 'ws');
  await server.store.putScene({ _id: 'room1', name: 'Room', viewerConfig: {}, models: [] });
  await server.store.putScene({ _id: 'private1', name: 'Private', viewerConfig: {}, models: [], ownerId: 'someone-else', public: false });
  for (const [first, last] of [['Ada', 'Lovelace'], ['Alan', 'Turing'], ['Grace', 'Hopper']]) {
    tokens[first] = (await signTestToken(server.dataDir, { firstName: first, lastName: last })).token;
  }
});

afterAll(async () => {
  for (const c of open) c.ws.terminate();
  await server?.close();
});

describe('meeting server', () => {
  it('authenticates, answers AUTH_RESPONSE and STATE, announces joins and leaves', async () => {
    const a = client();
    const aId = await a.join(tokens.Ada);
    const auth = await a.next('AUTH_RESPONSE');
    expect(auth.client.profile).toEqual({ firstName: 'Ada', lastName: 'Lovelace' });
    const stateA = await a.next('STATE');
    expect(stateA.clients.map((c) => c._id)).toEqual([aId]);

    const b = client();
    const bId = await b.join(tokens.Alan);
    const joined = await a.next('USER_JOINED');
    expect(joined.client).toMatchObject({ _id: bId, profile: { firstName: 'Alan', lastName: 'Turing' } });
    const stateB = await b.next('STATE');
    expect(stateB.clients.map((c) => c._id).sort()).toEqual([aId, bId].sort());

    const from = a.received.length;
    b.send({ type: 'STATE_REQUEST' });
    const again = await b.next('STATE', () => true, 2000, b.received.length);
    expect(again.clients).toHaveLength(2);

    b.close();
    const left = await a.next('USER_LEFT', () => true, 2000, from);
    expect(left.client._id).toBe(bId);
    a.close();
  });

  it('relays RFC to the others with args[0] forced to the sender (no impersonation)', async () => {
    const a = client();
    const b = client();
    const c = client();
    const aId = await a.join(tokens.Ada);
    const bId = await b.join(tokens.Alan);
    await c.join(tokens.Grace);
    const from = a.received.length;
    b.send({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: [aId, [1, 2, 3], [0, 0, 0]] });
    const atA = await a.next('RFC', () => true, 2000, from);
    const atC = await c.next('RFC');
    expect(atA).toEqual({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: [bId, [1, 2, 3], [0, 0, 0]] });
    expect(atC.args[0]).toBe(bId);
    // The sender does not get its own call back.
    await new Promise((r) => setTimeout(r, 100));
    expect(b.received.some((m) => m.type === 'RFC')).toBe(false);
    // No arguments: the sender's id is the only one.
    b.send({ type: 'RFC', object: 'follow', function: 'handleStopFollowRfc', args: [] });
    const stop = await a.next('RFC', (m) => m.function === 'handleStopFollowRfc');
    expect(stop.args).toEqual([bId]);
    for (const x of [a, b, c]) x.close();
  });

  it('relays RTC signals to the addressed client only, and USER_JOINED_RTC to all', async () => {
    const a = client();
    const b = client();
    const c = client();
    const aId = await a.join(tokens.Ada);
    const bId = await b.join(tokens.Alan);
    await c.join(tokens.Grace);
    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
    // The joiner is told the call's mode (no call server configured: a mesh); the others, the join.
    const mode = await a.next('RTC_RESPONSE');
    expect(mode.content).toEqual({ from: '@server', signal: { kind: 'mode', mode: 'mesh' } });
    const joinedB = await b.next('USER_JOINED_RTC');
    expect(joinedB.content).toEqual({ from: aId, signal: { kind: 'join', mode: 'mesh' } });
    await c.next('USER_JOINED_RTC');
    b.send({ type: 'RTC_REQUEST', content: { to: aId, signal: { kind: 'offer', sdp: 'v=0 offer' } } });
    const offer = await a.next('RTC_RESPONSE', (m) => m.content.from === bId);
    expect(offer.content).toEqual({ from: bId, signal: { kind: 'offer', sdp: 'v=0 offer' } });
    await new Promise((r) => setTimeout(r, 100));
    expect(c.received.some((m) => m.type === 'RTC_RESPONSE')).toBe(false);
    // An unknown addressee and a signal without one get an ERROR; the socket stays open.
    b.send({ type: 'RTC_REQUEST', content: { to: 'nobody', signal: { kind: 'answer', sdp: 'x' } } });
    expect((await b.next('ERROR')).error).toMatch(/no client 'nobody'/);
    b.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'offer', sdp: 'x' } } });
    expect((await b.next('ERROR', (m) => /needs content.to/.test(m.error))).error).toMatch(/'offer' signal needs content.to/);
    // The server's own signals cannot be sent to a client (no forged 'mode' or 'sfu-error')...
    b.send({ type: 'RTC_REQUEST', content: { to: aId, signal: { kind: 'sfu-error', message: 'forged' } } });
    expect((await b.next('ERROR', (m) => /goes to the server/.test(m.error))).error).toMatch(/'sfu-error' signal goes to the server/);
    // ...and call-server signals need a call through the call server.
    b.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'sfu-publish', sdp: 'v=0' } } });
    expect((await b.next('ERROR', (m) => /call server/.test(m.error))).error).toMatch(/'sfu-publish' is for a call through the call server/);
    // Leaving the call is announced to the others.
    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'leave' } } });
    expect((await c.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'leave')).content.from).toBe(aId);
    expect(b.closed).toBeNull();
    for (const x of [a, b, c]) x.close();
  });

  it('answers a malformed message after authentication with ERROR and keeps the socket', async () => {
    const a = client();
    await a.join(tokens.Ada);
    a.send('not json');
    expect((await a.next('ERROR')).error).toMatch(/not JSON/);
    a.send({ type: 'RFC', object: 'avatars', function: 'x', args: 'no' });
    expect((await a.next('ERROR', (m) => /args/.test(m.error))).error).toMatch(/RFC.*args/);
    expect(a.closed).toBeNull();
    a.close();
  });

  it('refuses a bad token with 4003 and a reason', async () => {
    const a = client();
    await a.opened;
    a.send({ type: 'AUTH_REQUEST', token: 'not-a-jwt' });
    const closed = await a.waitClosed();
    expect(closed.code).toBe(MEETING_CLOSE.AUTH_FAILED);
    expect(closed.reason).toMatch(/Invalid token/);
  });

  it('refuses a private scene (4004) and an unknown scene (4004)', async () => {
    const a = client('/meetings/private1');
    await a.opened;
    a.send({ type: 'AUTH_REQUEST', token: tokens.Ada });
    expect(await a.waitClosed()).toMatchObject({ code: MEETING_CLOSE.FORBIDDEN, reason: expect.stringMatching(/private/) });
    const b = client('/meetings/nosuchscene');
    await b.opened;
    b.send({ type: 'AUTH_REQUEST', token: tokens.Ada });
    expect(await b.waitClosed()).toMatchObject({ code: MEETING_CLOSE.FORBIDDEN, reason: expect.stringMatching(/no scene 'nosuchscene'/) });
  });

  it('closes a socket that does not authenticate in time (4001), or sends something else first (1002)', async () => {
    const a = client();
    await a.opened;
    const started = Date.now();
    expect((await a.waitClosed()).code).toBe(MEETING_CLOSE.AUTH_TIMEOUT);
    expect(Date.now() - started).toBeLessThan(2000);
    const b = client();
    await b.opened;
    b.send({ type: 'PING' });
    expect(await b.waitClosed()).toMatchObject({ code: MEETING_CLOSE.PROTOCOL, reason: 'Send AUTH_REQUEST first (got PING)' });
  });

  it('drops a client silent for 3 ping intervals and announces USER_LEFT; pings keep one in', async () => {
    const a = client();
    const b = client();
    await a.join(tokens.Ada);
    const bId = await b.join(tokens.Alan);
    // a pings; b stays silent.
    const ping = setInterval(() => a.send({ type: 'PING' }), HEARTBEAT_MS);
    try {
      const left = await a.next('USER_LEFT', (m) => m.client._id === bId, 3000);
      expect(left.client._id).toBe(bId);
      expect((await b.waitClosed()).code).toBe(MEETING_CLOSE.SILENT);
      expect(a.closed).toBeNull();
    } finally {
      clearInterval(ping);
      a.close();
    }
  });

  it('closes a frame over the size limit with 1009', async () => {
    const a = client();
    await a.join(tokens.Ada);
    a.send({ type: 'RFC', object: 'avatars', function: 'x', args: ['', 'y'.repeat(5000)] });
    expect((await a.waitClosed()).code).toBe(MEETING_CLOSE.TOO_BIG);
  });

  it('closes a socket over the message rate with 1008', async () => {
    const a = client();
    await a.join(tokens.Ada);
    for (let i = 0; i < 60; i++) a.send({ type: 'PING' });
    expect(await a.waitClosed()).toMatchObject({ code: MEETING_CLOSE.RATE_LIMIT, reason: expect.stringMatching(/Too many messages/) });
  });

  it('checks the Origin at the upgrade and answers unknown paths with 404', async () => {
    const bad = client('/meetings/room1', { origin: 'https://evil.example.com' });
    await expect(bad.opened).rejects.toThrow(/403/);
    const same = client('/meetings/room1', { origin: server.url });
    await same.opened;
    same.close();
    const nowhere = client('/elsewhere/room1');
    await expect(nowhere.opened).rejects.toThrow(/404/);
  });

  it('lets guests with a guest token into a public scene on the public-meetings endpoint only', async () => {
    const answer = await fetch(`${server.url}/v1/meetings/room1/guests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ firstName: 'Guest', lastName: 'One' }) });
    expect(answer.status).toBe(200);
    const { token } = (await answer.json()) as { token: string };
    const g = client('/public-meetings/room1');
    await g.opened;
    g.send({ type: 'AUTH_REQUEST', token });
    const auth = await g.next('AUTH_RESPONSE');
    expect(auth.client.profile).toEqual({ firstName: 'Guest', lastName: 'One' });
    expect(auth.client.userId).toMatch(/^guest-/);
    g.close();
    // Not on the signed-in endpoint.
    const h = client('/meetings/room1');
    await h.opened;
    h.send({ type: 'AUTH_REQUEST', token });
    expect((await h.waitClosed()).code).toBe(MEETING_CLOSE.AUTH_FAILED);
    // Not for a private scene.
    const refused = await fetch(`${server.url}/v1/meetings/private1/guests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ firstName: 'G' }) });
    expect(refused.status).toBe(403);
  });
});

describe('meeting paths and origins', () => {
  it('reads endpoints and rooms', () => {
    expect(endpointPath('/meetings/')).toBe('/meetings');
    expect(endpointPath('wss://meet.example.com/ws')).toBe('/ws');
    expect(meetingRoom('/meetings/abc-1', '/meetings')).toBe('abc-1');
    expect(meetingRoom('/meetings/a/b', '/meetings')).toBeUndefined();
    expect(meetingRoom('/meetings/', '/meetings')).toBeUndefined();
    expect(meetingRoom('/meetingsx/a', '/meetings')).toBeUndefined();
    expect(meetingRoom('/meetings/%2e%2e', '/meetings')).toBeUndefined();
  });

  it('allows no Origin, the own origin, the configured list', () => {
    expect(originAllowed(undefined, 'h:1', {})).toBe(true);
    expect(originAllowed('http://h:1', 'h:1', {})).toBe(true);
    expect(originAllowed('http://other:1', 'h:1', {})).toBe(false);
    expect(originAllowed('https://a.example', 'h:1', { meetingOrigins: ['https://a.example'] })).toBe(true);
    expect(originAllowed('https://b.example', 'h:1', { meetingOrigins: ['https://a.example'] })).toBe(false);
    expect(originAllowed('https://b.example', 'h:1', { meetingOrigins: ['*'] })).toBe(true);
    expect(originAllowed('https://v.example', 'internal:8080', { publicUrl: 'https://v.example' })).toBe(true);
  });
});
