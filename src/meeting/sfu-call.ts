import { RTC_SERVER_ID, type RtcSignal, type RtcSignalOf } from '../protocol/meeting';
import type { CallEngine, CallPeer, EngineContext } from './call';

/**
 * A call through the call server (Janus VideoRoom as an SFU, driven by the meeting server): two
 * RTCPeerConnections whatever the meeting's size. The publisher sends one's microphone and camera
 * once (sfu-publish / sfu-published); the subscriber receives everyone else's, one media line per
 * track, each renegotiation an offer from the server (sfu-offer, with which mid is whose) and
 * one's answer (sfu-answer). A person's stream holds the tracks of their media lines; a person
 * whose lines went (they left, or unpublished) is no longer shown.
 */

export const SFU_CONNECTION_FAILED = 'The connection to the call server failed (no network path to it; a TURN server may be needed).';

function candidateInit(candidate: RTCIceCandidate): { candidate: string; sdpMid: string | null; sdpMLineIndex: number | null } {
  return { candidate: candidate.candidate, sdpMid: candidate.sdpMid, sdpMLineIndex: candidate.sdpMLineIndex };
}

export function createSfuEngine(ctx: EngineContext): CallEngine {
  let publisher: RTCPeerConnection | null = null;
  let subscriber: RTCPeerConnection | null = null;
  const pending: Record<'publisher' | 'subscriber', RTCIceCandidateInit[]> = { publisher: [], subscriber: [] };
  /** mid -> client id of the current subscription. */
  let feeds = new Map<string, string>();
  const people = new Map<string, CallPeer>();
  /** Subscription offers are handled one after the other. */
  let negotiation: Promise<void> = Promise.resolve();
  let closed = false;

  const watch = (pc: RTCPeerConnection, which: 'publisher' | 'subscriber') => {
    pc.onicecandidate = (event) => {
      ctx.send({ kind: 'sfu-ice', pc: which, candidate: event.candidate ? candidateInit(event.candidate) : null });
    };
    pc.onconnectionstatechange = () => {
      if (closed) return;
      if (pc.connectionState === 'failed') ctx.fail(SFU_CONNECTION_FAILED);
      if (which === 'subscriber') for (const person of people.values()) person.state = pc.connectionState;
      ctx.changed();
    };
  };

  const addCandidate = async (which: 'publisher' | 'subscriber', candidate: RTCIceCandidateInit | null) => {
    const pc = which === 'publisher' ? publisher : subscriber;
    if (!pc || !pc.remoteDescription) {
      if (candidate) pending[which].push(candidate);
      return;
    }
    await pc.addIceCandidate(candidate ?? undefined);
  };

  const flush = async (which: 'publisher' | 'subscriber') => {
    const pc = which === 'publisher' ? publisher : subscriber;
    for (const candidate of pending[which].splice(0)) await pc!.addIceCandidate(candidate);
  };

  const remove = (id: string) => {
    if (!people.delete(id)) return;
    ctx.unmeter(id);
    ctx.changed();
  };

  /** Each person's stream holds exactly the tracks of their active media lines. */
  const refresh = () => {
    if (!subscriber) return;
    const tracks = new Map<string, MediaStreamTrack[]>();
    for (const transceiver of subscriber.getTransceivers()) {
      const who = transceiver.mid === null ? undefined : feeds.get(transceiver.mid);
      if (!who || transceiver.currentDirection === 'inactive' || transceiver.currentDirection === 'stopped') continue;
      const list = tracks.get(who) ?? [];
      list.push(transceiver.receiver.track);
      tracks.set(who, list);
    }
    for (const [id, list] of tracks) {
      let person = people.get(id);
      if (!person) {
        person = { id, stream: null, state: subscriber.connectionState };
        people.set(id, person);
      }
      const stream = (person.stream ??= new MediaStream());
      const current = stream.getTracks();
      let audioChanged = false;
      for (const track of current) {
        if (list.includes(track)) continue;
        stream.removeTrack(track);
        audioChanged ||= track.kind === 'audio';
      }
      for (const track of list) {
        if (current.includes(track)) continue;
        stream.addTrack(track);
        audioChanged ||= track.kind === 'audio';
      }
      if (audioChanged) ctx.meter(id, stream);
    }
    // Those who had media and have none now: their feed went.
    for (const [id, person] of people) if (person.stream && !tracks.has(id)) remove(id);
    ctx.changed();
  };

  const subscribe = async (signal: RtcSignalOf<'sfu-offer'>) => {
    if (closed) return;
    if (!subscriber) {
      subscriber = ctx.newPc({ iceServers: ctx.iceServers });
      watch(subscriber, 'subscriber');
      subscriber.ontrack = () => refresh();
    }
    feeds = new Map(signal.feeds.map((feed) => [feed.mid, feed.client]));
    await subscriber.setRemoteDescription({ type: 'offer', sdp: signal.sdp });
    await flush('subscriber');
    await subscriber.setLocalDescription(await subscriber.createAnswer());
    ctx.send({ kind: 'sfu-answer', sdp: subscriber.localDescription!.sdp });
    refresh();
  };

  const publish = async () => {
    publisher = ctx.newPc({ iceServers: ctx.iceServers });
    watch(publisher, 'publisher');
    for (const track of ctx.local.getTracks()) publisher.addTransceiver(track, { direction: 'sendonly', streams: [ctx.local] });
    await publisher.setLocalDescription(await publisher.createOffer());
    ctx.send({ kind: 'sfu-publish', sdp: publisher.localDescription!.sdp });
  };
  publish().catch((e: Error) => ctx.fail(`Sending your microphone and camera to the call server failed: ${e.message}`));

  return {
    peers: () => [...people.values()],
    streamOf: (id) => people.get(id)?.stream ?? null,
    async onSignal(from, signal: RtcSignal) {
      if (closed) return;
      if (from !== RTC_SERVER_ID) {
        // From people: whose feed arrived (a tile until their media does), who left.
        if (signal.kind === 'sfu-feed' && !people.has(from)) {
          people.set(from, { id: from, stream: null, state: subscriber?.connectionState ?? 'new' });
          ctx.changed();
        } else if (signal.kind === 'leave') remove(from);
        return;
      }
      switch (signal.kind) {
        case 'sfu-published':
          if (!publisher) return;
          await publisher.setRemoteDescription({ type: 'answer', sdp: signal.sdp });
          await flush('publisher');
          return;
        case 'sfu-offer': {
          const next = negotiation.then(() => subscribe(signal));
          negotiation = next.catch(() => undefined);
          return next;
        }
        case 'sfu-ice':
          return addCandidate(signal.pc, signal.candidate);
        default:
          return;
      }
    },
    async replaceTrack(track) {
      const sender = publisher?.getSenders().find((s) => s.track?.kind === track.kind);
      await sender?.replaceTrack(track);
    },
    drop: remove,
    close() {
      closed = true;
      publisher?.close();
      subscriber?.close();
      publisher = subscriber = null;
      for (const id of [...people.keys()]) ctx.unmeter(id);
      people.clear();
    },
  };
}
