import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineContext } from '../../../src/meeting/call';
import { createSfuEngine, SFU_CONNECTION_FAILED } from '../../../src/meeting/sfu-call';
import { RTC_SERVER_ID, type RtcSignal } from '../../../src/protocol/meeting';
import { FakePeerConnection, FakeStream, FakeTrack, tick } from './media-fakes';

/** A subscription offer with these media lines: [mid, kind, inactive?]. */
function offer(version: number, lines: [string, 'audio' | 'video', boolean?][]): string {
  return `v=${version}\n` + lines.map(([mid, kind, inactive]) => `m=${kind} 9\na=mid:${mid}\n${inactive ? 'a=inactive\n' : ''}`).join('');
}

describe('call through the call server (SFU engine)', () => {
  let sent: RtcSignal[];
  let errors: string[];
  let metered: string[];
  let local: FakeStream;
  let ctx: EngineContext;

  beforeEach(() => {
    FakePeerConnection.all = [];
    sent = [];
    errors = [];
    metered = [];
    local = new FakeStream([new FakeTrack('audio'), new FakeTrack('video')]);
    vi.stubGlobal('MediaStream', FakeStream);
    ctx = {
      send: (signal, to) => {
        expect(to).toBeUndefined(); // everything goes to the server
        sent.push(signal);
      },
      local: local as unknown as MediaStream,
      iceServers: [{ urls: 'stun:stun.example.com' }],
      newPc: (config) => new FakePeerConnection(config) as unknown as RTCPeerConnection,
      changed: () => {},
      fail: (message) => errors.push(message),
      meter: (id) => metered.push(id),
      unmeter: () => {},
    };
  });
  afterEach(() => vi.unstubAllGlobals());

  it('publishes its tracks sendonly with one offer, takes the answer, and trickles its candidates', async () => {
    const engine = createSfuEngine(ctx);
    await tick();
    const [publisher] = FakePeerConnection.all;
    expect(publisher.config.iceServers).toEqual([{ urls: 'stun:stun.example.com' }]);
    expect(publisher.transceivers.map((t) => `${t.kind}:${t.currentDirection}`)).toEqual(['audio:sendonly', 'video:sendonly']);
    expect(sent).toEqual([{ kind: 'sfu-publish', sdp: 'offer-1' }]);
    // Janus's candidate before its answer waits for it.
    await engine.onSignal(RTC_SERVER_ID, { kind: 'sfu-ice', pc: 'publisher', candidate: { candidate: 'c1', sdpMid: '0', sdpMLineIndex: 0 } });
    expect(publisher.candidates).toEqual([]);
    await engine.onSignal(RTC_SERVER_ID, { kind: 'sfu-published', sdp: 'janus-answer' });
    expect(publisher.remoteDescription).toEqual({ type: 'answer', sdp: 'janus-answer' });
    expect(publisher.candidates).toEqual([{ candidate: 'c1', sdpMid: '0', sdpMLineIndex: 0 }]);
    publisher.gather('candidate:1 1 udp 1 192.0.2.2 5000 typ host');
    publisher.gather(null);
    expect(sent.slice(1)).toEqual([
      { kind: 'sfu-ice', pc: 'publisher', candidate: { candidate: 'candidate:1 1 udp 1 192.0.2.2 5000 typ host', sdpMid: '0', sdpMLineIndex: 0 } },
      { kind: 'sfu-ice', pc: 'publisher', candidate: null },
    ]);
    // Another camera goes out on the publisher's video sender.
    const camera = new FakeTrack('video');
    await engine.replaceTrack(camera as unknown as MediaStreamTrack);
    expect(publisher.senders.map((s) => s.track)).toEqual([local.getAudioTracks()[0], camera]);
    engine.close();
    expect(publisher.closed).toBe(true);
  });

  it("answers the server's subscription offers and gives each person the tracks of their media lines", async () => {
    const engine = createSfuEngine(ctx);
    await tick();
    // Announced feeds are shown before their media arrives.
    await engine.onSignal('alan', { kind: 'sfu-feed' });
    expect(engine.peers().map((p) => [p.id, p.stream])).toEqual([['alan', null]]);

    await engine.onSignal(RTC_SERVER_ID, {
      kind: 'sfu-offer',
      sdp: offer(1, [['0', 'audio'], ['1', 'video'], ['2', 'audio'], ['3', 'video']]),
      feeds: [
        { mid: '0', client: 'alan' },
        { mid: '1', client: 'alan' },
        { mid: '2', client: 'grace' },
        { mid: '3', client: 'grace' },
      ],
    });
    const subscriber = FakePeerConnection.all[1];
    expect(subscriber.remoteDescription?.type).toBe('offer');
    expect(sent.at(-1)).toEqual({ kind: 'sfu-answer', sdp: 'answer-to-v=1' });
    const tracksOf = (id: string) => (engine.streamOf(id) as unknown as FakeStream | null)?.getTracks().map((t) => t.kind).sort();
    expect(engine.peers().map((p) => p.id).sort()).toEqual(['alan', 'grace']);
    expect(tracksOf('alan')).toEqual(['audio', 'video']);
    expect(tracksOf('grace')).toEqual(['audio', 'video']);
    expect(metered).toEqual(expect.arrayContaining(['alan', 'grace']));
    const alanStream = engine.streamOf('alan');

    // Alan leaves: Janus's next offer marks his lines inactive; he is no longer shown, Grace stays.
    await engine.onSignal(RTC_SERVER_ID, {
      kind: 'sfu-offer',
      sdp: offer(2, [['0', 'audio', true], ['1', 'video', true], ['2', 'audio'], ['3', 'video']]),
      feeds: [
        { mid: '2', client: 'grace' },
        { mid: '3', client: 'grace' },
      ],
    });
    expect(sent.at(-1)).toEqual({ kind: 'sfu-answer', sdp: 'answer-to-v=2' });
    expect(engine.peers().map((p) => p.id)).toEqual(['grace']);
    expect(engine.streamOf('alan')).toBeNull();
    expect(alanStream).not.toBeNull();

    // A reused line for a newcomer moves to them.
    await engine.onSignal(RTC_SERVER_ID, {
      kind: 'sfu-offer',
      sdp: offer(3, [['0', 'audio'], ['1', 'video'], ['2', 'audio'], ['3', 'video']]),
      feeds: [
        { mid: '0', client: 'ada' },
        { mid: '1', client: 'ada' },
        { mid: '2', client: 'grace' },
        { mid: '3', client: 'grace' },
      ],
    });
    expect(tracksOf('ada')).toEqual(['audio', 'video']);

    // Candidates for the subscriber, the connection's state on every person, a failure told.
    await engine.onSignal(RTC_SERVER_ID, { kind: 'sfu-ice', pc: 'subscriber', candidate: { candidate: 'c2' } });
    expect(subscriber.candidates).toEqual([{ candidate: 'c2' }]);
    subscriber.setState('connected');
    expect(engine.peers().every((p) => p.state === 'connected')).toBe(true);
    subscriber.setState('failed');
    expect(errors).toEqual([SFU_CONNECTION_FAILED]);
    // Someone's leave signal or their leaving the meeting takes them out.
    await engine.onSignal('grace', { kind: 'leave' });
    engine.drop('ada');
    expect(engine.peers()).toEqual([]);
  });

  it('handles offers one after the other, and ignores mesh signals and others after closing', async () => {
    const engine = createSfuEngine(ctx);
    await tick();
    const first = engine.onSignal(RTC_SERVER_ID, { kind: 'sfu-offer', sdp: offer(1, [['0', 'video']]), feeds: [{ mid: '0', client: 'alan' }] });
    const second = engine.onSignal(RTC_SERVER_ID, { kind: 'sfu-offer', sdp: offer(2, [['0', 'video'], ['1', 'video']]), feeds: [{ mid: '0', client: 'alan' }, { mid: '1', client: 'grace' }] });
    await Promise.all([first, second]);
    expect(sent.filter((s) => s.kind === 'sfu-answer')).toEqual([
      { kind: 'sfu-answer', sdp: 'answer-to-v=1' },
      { kind: 'sfu-answer', sdp: 'answer-to-v=2' },
    ]);
    await engine.onSignal('alan', { kind: 'offer', sdp: 'mesh offer' });
    expect(FakePeerConnection.all).toHaveLength(2);
    engine.close();
    await engine.onSignal(RTC_SERVER_ID, { kind: 'sfu-offer', sdp: offer(3, [['0', 'video']]), feeds: [] });
    expect(sent.filter((s) => s.kind === 'sfu-answer')).toHaveLength(2);
    expect(FakePeerConnection.all.every((pc) => pc.closed)).toBe(true);
  });
});
