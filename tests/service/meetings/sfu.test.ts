import { randomBytes } from 'node:crypto';
import Janode, { type JanodeConnection } from 'janode';
import VideoRoomPlugin, { type VideoRoomHandle } from 'janode/plugins/videoroom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALL_SERVER_LOST, CALL_SERVER_UNREACHABLE } from '../../../src/protocol/meeting.ts';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { janusRoomId } from '../../../src/server/meetings/sfu.ts';
import { startServer, type TestServer } from '../helpers.ts';
import { janusSkipReason, startJanus, type TestJanus } from '../janus.ts';
import { freePort } from '../redis.ts';
import { TestClient } from './ws-client.ts';

/**
 * Calls through the call server with the real Janus (Debian's janus): the meeting server's bridge
 * (src/server/meetings/sfu.ts) creates the meeting's VideoRoom on the first join, answers a
 * publisher's offer, leaves and destroys the room, and says so clearly when Janus is unreachable
 * or goes away. (Feeds reaching the others need real media: tests/e2e/meetings-sfu.spec.ts.)
 */

const skip = janusSkipReason();
if (skip) console.warn(`skipping the call server tests: ${skip}`);

/** A publisher's offer as a browser makes one (audio and video, sendonly); Janus answers it. */
function offer(): string {
  const fingerprint = [...randomBytes(32)].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
  const ice = `a=ice-ufrag:${randomBytes(4).toString('hex')}\r\na=ice-pwd:${randomBytes(12).toString('hex')}\r\n`;
  const common = `c=IN IP4 127.0.0.1\r\n${ice}a=fingerprint:sha-256 ${fingerprint}\r\na=setup:actpass\r\na=rtcp-mux\r\na=sendonly\r\n`;
  return (
    `v=0\r\no=- ${Date.now()} 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\na=msid-semantic: WMS s\r\n` +
    `m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n${common}a=mid:0\r\na=msid:s a\r\na=rtpmap:111 opus/48000/2\r\na=ssrc:1111 cname:x\r\n` +
    `m=video 9 UDP/TLS/RTP/SAVPF 96\r\n${common}a=mid:1\r\na=msid:s v\r\na=rtpmap:96 VP8/90000\r\na=ssrc:2222 cname:x\r\n`
  );
}

