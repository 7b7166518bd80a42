import { RtcRelayContent, type RtcSignal } from '../protocol/meeting';
import type { Meeting } from './meeting';

/**
 * Audio and video of a meeting as a peer-to-peer mesh (DESIGN.md 4.2; the embedded default for small
 * meetings): WebRTC signaling through RTC_REQUEST / RTC_RESPONSE / USER_JOINED_RTC. Joining the
 * call announces 'join' to everyone; each participant already in the call offers a connection to
 * the newcomer (so two peers never offer to each other at once), who answers. ICE candidates are
 * relayed as they come. Mute and camera off disable the local tracks (the connections stay);
 * another device replaces the track on every connection. A speaking indicator samples each
 * stream's loudness ten times a second.
 */

export interface CallPeer {
  id: string;
  /** The peer's media, once its tracks arrived. */
  stream: MediaStream | null;
  state: RTCPeerConnectionState | 'new';
  speaking: boolean;
}

export interface CallSnapshot {
  joined: boolean;
  /** Joining: asking for the devices. */
  starting: boolean;
  muted: boolean;
  cameraOn: boolean;
  videoEnabled: boolean;
  speaking: boolean;
  peers: { id: string; state: string; speaking: boolean; hasVideo: boolean }[];
  devices: { audio: { id: string; label: string }[]; video: { id: string; label: string }[] };
  audioDevice: string | null;
  videoDevice: string | null;
  error: string | null;
}

export interface Call {
  snapshot(): CallSnapshot;
  /** The local stream (for the self tile), or null. */
  readonly localStream: MediaStream | null;
  streamOf(peerId: string): MediaStream | null;
  join(): Promise<void>;
  leave(): void;
  setMuted(muted: boolean): void;
  setCameraOn(on: boolean): void;
  useDevice(kind: 'audio' | 'video', deviceId: string): Promise<void>;
  onChange(listener: () => void): () => void;
  dispose(): void;
}

export interface CallOptions {
  /** uiConfig.rtcVideoEnabled: false makes it an audio-only call. */
  videoEnabled: boolean;
  /** STUN/TURN servers; none = host candidates only (one network). */
  iceServers?: RTCIceServer[];
  /** Who a participant is (USER_LEFT closes their connection). */
  participants: () => Set<string>;
  mediaDevices?: MediaDevices;
  createPeerConnection?: (config: RTCConfiguration) => RTCPeerConnection;
}

const SPEAKING_LEVEL = 0.02;
const LEVEL_INTERVAL_MS = 100;

