import type { RtcSignal } from '../protocol/meeting';
import type { CallEngine, CallPeer, EngineContext } from './call';

/**
 * A call as a peer-to-peer mesh (DESIGN.md 4.2; the embedded default for small meetings): one
 * RTCPeerConnection per other person. Each participant already in the call offers a connection to
 * a newcomer (whose 'join' the server relays as USER_JOINED_RTC), so two peers never offer to each
 * other at once; the newcomer answers. ICE candidates are relayed as they come. Mute and camera off
 * disable the local tracks (the connections stay); another device replaces the track on every
 * connection.
 */
export function createMeshEngine(ctx: EngineContext): CallEngine {
  const peers = new Map<string, { pc: RTCPeerConnection; peer: CallPeer; pending: RTCIceCandidateInit[] }>();

  const connectionTo = (id: string) => {
    let entry = peers.get(id);
    if (entry) return entry;
    const pc = ctx.newPc({ iceServers: ctx.iceServers });
    const peer: CallPeer = { id, stream: null, state: 'new' };
    entry = { pc, peer, pending: [] };
    peers.set(id, entry);
    for (const track of ctx.local.getTracks()) pc.addTrack(track, ctx.local);
    pc.onicecandidate = (event) => {
      if (event.candidate) ctx.send({ kind: 'ice', candidate: { candidate: event.candidate.candidate, sdpMid: event.candidate.sdpMid, sdpMLineIndex: event.candidate.sdpMLineIndex } }, id);
    };
    pc.ontrack = (event) => {
      peer.stream = event.streams[0] ?? new MediaStream([event.track]);
      if (event.track.kind === 'audio') ctx.meter(id, peer.stream);
      ctx.changed();
    };
    pc.onconnectionstatechange = () => {
      peer.state = pc.connectionState;
      if (pc.connectionState === 'failed') ctx.fail('The connection to a participant failed (no network path between you; a TURN server may be needed).');
      ctx.changed();
    };
    ctx.changed();
    return entry;
  };

  const close = (id: string) => {
    const entry = peers.get(id);
    if (!entry) return;
    entry.pc.close();
    peers.delete(id);
    ctx.unmeter(id);
    ctx.changed();
  };

  return {
    peers: () => [...peers.values()].map((entry) => entry.peer),
    streamOf: (id) => peers.get(id)?.peer.stream ?? null,
    async onSignal(from, signal: RtcSignal) {
      switch (signal.kind) {
        case 'join': {
          // A newcomer: those already in the call offer.
          close(from);
          const { pc } = connectionTo(from);
          await pc.setLocalDescription(await pc.createOffer());
          ctx.send({ kind: 'offer', sdp: pc.localDescription!.sdp }, from);
          return;
        }
        case 'offer': {
          const entry = connectionTo(from);
          await entry.pc.setRemoteDescription({ type: 'offer', sdp: signal.sdp });
          for (const candidate of entry.pending.splice(0)) await entry.pc.addIceCandidate(candidate);
          await entry.pc.setLocalDescription(await entry.pc.createAnswer());
          ctx.send({ kind: 'answer', sdp: entry.pc.localDescription!.sdp }, from);
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
        default:
          return; // the call server's signals are not for a mesh
      }
    },
    async replaceTrack(track) {
      for (const { pc } of peers.values()) {
        const sender = pc.getSenders().find((s) => s.track?.kind === track.kind);
        await sender?.replaceTrack(track);
      }
    },
    drop: close,
    close() {
      for (const id of [...peers.keys()]) close(id);
    },
  };
}
