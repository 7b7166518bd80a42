import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCallMedia, LEVEL_INTERVAL_MS, mediaErrorText, SELF, SPEAKING_LEVEL } from '../../../src/meeting/call-media';
import { FakeAudioContext, FakeMediaDevices, FakeStream, FakeTrack } from './media-fakes';

describe('call media', () => {
  let devices: FakeMediaDevices;
  let errors: string[];
  let changes: number;
  const make = (videoEnabled = true) =>
    createCallMedia({ videoEnabled, mediaDevices: devices as unknown as MediaDevices, changed: () => changes++, fail: (m) => errors.push(m) });

  beforeEach(() => {
    devices = new FakeMediaDevices();
    errors = [];
    changes = 0;
    vi.stubGlobal('AudioContext', FakeAudioContext);
    FakeAudioContext.levels.clear();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('opens microphone and camera, lists the devices (with names for unnamed ones), and closes them', async () => {
    const media = make();
    const stream = (await media.open()) as unknown as FakeStream;
    expect(devices.calls).toEqual([{ audio: true, video: true }]);
    expect(stream.getTracks().map((t) => t.kind)).toEqual(['audio', 'video']);
    expect(media.audioDevice).toBe('mic-1');
    expect(media.videoDevice).toBe('cam-1');
    expect(media.devices).toEqual({
      audio: [
        { id: 'mic-1', label: 'Built-in microphone' },
        { id: 'mic-2', label: 'Microphone 2' },
      ],
      video: [{ id: 'cam-1', label: 'Camera A' }],
    });
    const tracks = stream.getTracks();
    media.close();
    expect(tracks.every((t) => t.stopped)).toBe(true);
    expect(media.stream).toBeNull();
  });

  it('asks for audio only when video is off by configuration, and says why the browser refused', async () => {
    await make(false).open();
    expect(devices.calls[0]).toEqual({ audio: true, video: false });
    devices.refuse = 'NotAllowedError';
    expect(await make().open()).toBeNull();
    devices.refuse = 'NotFoundError';
    await make().open();
    expect(errors).toEqual([mediaErrorText({ name: 'NotAllowedError' }), 'No microphone or camera was found.']);
    expect(errors[0]).toMatch(/allow them for this site/);
  });

  it('mute and camera off disable the tracks, before and after opening', async () => {
    const media = make();
    media.setMuted(true);
    const stream = (await media.open()) as unknown as FakeStream;
    expect(stream.getAudioTracks()[0].enabled).toBe(false);
    expect(stream.getVideoTracks()[0].enabled).toBe(true);
    media.setCameraOn(false);
    media.setMuted(false);
    expect(stream.getTracks().map((t) => `${t.kind}:${t.enabled}`)).toEqual(['audio:true', 'video:false']);
    expect(media.cameraOn).toBe(false);
    expect(changes).toBeGreaterThanOrEqual(3);
  });

  it('switches a device: the new track goes to the connections, then replaces the old one', async () => {
    const media = make();
    const stream = (await media.open()) as unknown as FakeStream;
    const old = stream.getVideoTracks()[0];
    media.setCameraOn(false);
    const replaced: FakeTrack[] = [];
    await media.useDevice('video', 'cam-2', async (track) => void replaced.push(track as unknown as FakeTrack));
    expect(replaced).toHaveLength(1);
    expect(replaced[0].deviceId).toBe('cam-2');
    expect(replaced[0].enabled).toBe(false); // the camera stays off
    expect(old.stopped).toBe(true);
    expect(stream.getVideoTracks()).toEqual([replaced[0]]);
    expect(media.videoDevice).toBe('cam-2');

    // A connection that refuses the track: the old one stays, the new one is stopped, the person told.
    const audio = stream.getAudioTracks()[0];
    await media.useDevice('audio', 'mic-2', async () => {
      throw new Error('no sender');
    });
    expect(stream.getAudioTracks()).toEqual([audio]);
    expect(errors.at(-1)).toMatch(/could not switch to that microphone: no sender/);
  });

  it('marks a stream speaking while its level is above SPEAKING_LEVEL, oneself only when not muted', async () => {
    vi.useFakeTimers();
    const media = make();
    const self = await media.open();
    const peer = new FakeStream([new FakeTrack('audio')]);
    media.meter('peer', peer as unknown as MediaStream);
    FakeAudioContext.levels.set(peer, SPEAKING_LEVEL * 2);
    FakeAudioContext.levels.set(self, SPEAKING_LEVEL * 2);
    await vi.advanceTimersByTimeAsync(LEVEL_INTERVAL_MS);
    expect(media.speaking('peer')).toBe(true);
    expect(media.speaking(SELF)).toBe(true);
    media.setMuted(true);
    FakeAudioContext.levels.set(peer, SPEAKING_LEVEL / 2);
    await vi.advanceTimersByTimeAsync(LEVEL_INTERVAL_MS);
    expect(media.speaking('peer')).toBe(false);
    expect(media.speaking(SELF)).toBe(false);
    media.unmeter('peer');
    expect(media.speaking('peer')).toBe(false);
    // A stream without audio is not metered.
    media.meter('silent', new FakeStream([new FakeTrack('video')]) as unknown as MediaStream);
    expect(media.speaking('silent')).toBe(false);
    media.dispose();
  });

  it('says so when the speaking indicator cannot work', async () => {
    vi.stubGlobal('AudioContext', undefined);
    const media = make();
    await media.open();
    expect(errors.at(-1)).toMatch(/The speaking indicator is unavailable/);
  });
});
