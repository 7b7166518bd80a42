import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCall, type Call } from '../../../src/meeting/call';
import type { Meeting } from '../../../src/meeting/meeting';
import { CALL_JOIN_NO_ANSWER, CALL_JOIN_TIMEOUT_MS, CALL_SERVER_LOST, CALL_SERVER_UNREACHABLE, RTC_SERVER_ID, type RtcSignal } from '../../../src/protocol/meeting';
import { FakeAudioContext, FakeMediaDevices, FakePeerConnection, FakeStream, tick } from './media-fakes';

/** A meeting that records RTC_REQUESTs and delivers RTC_RESPONSEs. */
function fakeMeeting() {
  const listeners = new Set<(message: { type: 'RTC_RESPONSE' | 'USER_JOINED_RTC'; content: unknown }) => void>();
  const sent: { to?: string; signal: RtcSignal }[] = [];
  let connected = true;
  const meeting = {
    onRtc(listener: (message: { type: 'RTC_RESPONSE' | 'USER_JOINED_RTC'; content: unknown }) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    sendRtc(content: { to?: string; signal: RtcSignal }) {
      if (connected) sent.push(content);
      return connected;
    },
  };
  return {
    meeting: meeting as unknown as Meeting,
    sent,
    disconnect: () => (connected = false),
    receive: (from: string, signal: unknown, type: 'RTC_RESPONSE' | 'USER_JOINED_RTC' = 'RTC_RESPONSE') => {
      for (const listener of listeners) listener({ type, content: { from, signal } });
    },
  };
}

describe('call (mode chosen by the meeting server)', () => {
  let fake: ReturnType<typeof fakeMeeting>;
  let devices: FakeMediaDevices;
  let present: Set<string>;
  let call: Call;
  const make = () =>
    createCall(fake.meeting, {
      videoEnabled: true,
      iceServers: [{ urls: 'turn:turn.example.com', username: 'u', credential: 'c' }],
      participants: () => present,
      mediaDevices: devices as unknown as MediaDevices,
      createPeerConnection: (config) => new FakePeerConnection(config) as unknown as RTCPeerConnection,
    });
  /** The call's timers (the sweep, the wait for the server) on fake time. */
  const withFakeTimers = () => {
    call.dispose();
    vi.useFakeTimers();
    call = make();
  };

  beforeEach(() => {
    FakePeerConnection.all = [];
    vi.stubGlobal('AudioContext', FakeAudioContext);
    vi.stubGlobal('MediaStream', FakeStream);
    vi.spyOn(console, 'error').mockImplementation(() => {});
    fake = fakeMeeting();
    devices = new FakeMediaDevices();
    present = new Set(['alan', 'grace']);
    call = make();
  });
  afterEach(() => {
    call.dispose();
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('opens the devices, asks to join, and becomes a mesh when the server says so', async () => {
    const joining = call.join();
    expect(call.snapshot().starting).toBe(true);
    await tick();
    expect(fake.sent).toEqual([{ signal: { kind: 'join' } }]);
    expect(call.snapshot().joined).toBe(false);
    fake.receive(RTC_SERVER_ID, { kind: 'mode', mode: 'mesh' });
    await joining;
    expect(call.snapshot()).toMatchObject({ joined: true, starting: false, mode: 'mesh', error: null });
    // A newcomer's join: the mesh offers to them, with the configured ICE servers.
    fake.receive('alan', { kind: 'join', mode: 'mesh' }, 'USER_JOINED_RTC');
    await tick();
    expect(fake.sent.at(-1)).toEqual({ to: 'alan', signal: { kind: 'offer', sdp: 'offer-1' } });
    expect(FakePeerConnection.all[0].config.iceServers).toEqual([{ urls: 'turn:turn.example.com', username: 'u', credential: 'c' }]);
    expect(call.snapshot().peers.map((p) => p.id)).toEqual(['alan']);
    // Leaving tells everyone and stops the devices.
    const tracks = (call.localStream as unknown as FakeStream).getTracks();
    call.leave();
    expect(fake.sent.at(-1)).toEqual({ signal: { kind: 'leave' } });
    expect(tracks.every((t) => t.stopped)).toBe(true);
    expect(call.snapshot()).toMatchObject({ joined: false, mode: null, peers: [] });
  });

  it('goes through the call server when the server says so', async () => {
    const joining = call.join();
    await tick();
    fake.receive(RTC_SERVER_ID, { kind: 'mode', mode: 'sfu' });
    await joining;
    await tick();
    expect(call.snapshot().mode).toBe('sfu');
    expect(fake.sent.at(-1)).toEqual({ signal: { kind: 'sfu-publish', sdp: 'offer-1' } });
    // The server ends the call (Janus went away): out of it, told why, devices stopped.
    fake.receive(RTC_SERVER_ID, { kind: 'sfu-error', message: CALL_SERVER_LOST });
    expect(call.snapshot()).toMatchObject({ joined: false, error: CALL_SERVER_LOST });
    expect(call.localStream).toBeNull();
    expect(FakePeerConnection.all[0].closed).toBe(true);
  });

  it('tells the person when the call server cannot be reached, and lets them try again', async () => {
    const joining = call.join();
    await tick();
    fake.receive(RTC_SERVER_ID, { kind: 'sfu-error', message: CALL_SERVER_UNREACHABLE });
    await joining;
    expect(call.snapshot()).toMatchObject({ joined: false, starting: false, error: CALL_SERVER_UNREACHABLE });
    expect(call.localStream).toBeNull();
    const again = call.join();
    await tick();
    expect(call.snapshot().error).toBeNull();
    fake.receive(RTC_SERVER_ID, { kind: 'mode', mode: 'mesh' });
    await again;
    expect(call.snapshot().joined).toBe(true);
  });

  it('gives up when the server does not answer, or the meeting is not connected', async () => {
    withFakeTimers();
    const joining = call.join();
    await vi.advanceTimersByTimeAsync(CALL_JOIN_TIMEOUT_MS);
    await joining;
    expect(call.snapshot()).toMatchObject({ joined: false, starting: false, error: CALL_JOIN_NO_ANSWER });
    // A late answer changes nothing.
    fake.receive(RTC_SERVER_ID, { kind: 'mode', mode: 'mesh' });
    expect(call.snapshot().joined).toBe(false);
    fake.disconnect();
    await call.join();
    expect(call.snapshot().error).toMatch(/not connected/);
  });

  it('takes people who left the meeting out of the call, and reports malformed messages', async () => {
    withFakeTimers();
    const joining = call.join();
    await vi.advanceTimersByTimeAsync(0);
    fake.receive(RTC_SERVER_ID, { kind: 'mode', mode: 'mesh' });
    await joining;
    fake.receive('alan', { kind: 'join', mode: 'mesh' }, 'USER_JOINED_RTC');
    fake.receive('grace', { kind: 'join', mode: 'mesh' }, 'USER_JOINED_RTC');
    await vi.advanceTimersByTimeAsync(0);
    expect(call.snapshot().peers.map((p) => p.id).sort()).toEqual(['alan', 'grace']);
    present.delete('alan');
    await vi.advanceTimersByTimeAsync(1000);
    expect(call.snapshot().peers.map((p) => p.id)).toEqual(['grace']);
    fake.receive('grace', { kind: 'offer' });
    expect(call.snapshot().error).toMatch(/A malformed call message was ignored/);
  });

  it('refuses a media error before asking the server', async () => {
    devices.refuse = 'NotAllowedError';
    await call.join();
    expect(fake.sent).toEqual([]);
    expect(call.snapshot()).toMatchObject({ joined: false, starting: false });
    expect(call.snapshot().error).toMatch(/did not allow the microphone or camera/);
  });
});
