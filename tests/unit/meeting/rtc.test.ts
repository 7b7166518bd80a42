import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineContext } from '../../../src/meeting/call';
import { createMeshEngine } from '../../../src/meeting/rtc';
import type { RtcSignal } from '../../../src/protocol/meeting';
import { FakePeerConnection, FakeStream, FakeTrack } from './media-fakes';

describe('call as a peer-to-peer mesh', () => {
  let sent: [RtcSignal, string | undefined][];
  let errors: string[];
  let local: FakeStream;
  let ctx: EngineContext;

  beforeEach(() => {
    FakePeerConnection.all = [];
    vi.stubGlobal('MediaStream', FakeStream);
    sent = [];
    errors = [];
    local = new FakeStream([new FakeTrack('audio'), new FakeTrack('video')]);
    ctx = {
      send: (signal, to) => void sent.push([signal, to]),
      local: local as unknown as MediaStream,
      iceServers: [],
      newPc: (config) => new FakePeerConnection(config) as unknown as RTCPeerConnection,
      changed: () => {},
      fail: (message) => errors.push(message),
      meter: () => {},
      unmeter: () => {},
    };
  });

  afterEach(() => vi.unstubAllGlobals());

  it('offers to a newcomer (to them only), with its tracks, and takes their answer and candidates', async () => {
    const engine = createMeshEngine(ctx);
    await engine.onSignal('alan', { kind: 'join', mode: 'mesh' });
    const [pc] = FakePeerConnection.all;
    expect(pc.senders.map((s) => s.track)).toEqual(local.getTracks());
    expect(sent).toEqual([[{ kind: 'offer', sdp: 'offer-1' }, 'alan']]);
    // A candidate before the answer waits for it.
    await engine.onSignal('alan', { kind: 'ice', candidate: { candidate: 'c1' } });
    expect(pc.candidates).toEqual([]);
    await engine.onSignal('alan', { kind: 'answer', sdp: 'their answer' });
    expect(pc.remoteDescription).toEqual({ type: 'answer', sdp: 'their answer' });
    expect(pc.candidates).toEqual([{ candidate: 'c1' }]);
    pc.gather('candidate:9');
    expect(sent.at(-1)).toEqual([{ kind: 'ice', candidate: { candidate: 'candidate:9', sdpMid: '0', sdpMLineIndex: 0 } }, 'alan']);
    expect(engine.peers().map((p) => p.id)).toEqual(['alan']);
    pc.setState('failed');
    expect(errors[0]).toMatch(/The connection to a participant failed/);
  });

  it('answers an offer, replaces a track on every connection, and closes on leave', async () => {
    const engine = createMeshEngine(ctx);
    await engine.onSignal('grace', { kind: 'offer', sdp: 'v=1\nm=audio 9\na=mid:0\n' });
    await engine.onSignal('ada', { kind: 'offer', sdp: 'v=2\nm=audio 9\na=mid:0\n' });
    expect(sent).toEqual([
      [{ kind: 'answer', sdp: 'answer-to-v=1' }, 'grace'],
      [{ kind: 'answer', sdp: 'answer-to-v=2' }, 'ada'],
    ]);
    const camera = new FakeTrack('video');
    await engine.replaceTrack(camera as unknown as MediaStreamTrack);
    expect(FakePeerConnection.all.every((pc) => pc.senders.some((s) => s.track === camera))).toBe(true);
    await engine.onSignal('grace', { kind: 'leave' });
    expect(FakePeerConnection.all[0].closed).toBe(true);
    expect(engine.peers().map((p) => p.id)).toEqual(['ada']);
    // The call server's signals are not for a mesh.
    await engine.onSignal('ada', { kind: 'sfu-feed' });
    expect(FakePeerConnection.all).toHaveLength(2);
    engine.close();
    expect(engine.peers()).toEqual([]);
  });
});
