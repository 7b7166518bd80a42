/**
 * One's own side of a call, whatever carries it (mesh or call server): the microphone and camera
 * (with the texts for what the browser refuses), mute and camera off (the tracks' `enabled`),
 * another device's track, the devices to choose from, and the speaking indicator: each stream's
 * loudness sampled ten times a second.
 */

/** RMS level above which a stream counts as speaking. */
export const SPEAKING_LEVEL = 0.02;
export const LEVEL_INTERVAL_MS = 100;
/** The meter id of one's own stream. */
export const SELF = 'self';

export interface DeviceList {
  audio: { id: string; label: string }[];
  video: { id: string; label: string }[];
}

export interface CallMedia {
  readonly stream: MediaStream | null;
  readonly muted: boolean;
  readonly cameraOn: boolean;
  readonly devices: DeviceList;
  readonly audioDevice: string | null;
  readonly videoDevice: string | null;
  /** Opens microphone (and camera); null after `fail` was told why not. */
  open(): Promise<MediaStream | null>;
  /** Stops the tracks and one's own meter. */
  close(): void;
  setMuted(muted: boolean): void;
  setCameraOn(on: boolean): void;
  /** Opens another device; its track goes to `replace` (the connections' senders), then into the stream. */
  useDevice(kind: 'audio' | 'video', deviceId: string, replace: (track: MediaStreamTrack) => Promise<void>): Promise<void>;
  /** Meters a stream's audio (again after its tracks changed) under `id`. */
  meter(id: string, stream: MediaStream): void;
  unmeter(id: string): void;
  speaking(id: string): boolean;
  dispose(): void;
}

export interface CallMediaOptions {
  videoEnabled: boolean;
  mediaDevices: MediaDevices;
  /** Something shown changed (a speaking flag, a device). */
  changed: () => void;
  fail: (message: string) => void;
}

interface Meter {
  analyser: AnalyserNode;
  data: Float32Array<ArrayBuffer>;
  source: MediaStreamAudioSourceNode;
  speaking: boolean;
}

/** What getUserMedia's refusal means for the person. */
export function mediaErrorText(error: unknown): string {
  const name = (error as DOMException).name;
  if (name === 'NotAllowedError') return 'The browser did not allow the microphone or camera: allow them for this site to join the call.';
  if (name === 'NotFoundError') return 'No microphone or camera was found.';
  return `The microphone or camera could not be opened: ${(error as Error).message}`;
}

export function createCallMedia(options: CallMediaOptions): CallMedia {
  const { mediaDevices: media, changed, fail } = options;
  let stream: MediaStream | null = null;
  let muted = false;
  let cameraOn = options.videoEnabled;
  let devices: DeviceList = { audio: [], video: [] };
  let audioDevice: string | null = null;
  let videoDevice: string | null = null;
  let audioContext: AudioContext | null = null;
  const meters = new Map<string, Meter>();
  let levelTimer: ReturnType<typeof setInterval> | null = null;

  const listDevices = async () => {
    try {
      const all = await media.enumerateDevices();
      devices = {
        audio: all.filter((d) => d.kind === 'audioinput').map((d, i) => ({ id: d.deviceId, label: d.label || `Microphone ${i + 1}` })),
        video: all.filter((d) => d.kind === 'videoinput').map((d, i) => ({ id: d.deviceId, label: d.label || `Camera ${i + 1}` })),
      };
    } catch {
      devices = { audio: [], video: [] };
    }
  };

  const measureLevels = () => {
    let any = false;
    for (const [id, m] of meters) {
      m.analyser.getFloatTimeDomainData(m.data);
      let sum = 0;
      for (let i = 0; i < m.data.length; i++) sum += m.data[i] * m.data[i];
      const speaking = Math.sqrt(sum / m.data.length) > SPEAKING_LEVEL && !(id === SELF && muted);
      if (speaking !== m.speaking) {
        m.speaking = speaking;
        any = true;
      }
    }
    if (any) changed();
  };

  const api: CallMedia = {
    get stream() {
      return stream;
    },
    get muted() {
      return muted;
    },
    get cameraOn() {
      return cameraOn;
    },
    get devices() {
      return devices;
    },
    get audioDevice() {
      return audioDevice;
    },
    get videoDevice() {
      return videoDevice;
    },
    async open() {
      try {
        stream = await media.getUserMedia({ audio: true, video: options.videoEnabled });
      } catch (e) {
        fail(mediaErrorText(e));
        return null;
      }
      audioDevice = stream.getAudioTracks()[0]?.getSettings().deviceId ?? null;
      videoDevice = stream.getVideoTracks()[0]?.getSettings().deviceId ?? null;
      await listDevices();
      for (const track of stream.getAudioTracks()) track.enabled = !muted;
      for (const track of stream.getVideoTracks()) track.enabled = cameraOn;
      api.meter(SELF, stream);
      return stream;
    },
    close() {
      api.unmeter(SELF);
      for (const track of stream?.getTracks() ?? []) track.stop();
      stream = null;
    },
    setMuted(value) {
      muted = value;
      for (const track of stream?.getAudioTracks() ?? []) track.enabled = !muted;
      changed();
    },
    setCameraOn(on) {
      cameraOn = on && options.videoEnabled;
      for (const track of stream?.getVideoTracks() ?? []) track.enabled = cameraOn;
      changed();
    },
    async useDevice(kind, deviceId, replace) {
      const local = stream;
      if (!local) return;
      let opened: MediaStream;
      try {
        opened = await media.getUserMedia(kind === 'audio' ? { audio: { deviceId: { exact: deviceId } } } : { video: { deviceId: { exact: deviceId } } });
      } catch (e) {
        fail(`That ${kind === 'audio' ? 'microphone' : 'camera'} could not be opened: ${(e as Error).message}`);
        return;
      }
      const track = kind === 'audio' ? opened.getAudioTracks()[0] : opened.getVideoTracks()[0];
      const old = kind === 'audio' ? local.getAudioTracks()[0] : local.getVideoTracks()[0];
      track.enabled = kind === 'audio' ? !muted : cameraOn;
      try {
        await replace(track);
      } catch (e) {
        track.stop();
        fail(`The call could not switch to that ${kind === 'audio' ? 'microphone' : 'camera'}: ${(e as Error).message}`);
        return;
      }
      if (old) {
        local.removeTrack(old);
        old.stop();
      }
      local.addTrack(track);
      if (kind === 'audio') {
        audioDevice = deviceId;
        api.meter(SELF, local);
      } else videoDevice = deviceId;
      changed();
    },
    meter(id, of) {
      if (of.getAudioTracks().length === 0) return;
      try {
        audioContext ??= new AudioContext();
        api.unmeter(id);
        const source = audioContext.createMediaStreamSource(of);
        const analyser = audioContext.createAnalyser();
        analyser.fftSize = 512;
        source.connect(analyser);
        meters.set(id, { analyser, data: new Float32Array(analyser.fftSize), source, speaking: false });
        levelTimer ??= setInterval(measureLevels, LEVEL_INTERVAL_MS);
      } catch (e) {
        fail(`The speaking indicator is unavailable: ${(e as Error).message}`);
      }
    },
    unmeter(id) {
      const m = meters.get(id);
      if (!m) return;
      m.source.disconnect();
      meters.delete(id);
    },
    speaking(id) {
      return meters.get(id)?.speaking ?? false;
    },
    dispose() {
      api.close();
      for (const id of [...meters.keys()]) api.unmeter(id);
      if (levelTimer !== null) clearInterval(levelTimer);
      levelTimer = null;
      void audioContext?.close();
      audioContext = null;
    },
  };
  return api;
}
