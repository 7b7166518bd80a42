import {
  CALL_JOIN_NO_ANSWER,
  CALL_JOIN_TIMEOUT_MS,
  RTC_SERVER_ID,
  RtcRelayContent,
  type RtcMode,
  type RtcSignal,
} from '../protocol/meeting';
import { createCallMedia, SELF } from './call-media';
import type { Meeting } from './meeting';
import { createMeshEngine } from './rtc';
import { createSfuEngine } from './sfu-call';

/**
 * Audio and video of a meeting (DESIGN.md 4.2) through RTC_REQUEST / RTC_RESPONSE /
 * USER_JOINED_RTC. Joining opens one's microphone and camera, then asks the meeting server; its
 * answer says how the call carries media: a peer-to-peer mesh (rtc.ts) or the call server, Janus's
 * VideoRoom as an SFU (sfu-call.ts). The mode holds until one leaves the call. Local media, mute,
 * camera off, devices and the speaking indicator are the same for both (call-media.ts).
 */

export interface CallPeer {
  id: string;
  /** The peer's media, once its tracks arrived. */
  stream: MediaStream | null;
  state: RTCPeerConnectionState | 'new';
}

export interface CallSnapshot {
  joined: boolean;
  /** Joining: asking for the devices, then the meeting server. */
  starting: boolean;
  /** How the call carries media, once joined. */
  mode: RtcMode | null;
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
  /** Resolves once in the call, or once the reason why not is in the snapshot's error. */
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
  /** STUN/TURN servers (ClientConfig rtc.iceServers); none = host candidates only (one network). */
  iceServers?: RTCIceServer[];
  /** Who a participant is (USER_LEFT ends their part of the call). */
  participants: () => Set<string>;
  mediaDevices?: MediaDevices;
  createPeerConnection?: (config: RTCConfiguration) => RTCPeerConnection;
}

/** How a call carries media: what call.ts asks of the mesh and of the call server's client. */
export interface CallEngine {
  peers(): CallPeer[];
  streamOf(id: string): MediaStream | null;
  onSignal(from: string, signal: RtcSignal): Promise<void>;
  /** Another device's track on every connection that sends one of its kind. */
  replaceTrack(track: MediaStreamTrack): Promise<void>;
  /** A participant left the meeting. */
  drop(id: string): void;
  close(): void;
}

export interface EngineContext {
  /** RTC_REQUEST: to one client (mesh), or to the server and the call (no `to`). */
  send(signal: RtcSignal, to?: string): void;
  local: MediaStream;
  iceServers: RTCIceServer[];
  newPc(config: RTCConfiguration): RTCPeerConnection;
  changed(): void;
  fail(message: string): void;
  meter(id: string, stream: MediaStream): void;
  unmeter(id: string): void;
}

/** How often participants who left the meeting are taken out of the call. */
const SWEEP_MS = 1000;

