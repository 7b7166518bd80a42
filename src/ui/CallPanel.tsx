import { useEffect, useRef } from 'react';
import type { MeetingParticipant } from '../meeting/meeting';
import type { Call, CallSnapshot } from '../meeting/call';

/**
 * Audio and video of the meeting: the call's controls (join, mute, camera, devices, leave) and the
 * video tiles, each with the person's name and a ring while they speak. Streams come from the call
 * (they are not UI state); the store's snapshot says what to show.
 */
export function CallControls({ call, snap }: { call: Call; snap: CallSnapshot }) {
  if (!snap.joined) {
    return (
      <div className="call-controls">
        <button type="button" data-testid="call-join" disabled={snap.starting} onClick={() => void call.join()}>
          {snap.starting ? 'Starting…' : snap.videoEnabled ? 'Join call (audio and video)' : 'Join call (audio)'}
        </button>
        {snap.error && (
          <p className="meeting-error" role="alert" data-testid="call-error">
            {snap.error}
          </p>
        )}
      </div>
    );
  }
  return (
    <div className="call-controls" data-testid="call-controls" data-mode={snap.mode ?? undefined}>
      <div className="meeting-row">
        <button type="button" aria-pressed={snap.muted} data-testid="call-mute" onClick={() => call.setMuted(!snap.muted)}>
          {snap.muted ? 'Unmute' : 'Mute'}
        </button>
        {snap.videoEnabled && (
          <button type="button" aria-pressed={!snap.cameraOn} data-testid="call-camera" onClick={() => call.setCameraOn(!snap.cameraOn)}>
            {snap.cameraOn ? 'Camera off' : 'Camera on'}
          </button>
        )}
        <button type="button" data-testid="call-leave" onClick={() => call.leave()}>
          Leave call
        </button>
      </div>
      {snap.devices.audio.length > 1 && (
        <label className="call-device">
          Microphone
          <select value={snap.audioDevice ?? ''} onChange={(e) => void call.useDevice('audio', e.target.value)}>
            {snap.devices.audio.map((d) => (
              <option key={d.id} value={d.id}>
                {d.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {snap.videoEnabled && snap.devices.video.length > 1 && (
        <label className="call-device">
          Camera
          <select value={snap.videoDevice ?? ''} onChange={(e) => void call.useDevice('video', e.target.value)}>
            {snap.devices.video.map((d) => (
              <option key={d.id} value={d.id}>
                {d.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {snap.error && (
        <p className="meeting-error" role="alert" data-testid="call-error">
          {snap.error}
        </p>
      )}
    </div>
  );
}

function VideoTile({ stream, name, speaking, self, video }: { stream: MediaStream | null; name: string; speaking: boolean; self: boolean; video: boolean }) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (element && element.srcObject !== stream) element.srcObject = stream;
  }, [stream]);
  return (
    <div className={`call-tile${speaking ? ' speaking' : ''}`} data-testid="call-tile" data-self={self || undefined} data-speaking={speaking || undefined}>
      {/* One's own tile is muted (no echo); remote audio plays through the tile's element. */}
      <video ref={ref} autoPlay playsInline muted={self} className={video ? '' : 'no-video'} />
      <span className="call-name">{name}</span>
    </div>
  );
}

export function CallTiles({ call, snap, participants }: { call: Call; snap: CallSnapshot; participants: readonly MeetingParticipant[] }) {
  if (!snap.joined) return null;
  const name = (id: string) => participants.find((p) => p.id === id)?.name ?? 'Someone';
  const self = participants.find((p) => p.self);
  return (
    <div className="call-tiles" data-testid="call-tiles">
      <VideoTile stream={call.localStream} name={self?.name ?? 'You'} speaking={snap.speaking} self video={snap.videoEnabled && snap.cameraOn} />
      {snap.peers.map((peer) => (
        <VideoTile key={peer.id} stream={call.streamOf(peer.id)} name={name(peer.id)} speaking={peer.speaking} self={false} video={peer.hasVideo} />
      ))}
    </div>
  );
}
