/**
 * Stand-ins for the browser's media and WebRTC objects (the unit tests run in Node): tracks,
 * streams, getUserMedia, an AudioContext whose analysers read a level the test sets, and a peer
 * connection that records what it is asked and makes transceivers from an offer's media lines.
 */

let nextTrack = 1;

export class FakeTrack {
  readonly id = `track-${nextTrack++}`;
  enabled = true;
  stopped = false;
  constructor(
    readonly kind: 'audio' | 'video',
    readonly deviceId = `${kind}-default`,
  ) {}
  getSettings() {
    return { deviceId: this.deviceId };
  }
  stop() {
    this.stopped = true;
  }
}

export class FakeStream {
  private tracks: FakeTrack[];
  constructor(tracks: FakeTrack[] = []) {
    this.tracks = [...tracks];
  }
  getTracks() {
    return [...this.tracks];
  }
  getAudioTracks() {
    return this.tracks.filter((t) => t.kind === 'audio');
  }
  getVideoTracks() {
    return this.tracks.filter((t) => t.kind === 'video');
  }
  addTrack(track: FakeTrack) {
    this.tracks.push(track);
  }
  removeTrack(track: FakeTrack) {
    this.tracks = this.tracks.filter((t) => t !== track);
  }
}

export class FakeMediaDevices {
  calls: MediaStreamConstraints[] = [];
  refuse: string | null = null;
  async getUserMedia(constraints: MediaStreamConstraints) {
    this.calls.push(constraints);
    if (this.refuse) throw Object.assign(new Error('refused'), { name: this.refuse });
    const tracks: FakeTrack[] = [];
    const audio = constraints.audio as boolean | { deviceId: { exact: string } } | undefined;
    const video = constraints.video as boolean | { deviceId: { exact: string } } | undefined;
    if (audio) tracks.push(new FakeTrack('audio', typeof audio === 'object' ? audio.deviceId.exact : 'mic-1'));
    if (video) tracks.push(new FakeTrack('video', typeof video === 'object' ? video.deviceId.exact : 'cam-1'));
    return new FakeStream(tracks);
  }
  async enumerateDevices() {
    return [
      { kind: 'audioinput', deviceId: 'mic-1', label: 'Built-in microphone' },
      { kind: 'audioinput', deviceId: 'mic-2', label: '' },
      { kind: 'videoinput', deviceId: 'cam-1', label: 'Camera A' },
    ];
  }
}

/** AudioContext whose analysers read `levels.get(stream)` (a constant signal: its RMS). */
export class FakeAudioContext {
  static levels = new Map<unknown, number>();
  closed = false;
  createMediaStreamSource(stream: unknown) {
    const source = {
      stream,
      // The analyser reads the stream it is connected to.
      connect(analyser: { source: unknown }) {
        analyser.source = source;
      },
      disconnect() {},
    };
    return source;
  }
  createAnalyser() {
    const analyser = {
      fftSize: 2048,
      source: null as { stream: unknown } | null,
      getFloatTimeDomainData(data: Float32Array) {
        data.fill(FakeAudioContext.levels.get(analyser.source?.stream) ?? 0);
      },
    };
    return analyser;
  }
  async close() {
    this.closed = true;
  }
}

interface FakeTransceiver {
  mid: string | null;
  kind: string;
  currentDirection: string | null;
  receiver: { track: FakeTrack };
  sender: FakeSender;
}

export class FakeSender {
  constructor(public track: FakeTrack | null) {}
  async replaceTrack(track: FakeTrack) {
    this.track = track;
  }
}

export class FakePeerConnection {
  static all: FakePeerConnection[] = [];
  localDescription: { type: string; sdp: string } | null = null;
  remoteDescription: { type: string; sdp: string } | null = null;
  connectionState: RTCPeerConnectionState = 'new';
  candidates: (RTCIceCandidateInit | undefined)[] = [];
  transceivers: FakeTransceiver[] = [];
  senders: FakeSender[] = [];
  closed = false;
  onicecandidate: ((event: { candidate: unknown }) => void) | null = null;
  ontrack: ((event: unknown) => void) | null = null;
  onconnectionstatechange: (() => void) | null = null;
  private offers = 0;
  constructor(readonly config: RTCConfiguration) {
    FakePeerConnection.all.push(this);
  }
  addTrack(track: FakeTrack) {
    const sender = new FakeSender(track);
    this.senders.push(sender);
    return sender;
  }
  addTransceiver(track: FakeTrack, init: { direction: string }) {
    const sender = this.addTrack(track);
    this.transceivers.push({ mid: null, kind: track.kind, currentDirection: init.direction, receiver: { track: new FakeTrack(track.kind) }, sender });
  }
  getSenders() {
    return this.senders;
  }
  getTransceivers() {
    return this.transceivers;
  }
  async createOffer() {
    return { type: 'offer', sdp: `offer-${++this.offers}` };
  }
  async createAnswer() {
    return { type: 'answer', sdp: `answer-to-${this.remoteDescription?.sdp.split('\n')[0]}` };
  }
  async setLocalDescription(description: { type: string; sdp: string }) {
    this.localDescription = description;
  }
  /** An offer's media lines ("m=audio ...\na=mid:0\n[a=inactive]") become transceivers, kept by mid. */
  async setRemoteDescription(description: { type: string; sdp: string }) {
    this.remoteDescription = description;
    if (description.type !== 'offer') return;
    for (const section of description.sdp.split('m=').slice(1)) {
      const kind = section.startsWith('audio') ? 'audio' : 'video';
      const mid = /a=mid:(\S+)/.exec(section)?.[1] ?? null;
      const direction = section.includes('a=inactive') ? 'inactive' : 'recvonly';
      let transceiver = this.transceivers.find((t) => t.mid === mid);
      if (!transceiver) {
        transceiver = { mid, kind, currentDirection: direction, receiver: { track: new FakeTrack(kind) }, sender: new FakeSender(null) };
        this.transceivers.push(transceiver);
        this.ontrack?.({ track: transceiver.receiver.track, transceiver, streams: [] });
      }
      transceiver.currentDirection = direction;
    }
  }
  async addIceCandidate(candidate?: RTCIceCandidateInit) {
    this.candidates.push(candidate);
  }
  /** The browser found a local candidate (null: gathering is over). */
  gather(candidate: string | null) {
    this.onicecandidate?.({ candidate: candidate === null ? null : { candidate, sdpMid: '0', sdpMLineIndex: 0 } });
  }
  setState(state: RTCPeerConnectionState) {
    this.connectionState = state;
    this.onconnectionstatechange?.();
  }
  close() {
    this.closed = true;
  }
}

/** One async turn for promise chains to settle. */
export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