describe.skipIf(skip)('calls through the call server (real Janus)', () => {
  let janus: TestJanus;
  let server: TestServer;
  let ws: string;
  /** Our own look at Janus's rooms. */
  let inspector: { connection: JanodeConnection; rooms: VideoRoomHandle };
  const tokens: Record<string, string> = {};
  const open: TestClient[] = [];

  const client = (room: string, base = ws) => {
    const c = new TestClient(`${base}/meetings/${room}`);
    open.push(c);
    return c;
  };
  const exists = async (scene: string) => (await inspector.rooms.exists({ room: janusRoomId(scene) })).exists;
  const displays = async (scene: string) => (await inspector.rooms.listParticipants({ room: janusRoomId(scene) })).participants.map((p) => p.display).sort();

  beforeAll(async () => {
    janus = await startJanus();
    // RTC_MESH_MAX 1: a meeting of two already calls through Janus.
    server = await startServer({ env: { JANUS_URL: janus.url, JANUS_API_SECRET: janus.apiSecret, RTC_MESH_MAX: '1' } });
    ws = server.url.replace('http', 'ws');
    for (const id of ['sfu-a', 'sfu-b', 'sfu-small', 'sfu-lost']) await server.store.putScene({ _id: id, name: id, viewerConfig: {}, models: [] });
    for (const [first, last] of [['Ada', 'Lovelace'], ['Alan', 'Turing'], ['Grace', 'Hopper']]) {
      tokens[first] = (await signTestToken(server.dataDir, { firstName: first, lastName: last })).token;
    }
    Janode.Logger.setLevel('none');
    const connection = await Janode.connect({ address: { url: janus.url, apisecret: janus.apiSecret }, max_retries: 0 });
    const session = await connection.create();
    inspector = { connection, rooms: await session.attach(VideoRoomPlugin) };
  }, 60_000);

  afterAll(async () => {
    for (const c of open) c.ws.terminate();
    await inspector?.connection.close().catch(() => undefined);
    await server?.close();
    await janus?.stop();
  });

  it('creates the meeting\'s room on the first join, answers the offer, and removes the room when the last one leaves', async () => {
    const a = client('sfu-a');
    const b = client('sfu-a');
    const aId = await a.join(tokens.Ada);
    const bId = await b.join(tokens.Alan);
    expect(await exists('sfu-a')).toBe(false);

    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
    const mode = await a.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'mode', 10_000);
    expect(mode.content).toEqual({ from: '@server', signal: { kind: 'mode', mode: 'sfu' } });
    const joined = await b.next('USER_JOINED_RTC');
    expect(joined.content).toEqual({ from: aId, signal: { kind: 'join', mode: 'sfu' } });
    // One room for the meeting, with Ada's publisher named by her client id.
    expect(await exists('sfu-a')).toBe(true);
    expect(await displays('sfu-a')).toEqual([aId]);

    // Her offer gets Janus's answer, with Janus's candidates in it.
    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'sfu-publish', sdp: offer() } } });
    const published = await a.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'sfu-published', 10_000);
    const answer = (published.content.signal as { sdp: string }).sdp;
    expect(answer).toMatch(/^v=0/);
    expect(answer).toMatch(/a=candidate:\S+ 1 udp /);
    expect(answer).toMatch(/m=video 9 UDP\/TLS\/RTP\/SAVPF/);
    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'sfu-ice', pc: 'publisher', candidate: { candidate: 'candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host', sdpMid: '0', sdpMLineIndex: 0 } } } });
    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'sfu-ice', pc: 'publisher', candidate: null } } });

    // Alan joins the same call: the same mode, the same room.
    b.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
    expect((await b.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'mode', 10_000)).content.signal).toEqual({ kind: 'mode', mode: 'sfu' });
    await expect.poll(() => displays('sfu-a')).toEqual([aId, bId].sort());

    // Ada leaves the call: out of the room, the others told.
    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'leave' } } });
    expect((await b.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'leave')).content.from).toBe(aId);
    await expect.poll(() => displays('sfu-a')).toEqual([bId]);
    // A call-server signal after leaving is refused.
    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'sfu-publish', sdp: offer() } } });
    expect((await a.next('ERROR')).error).toMatch(/not in one/);
    // Alan leaves the meeting (the socket closes): nobody is left, the room goes.
    b.close();
    await expect.poll(() => exists('sfu-a'), { timeout: 10_000 }).toBe(false);
    a.close();
  });

  it('keeps a meeting of at most RTC_MESH_MAX people a mesh', async () => {
    const a = client('sfu-small');
    await a.join(tokens.Ada);
    a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
    expect((await a.next('RTC_RESPONSE')).content.signal).toEqual({ kind: 'mode', mode: 'mesh' });
    // A second person joining the call keeps the call's mode (no switch while people talk).
    const b = client('sfu-small');
    await b.join(tokens.Alan);
    b.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
    expect((await b.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'mode')).content.signal).toEqual({ kind: 'mode', mode: 'mesh' });
    expect(await exists('sfu-small')).toBe(false);
    a.close();
    b.close();
  });

  it('puts the people of two server processes that share a Janus into one room', async () => {
    // A second server (no bus between them: only Janus is shared) for the same scene.
    const other = await startServer({ env: { JANUS_URL: janus.url, JANUS_API_SECRET: janus.apiSecret, RTC_MESH_MAX: '0' } });
    try {
      await other.store.putScene({ _id: 'sfu-b', name: 'sfu-b', viewerConfig: {}, models: [] });
      const grace = (await signTestToken(other.dataDir, { firstName: 'Grace', lastName: 'Hopper' })).token;
      const a = client('sfu-b');
      const c = client('sfu-b', other.url.replace('http', 'ws'));
      const b = client('sfu-b');
      const aId = await a.join(tokens.Ada);
      await b.join(tokens.Alan);
      const cId = await c.join(grace);
      for (const x of [a, c]) x.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
      for (const x of [a, c]) expect((await x.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'mode', 10_000)).content.signal).toEqual({ kind: 'mode', mode: 'sfu' });
      await expect.poll(() => displays('sfu-b')).toEqual([aId, cId].sort());
      // The first process's last one leaves: the room stays for the other process's.
      a.close();
      b.close();
      await expect.poll(() => displays('sfu-b')).toEqual([cId]);
      expect(await exists('sfu-b')).toBe(true);
      c.close();
      await expect.poll(() => exists('sfu-b'), { timeout: 10_000 }).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('tells the person when the call server cannot be reached, and keeps them in the meeting', async () => {
    const port = await freePort(); // nothing listens there
    const down = await startServer({ env: { JANUS_URL: `ws://127.0.0.1:${port}`, JANUS_API_SECRET: 'x', RTC_MESH_MAX: '0' } });
    try {
      await down.store.putScene({ _id: 'sfu-down', name: 'down', viewerConfig: {}, models: [] });
      const token = (await signTestToken(down.dataDir, { firstName: 'Ada', lastName: 'Lovelace' })).token;
      const a = client('sfu-down', down.url.replace('http', 'ws'));
      await a.join(token);
      for (let attempt = 0; attempt < 2; attempt++) {
        const from = a.received.length;
        a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
        const error = await a.next('RTC_RESPONSE', () => true, 10_000, from);
        expect(error.content).toEqual({ from: '@server', signal: { kind: 'sfu-error', message: CALL_SERVER_UNREACHABLE } });
      }
      // Not in the call: its signals are refused; the meeting goes on.
      a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'sfu-publish', sdp: offer() } } });
      expect((await a.next('ERROR')).error).toMatch(/not in one/);
      expect(a.closed).toBeNull();
      a.close();
    } finally {
      await down.close();
    }
  });

  it('ends the call with a clear message when Janus goes away', async () => {
    const own = await startJanus();
    const lost = await startServer({ env: { JANUS_URL: own.url, JANUS_API_SECRET: own.apiSecret, RTC_MESH_MAX: '0' } });
    try {
      await lost.store.putScene({ _id: 'sfu-lost', name: 'lost', viewerConfig: {}, models: [] });
      const token = (await signTestToken(lost.dataDir, { firstName: 'Ada', lastName: 'Lovelace' })).token;
      const a = client('sfu-lost', lost.url.replace('http', 'ws'));
      await a.join(token);
      a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
      expect((await a.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'mode', 10_000)).content.signal).toEqual({ kind: 'mode', mode: 'sfu' });
      await own.stop();
      const error = await a.next('RTC_RESPONSE', (m) => m.content.signal.kind === 'sfu-error', 10_000);
      expect(error.content.signal).toEqual({ kind: 'sfu-error', message: CALL_SERVER_LOST });
      // Out of the call: joining again says the call server cannot be reached.
      const from = a.received.length;
      a.send({ type: 'RTC_REQUEST', content: { signal: { kind: 'join' } } });
      expect((await a.next('RTC_RESPONSE', () => true, 10_000, from)).content.signal).toEqual({ kind: 'sfu-error', message: CALL_SERVER_UNREACHABLE });
      a.close();
    } finally {
      await lost.close();
      await own.stop();
    }
  });
});
