import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Janode from 'janode';
import VideoRoomPlugin from 'janode/plugins/videoroom';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { janusRoomId } from '../../../src/server/meetings/sfu.ts';
import { createRedisBus, redactUrl } from '../../../src/server/meetings/bus.ts';
import { tempDir } from '../helpers.ts';
import { janusSkipReason, startJanus, type TestJanus } from '../janus.ts';
import { redisSkipReason, startRedis, type TestRedis } from '../redis.ts';
import { startServerProcess, type ServerProcess } from './processes.ts';
import { TestClient } from './ws-client.ts';

/**
 * One meeting across two server processes linked by a real redis-server (DESIGN.md section 5):
 * presence, relay, RTC addressing, and a process that dies takes its clients out.
 */

const skip = redisSkipReason();
if (skip) console.warn(`skipping the Redis meeting tests: ${skip}`);

describe.skipIf(skip !== undefined)('meetings across processes (Redis)', () => {
  let redis: TestRedis;
  let root: string;
  let one: ServerProcess;
  let two: ServerProcess;
  const tokens: string[] = [];
  const clients: TestClient[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    root = await tempDir('meet-redis-');
    const dataDir = join(root, 'data');
    await mkdir(join(root, 'dist'), { recursive: true });
    const env = { DATA_DIR: dataDir, DIST_DIR: join(root, 'dist'), REDIS_URL: redis.url };
    // One after the other: the first creates the demo scenes in the shared DATA_DIR.
    one = await startServerProcess(env);
    two = await startServerProcess(env);
    for (const [first, last] of [['Ada', 'Lovelace'], ['Alan', 'Turing'], ['Grace', 'Hopper']]) tokens.push((await signTestToken(dataDir, { firstName: first, lastName: last })).token);
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) c.ws.terminate();
    await one?.stop();
    await two?.stop();
    await redis?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const connect = (server: ServerProcess) => {
    const c = new TestClient(`${server.url.replace('http', 'ws')}/meetings/demo`);
    clients.push(c);
    return c;
  };

  it('prints that meetings go through Redis', () => {
    expect(one.output().stdout).toMatch(/Meetings: \/meetings\/\{sceneId\} \(shared with other processes through Redis redis:\/\/127\.0\.0\.1/);
  });

  it('shares presence, RFC and RTC signals between clients of two processes', async () => {
    const a = connect(one);
    const aId = await a.join(tokens[0]);
    const b = connect(two);
    const bId = await b.join(tokens[1]);
    // a (process one) hears b (process two) join; b's STATE lists a once the processes spoke.
    await a.next('USER_JOINED', (m) => m.client._id === bId);
    const bKnowsA = await Promise.race([b.next('USER_JOINED', (m) => m.client._id === aId), b.next('STATE', (m) => m.clients.some((c) => c._id === aId))]);
    expect(bKnowsA).toBeTruthy();
    b.send({ type: 'STATE_REQUEST' });
    const state = await b.next('STATE', (m) => m.clients.length === 2, 3000);
    expect(state.clients.map((c) => c.profile.firstName).sort()).toEqual(['Ada', 'Alan']);

    // RFC across processes, args[0] forced to the sender.
    b.send({ type: 'RFC', object: 'avatars', function: 'handleTransformUpdate', args: ['forged', [1, 2, 3], [4, 5, 6]] });
    const rfc = await a.next('RFC');
    expect(rfc.args).toEqual([bId, [1, 2, 3], [4, 5, 6]]);

    // RTC addressed across processes.
    a.send({ type: 'RTC_REQUEST', content: { to: bId, signal: { kind: 'offer', sdp: 'v=0' } } });
    const offer = await b.next('RTC_RESPONSE');
    expect(offer.content).toEqual({ from: aId, signal: { kind: 'offer', sdp: 'v=0' } });

    // Leaving on process two is announced on process one.
    b.close();
    await a.next('USER_LEFT', (m) => m.client._id === bId);
    a.close();
  });

  it('announces USER_LEFT for the clients of a process that died', async () => {
    const a = connect(one);
    await a.join(tokens[0]);
    const c = connect(two);
    const cId = await c.join(tokens[2]);
    await a.next('USER_JOINED', (m) => m.client._id === cId);
    two.child.kill('SIGKILL');
    // a keeps pinging as the client does; process two's clients go silent with it.
    const ping = setInterval(() => a.send({ type: 'PING' }), 2000);
    try {
      // Process two announced nothing for 3 intervals of 5 s: its clients are out within 15 s plus a sweep.
      const left = await a.next('USER_LEFT', (m) => m.client._id === cId, 20_000);
      expect(left.client.profile.firstName).toBe('Grace');
      expect(a.closed).toBeNull();
    } finally {
      clearInterval(ping);
    }
  }, 30_000);
});

const skipCalls = skip ?? janusSkipReason();

describe.skipIf(skipCalls !== undefined)('calls across processes (Redis, one Janus)', () => {
  let redis: TestRedis;
  let janus: TestJanus;
  let root: string;
  let one: ServerProcess;
  let two: ServerProcess;
  const tokens: string[] = [];
  const clients: TestClient[] = [];

  beforeAll(async () => {
    [redis, janus] = await Promise.all([startRedis(), startJanus()]);
    root = await tempDir('meet-calls-');
    const dataDir = join(root, 'data');
    await mkdir(join(root, 'dist'), { recursive: true });
    const env = { DATA_DIR: dataDir, DIST_DIR: join(root, 'dist'), REDIS_URL: redis.url, JANUS_URL: janus.url, JANUS_API_SECRET: janus.apiSecret, RTC_MESH_MAX: '2' };
    one = await startServerProcess(env);
    two = await startServerProcess(env);
    for (const [first, last] of [['Ada', 'Lovelace'], ['Alan', 'Turing'], ['Grace', 'Hopper']]) tokens.push((await signTestToken(dataDir, { firstName: first, lastName: last })).token);
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) c.ws.terminate();
    await one?.stop();
    await two?.stop();
    await Promise.all([redis?.stop(), janus?.stop()]);
    if (root) await rm(root, { recursive: true, force: true });
  });

  const connect = (server: ServerProcess, scene: string) => {
    const c = new TestClient(`${server.url.replace('http', 'ws')}/meetings/${scene}`);
    clients.push(c);
    return c;
  };
  const callMode = async (c: TestClient) => {
    const from = c.received.length;
    c.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
    const answer = await c.next('RTC_RESPONSE', (m) => m.content.from === '@server', 10_000, from);
    return answer.content.signal;
  };

  it('prints how calls are carried', () => {
    expect(one.output().stdout).toMatch(/Calls: +a mesh while a meeting has at most 2 people, else through the call server \(Janus at ws:\/\/127\.0\.0\.1:\d+/);
  });

  it('keeps a call in the mode it started in, whichever process one joins it from', async () => {
    // A mesh call of two (one on each process); a third person joins on process two.
    const a = connect(one, 'demo');
    const b = connect(two, 'demo');
    const aId = await a.join(tokens[0]);
    await b.join(tokens[1]);
    await b.next('USER_JOINED', (m) => m.client._id === aId).catch(() => b.next('STATE', (m) => m.clients.length === 2));
    expect(await callMode(a)).toEqual({ kind: 'mode', mode: 'mesh' });
    const c = connect(two, 'demo');
    await c.join(tokens[2]);
    // Three people now, more than RTC_MESH_MAX: a new call would go through Janus, but this one is a mesh.
    await expect.poll(async () => (await b.next('USER_JOINED_RTC', (m) => m.content.from === aId, 5000)).content.signal).toEqual({ kind: 'join', mode: 'mesh' });
    expect(await callMode(c)).toEqual({ kind: 'mode', mode: 'mesh' });
    for (const x of [a, b, c]) x.close();
  });

  it('puts the callers of both processes into the meeting\'s one Janus room', async () => {
    const a = connect(one, 'warehouse');
    const b = connect(two, 'warehouse');
    const c = connect(two, 'warehouse');
    const aId = await a.join(tokens[0]);
    const bId = await b.join(tokens[1]);
    const cId = await c.join(tokens[2]);
    // Process one knows the meeting has three people (more than RTC_MESH_MAX) once both joins reached it.
    await a.next('USER_JOINED', (m) => m.client._id === bId);
    await a.next('USER_JOINED', (m) => m.client._id === cId);
    expect(await callMode(a)).toEqual({ kind: 'mode', mode: 'sfu' });
    // Process two learns the call's members and mode through Redis.
    expect((await b.next('USER_JOINED_RTC', (m) => m.content.from === aId, 10_000)).content.signal).toEqual({ kind: 'join', mode: 'sfu' });
    expect(await callMode(b)).toEqual({ kind: 'mode', mode: 'sfu' });
    // Both in the one room of the scene, each from their own process's Janus session.
    Janode.Logger.setLevel('none');
    const inspector = await Janode.connect({ address: { url: janus.url, apisecret: janus.apiSecret }, max_retries: 0 });
    try {
      const rooms = await (await inspector.create()).attach(VideoRoomPlugin);
      const { participants } = await rooms.listParticipants({ room: janusRoomId('warehouse') });
      expect(participants.map((p) => p.display).sort()).toEqual([aId, bId].sort());
    } finally {
      await inspector.close();
    }
    // Ada's offer is answered by Janus through process one, Alan's through process two.
    for (const x of [a, b]) {
      x.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'sfu-publish', sdp: 'not an SDP' } } });
      const refused = await x.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'sfu-error', 10_000);
      expect((refused.content.signal as { message: string }).message).toMatch(/^The call server could not set up your call \(/);
    }
    for (const x of [a, b, c]) x.close();
  });
});

describe('redis bus', () => {
  it('says where it could not connect, without the password', async () => {
    await expect(createRedisBus({ url: 'redis://user:secret@127.0.0.1:1' })).rejects.toThrow(/cannot connect to Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1/);
    expect(redactUrl('redis://:pw@h:6379/0')).toBe('redis://:***@h:6379/0');
  });
});