export function createCall(meeting: Meeting, options: CallOptions): Call {
  const media = options.mediaDevices ?? navigator.mediaDevices;
  const newPc = options.createPeerConnection ?? ((config: RTCConfiguration) => new RTCPeerConnection(config));
  const peers = new Map<string, { pc: RTCPeerConnection; peer: CallPeer; pending: RTCIceCandidateInit[] }>();
  const listeners = new Set<() => void>();
  let local: MediaStream | null = null;
  let joined = false;
  let starting = false;
  let muted = false;
  let cameraOn = options.videoEnabled;
  let error: string | null = null;
  let devices: CallSnapshot['devices'] = { audio: [], video: [] };
  let audioDevice: string | null = null;
  let videoDevice: string | null = null;
  let audioContext: AudioContext | null = null;
  const meters = new Map<string, { analyser: AnalyserNode; data: Float32Array<ArrayBuffer>; source: MediaStreamAudioSourceNode }>();
  let levelTimer: number | null = null;
  let selfSpeaking = false;

  const changed = () => {
    for (const listener of listeners) listener();
  };
  const fail = (message: string) => {
    error = message;
    console.error(`Call: ${message}`);
    changed();
  };

  const send = (to: string | undefined, signal: RtcSignal) => meeting.sendRtc(to === undefined ? { signal } : { to, signal });

  const connectionTo = (id: string) => {
    let entry = peers.get(id);
    if (entry) return entry;
    const pc = newPc({ iceServers: options.iceServers ?? [] });
    const peer: CallPeer = { id, stream: null, state: 'new', speaking: false };
    entry = { pc, peer, pending: [] };
    peers.set(id, entry);
    if (local) for (const track of local.getTracks()) pc.addTrack(track, local);
    pc.onicecandidate = (event) => {
      if (event.candidate) send(id, { kind: 'ice', candidate: { candidate: event.candidate.candidate, sdpMid: event.candidate.sdpMid, sdpMLineIndex: event.candidate.sdpMLineIndex } });
    };
    pc.ontrack = (event) => {
      peer.stream = event.streams[0] ?? new MediaStream([event.track]);
      if (event.track.kind === 'audio') meter(id, peer.stream);
      changed();
    };
    pc.onconnectionstatechange = () => {
      peer.state = pc.connectionState;
      if (pc.connectionState === 'failed') fail(`The connection to a participant failed (no network path between you; a TURN server may be needed).`);
      changed();
    };
    changed();
    return entry;
  };

  const close = (id: string) => {
    const entry = peers.get(id);
    if (!entry) return;
    entry.pc.close();
    peers.delete(id);
    unmeter(id);
    changed();
  };

  const onSignal = async (from: string, signal: RtcSignal) => {
    if (!joined) return;
    switch (signal.kind) {
      case 'join': {
        // A newcomer: those already in the call offer.
        close(from);
        const { pc } = connectionTo(from);
        await pc.setLocalDescription(await pc.createOffer());
        send(from, { kind: 'offer', sdp: pc.localDescription!.sdp });
        return;
      }
      case 'offer': {
        const entry = connectionTo(from);
        await entry.pc.setRemoteDescription({ type: 'offer', sdp: signal.sdp });
        for (const candidate of entry.pending.splice(0)) await entry.pc.addIceCandidate(candidate);
        await entry.pc.setLocalDescription(await entry.pc.createAnswer());
        send(from, { kind: 'answer', sdp: entry.pc.localDescription!.sdp });
        return;
      }
      case 'answer': {
        const entry = peers.get(from);
        if (!entry) return;
        await entry.pc.setRemoteDescription({ type: 'answer', sdp: signal.sdp });
        for (const candidate of entry.pending.splice(0)) await entry.pc.addIceCandidate(candidate);
        return;
      }
      case 'ice': {
        const entry = peers.get(from);
        if (!entry) return;
        if (entry.pc.remoteDescription) await entry.pc.addIceCandidate(signal.candidate);
        else entry.pending.push(signal.candidate);
        return;
      }
      case 'leave':
        close(from);
        return;
    }
  };

  const offRtc = meeting.onRtc((message) => {
    const content = RtcRelayContent.safeParse(message.content);
    if (!content.success) return fail(`A malformed call message was ignored (${content.error.issues[0]?.message}).`);
    onSignal(content.data.from, content.data.signal).catch((e: Error) => fail(`Call signaling failed: ${e.message}`));
  });

  // Participants who left the meeting leave the call.
  const sweep = window.setInterval(() => {
    const present = options.participants();
    for (const id of [...peers.keys()]) if (!present.has(id)) close(id);
  }, 1000);

  const meter = (id: string, stream: MediaStream) => {
    if (stream.getAudioTracks().length === 0) return;
    try {
      audioContext ??= new AudioContext();
      unmeter(id);
      const source = audioContext.createMediaStreamSource(stream);
      const analyser = audioContext.createAnalyser();
      analyser.fftSize = 512;
      source.connect(analyser);
      meters.set(id, { analyser, data: new Float32Array(analyser.fftSize), source });
      levelTimer ??= window.setInterval(measureLevels, LEVEL_INTERVAL_MS);
    } catch (e) {
      fail(`The speaking indicator is unavailable: ${(e as Error).message}`);
    }
  };
  const unmeter = (id: string) => {
    const m = meters.get(id);
    if (!m) return;
    m.source.disconnect();
    meters.delete(id);
  };
  const measureLevels = () => {
    let any = false;
    for (const [id, m] of meters) {
      m.analyser.getFloatTimeDomainData(m.data);
      let sum = 0;
      for (let i = 0; i < m.data.length; i++) sum += m.data[i] * m.data[i];
      const speaking = Math.sqrt(sum / m.data.length) > SPEAKING_LEVEL;
      if (id === 'self') {
        const now = speaking && !muted;
        if (now !== selfSpeaking) any = true;
        selfSpeaking = now;
      } else {
        const peer = peers.get(id)?.peer;
        if (peer && peer.speaking !== speaking) {
          peer.speaking = speaking;
          any = true;
        }
      }
    }
    if (any) changed();
  };

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

  const api: Call = {
    snapshot() {
      return {
        joined,
        starting,
        muted,
        cameraOn,
        videoEnabled: options.videoEnabled,
        speaking: selfSpeaking,
        peers: [...peers.values()].map(({ peer }) => ({ id: peer.id, state: peer.state, speaking: peer.speaking, hasVideo: (peer.stream?.getVideoTracks().length ?? 0) > 0 })),
        devices,
        audioDevice,
        videoDevice,
        error,
      };
    },
    get localStream() {
      return local;
    },
    streamOf(peerId) {
      return peers.get(peerId)?.peer.stream ?? null;
    },
    async join() {
      if (joined || starting) return;
      starting = true;
      error = null;
      changed();
      try {
        local = await media.getUserMedia({ audio: true, video: options.videoEnabled });
      } catch (e) {
        starting = false;
        const name = (e as DOMException).name;
        fail(
          name === 'NotAllowedError'
            ? 'The browser did not allow the microphone or camera: allow them for this site to join the call.'
            : name === 'NotFoundError'
              ? 'No microphone or camera was found.'
              : `The microphone or camera could not be opened: ${(e as Error).message}`,
        );
        return;
      }
      audioDevice = local.getAudioTracks()[0]?.getSettings().deviceId ?? null;
      videoDevice = local.getVideoTracks()[0]?.getSettings().deviceId ?? null;
      await listDevices();
      for (const track of local.getAudioTracks()) track.enabled = !muted;
      for (const track of local.getVideoTracks()) track.enabled = cameraOn;
      meter('self', local);
      joined = true;
      starting = false;
      send(undefined, { kind: 'join' });
      changed();
    },
    leave() {
      if (!joined) return;
      send(undefined, { kind: 'leave' });
      for (const id of [...peers.keys()]) close(id);
      unmeter('self');
      for (const track of local?.getTracks() ?? []) track.stop();
      local = null;
      joined = false;
      selfSpeaking = false;
      changed();
    },
    setMuted(value) {
      muted = value;
      for (const track of local?.getAudioTracks() ?? []) track.enabled = !muted;
      changed();
    },
    setCameraOn(on) {
      cameraOn = on && options.videoEnabled;
      for (const track of local?.getVideoTracks() ?? []) track.enabled = cameraOn;
      changed();
    },
    async useDevice(kind, deviceId) {
      if (!local) return;
      let stream: MediaStream;
      try {
        stream = await media.getUserMedia(kind === 'audio' ? { audio: { deviceId: { exact: deviceId } } } : { video: { deviceId: { exact: deviceId } } });
      } catch (e) {
        fail(`That ${kind === 'audio' ? 'microphone' : 'camera'} could not be opened: ${(e as Error).message}`);
        return;
      }
      const track = kind === 'audio' ? stream.getAudioTracks()[0] : stream.getVideoTracks()[0];
      const old = kind === 'audio' ? local.getAudioTracks()[0] : local.getVideoTracks()[0];
      track.enabled = kind === 'audio' ? !muted : cameraOn;
      for (const { pc } of peers.values()) {
        const sender = pc.getSenders().find((s) => s.track?.kind === track.kind);
        await sender?.replaceTrack(track);
      }
      if (old) {
        local.removeTrack(old);
        old.stop();
      }
      local.addTrack(track);
      if (kind === 'audio') {
        audioDevice = deviceId;
        meter('self', local);
      } else videoDevice = deviceId;
      changed();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      api.leave();
      offRtc();
      window.clearInterval(sweep);
      if (levelTimer !== null) window.clearInterval(levelTimer);
      void audioContext?.close();
      listeners.clear();
    },
  };
  return api;
}