export function createCall(meeting: Meeting, options: CallOptions): Call {
  const listeners = new Set<() => void>();
  let joined = false;
  let starting = false;
  let mode: RtcMode | null = null;
  let error: string | null = null;
  let engine: CallEngine | null = null;
  /** Waiting for the server's 'mode': settles join(). */
  let waiting: { done: () => void; timer: ReturnType<typeof setTimeout> } | null = null;

  const changed = () => {
    for (const listener of listeners) listener();
  };
  const fail = (message: string) => {
    error = message;
    console.error(`Call: ${message}`);
    changed();
  };
  const media = createCallMedia({ videoEnabled: options.videoEnabled, mediaDevices: options.mediaDevices ?? navigator.mediaDevices, changed, fail });
  const newPc = options.createPeerConnection ?? ((config: RTCConfiguration) => new RTCPeerConnection(config));
  const send = (signal: RtcSignal, to?: string) => meeting.sendRtc(to === undefined ? { signal } : { to, signal });

  /** Stops waiting for the server; `ok` = in the call. */
  const settle = () => {
    if (!waiting) return;
    clearTimeout(waiting.timer);
    const { done } = waiting;
    waiting = null;
    starting = false;
    done();
  };

  /** Ends one's side of the call (after leaving, or after the server ended it). */
  const teardown = () => {
    engine?.close();
    engine = null;
    media.close();
    joined = false;
    mode = null;
  };

  const start = (chosen: RtcMode) => {
    const local = media.stream;
    if (!local) return;
    const context: EngineContext = { send, local, iceServers: options.iceServers ?? [], newPc, changed, fail, meter: media.meter, unmeter: media.unmeter };
    engine = chosen === 'sfu' ? createSfuEngine(context) : createMeshEngine(context);
    mode = chosen;
    joined = true;
    settle();
    changed();
  };

  const onServer = (signal: RtcSignal) => {
    if (signal.kind === 'mode') {
      if (waiting) start(signal.mode);
      return;
    }
    if (signal.kind === 'sfu-error') {
      // Joining failed, or the call server ended the call: one is out of it, and told why.
      if (waiting || joined) {
        teardown();
        settle();
        fail(signal.message);
      }
      return;
    }
    engine?.onSignal(RTC_SERVER_ID, signal).catch((e: Error) => fail(`Call signaling failed: ${e.message}`));
  };

  const offRtc = meeting.onRtc((message) => {
    const content = RtcRelayContent.safeParse(message.content);
    if (!content.success) return fail(`A malformed call message was ignored (${content.error.issues[0]?.message}).`);
    const { from, signal } = content.data;
    if (from === RTC_SERVER_ID) return onServer(signal);
    engine?.onSignal(from, signal).catch((e: Error) => fail(`Call signaling failed: ${e.message}`));
  });

  // Participants who left the meeting leave the call.
  const sweep = setInterval(() => {
    if (!engine) return;
    const present = options.participants();
    for (const peer of engine.peers()) if (!present.has(peer.id)) engine.drop(peer.id);
  }, SWEEP_MS);

  const api: Call = {
    snapshot() {
      return {
        joined,
        starting,
        mode,
        muted: media.muted,
        cameraOn: media.cameraOn,
        videoEnabled: options.videoEnabled,
        speaking: media.speaking(SELF),
        peers: (engine?.peers() ?? []).map((peer) => ({
          id: peer.id,
          state: peer.state,
          speaking: media.speaking(peer.id),
          hasVideo: (peer.stream?.getVideoTracks().length ?? 0) > 0,
        })),
        devices: media.devices,
        audioDevice: media.audioDevice,
        videoDevice: media.videoDevice,
        error,
      };
    },
    get localStream() {
      return media.stream;
    },
    streamOf(peerId) {
      return engine?.streamOf(peerId) ?? null;
    },
    async join() {
      if (joined || starting) return;
      starting = true;
      error = null;
      changed();
      const local = await media.open();
      if (!local) {
        starting = false;
        changed();
        return;
      }
      await new Promise<void>((done) => {
        waiting = {
          done,
          timer: setTimeout(() => {
            teardown();
            settle();
            fail(CALL_JOIN_NO_ANSWER);
          }, CALL_JOIN_TIMEOUT_MS),
        };
        if (!send({ kind: 'join' })) {
          teardown();
          settle();
          fail('The meeting is not connected: join the call once it is.');
        }
      });
    },
    leave() {
      if (!joined && !waiting) return;
      send({ kind: 'leave' });
      teardown();
      settle();
      changed();
    },
    setMuted(value) {
      media.setMuted(value);
    },
    setCameraOn(on) {
      media.setCameraOn(on);
    },
    async useDevice(kind, deviceId) {
      await media.useDevice(kind, deviceId, async (track) => {
        await engine?.replaceTrack(track);
      });
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      api.leave();
      offRtc();
      clearInterval(sweep);
      media.dispose();
      listeners.clear();
    },
  };
  return api;
}
