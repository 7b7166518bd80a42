import { addFrameStep } from '../engine/frame-steps';
import { enqueueMessage, onMessage } from '../engine/messages';
import { displayName, type MeetingClient, type Rfc, type ServerMessage } from '../protocol/meeting';
import type { SharedSelection } from '../protocol/shared-tools';
import { sceneObjectsOf } from '../viewer/scene-objects';
import type { Viewer } from '../viewer/viewer';
import { avatarColor } from './avatars';
import { createCameraPose } from './camera-pose';
import { MeetingConnection, type ConnectionStatus, type SocketLike } from './connection';
import { createFollowMode } from './follow-mode';
import { createParticipants, type MeetingParticipant } from './participants';
import { createRfcObjects, type RfcHandlers } from './rfc-objects';
import { createSharedSelections, type SharedSelections } from './shared-selection';
import { createSharedTools, type SharedTools } from './shared-tools';

/**
 * A meeting in the viewer (viewer specification sections 4 and 7, editor specification "avatars and
 * follow mode"): the connection, the participants and their avatars (participants.ts), follow mode
 * (follow-mode.ts), the camera pose (camera-pose.ts), the calls on the meeting's objects
 * (rfc-objects.ts). Socket messages that change the scene are queued (`enqueueMessage`) and applied
 * by the message system at its slot of the frame; the camera's pose goes out from a frame step at
 * most every 50 ms, only when it moved more than 0.1, and at least every 5000 ms. Section planes and
 * measurements made in the meeting are everyone's, and each person's editor selection is shown to
 * the others (shared-tools.ts, shared-selection.ts); follow mode carries the followed person's
 * camera, projection and those of their planes that are their own. The UI hears everything as
 * 'meeting' events on `viewer.events` and acts through this interface.
 */

export interface MeetingSnapshot {
  status: ConnectionStatus;
  /** Why the last connection ended or failed (shown while reconnecting or stopped). */
  reason: string | null;
  selfId: string | null;
  participants: MeetingParticipant[];
  /** The client id this viewer follows, or null. */
  following: string | null;
  avatarsEnabled: boolean;
}

export type MeetingEventData = { kind: 'state'; snapshot: MeetingSnapshot } | { kind: 'joined' | 'left'; name: string } | { kind: 'error'; message: string };

declare module '../viewer/events' {
  interface ViewerEventMap {
    /** The meeting changed (participants, status, follow), someone joined or left, or an error. */
    meeting: MeetingEventData;
  }
}

export interface MeetingOptions {
  /** The ws(s) URL of the scene's meeting. */
  url: string;
  token: () => Promise<string>;
  /** uiConfig.rtcAvatarsEnabled (default true). */
  avatarsEnabled?: boolean;
  createSocket?: (url: string) => SocketLike;
}

export interface Meeting {
  readonly status: ConnectionStatus;
  snapshot(): MeetingSnapshot;
  /** Follows a participant (stops any other follow); null stops following. */
  follow(clientId: string | null): void;
  /** Sends an RFC on a registered object to the others (args[0] becomes this client's id). */
  call(object: string, fn: string, args: unknown[]): boolean;
  /** Registers a handler for RFCs on `object` (e.g. shared tools); applied in the frame. */
  register(object: string, handlers: RfcHandlers): () => void;
  /** Incoming RTC messages (USER_JOINED_RTC, RTC_RESPONSE) for the audio/video part. */
  onRtc(listener: (message: Extract<ServerMessage, { type: 'RTC_RESPONSE' | 'USER_JOINED_RTC' }>) => void): () => void;
  sendRtc(content: { to?: string; signal: unknown }): boolean;
  /** This person's editor selection, shown to the others in their colour (null: nothing selected). */
  shareSelection(selection: SharedSelection): void;
  /** The shared tools as this viewer holds them (tests, the page's test hooks). */
  shared(): { synced: boolean; objects: ReturnType<SharedTools['list']>; selections: { clientId: string; label: string; visible: boolean }[] };
  leave(): void;
  dispose(): void;
}

const RFC_MESSAGE = 'meeting.rfc';
const PRESENCE_MESSAGE = 'meeting.presence';

type Presence =
  { kind: 'state'; clients: MeetingClient[] } | { kind: 'joined'; client: MeetingClient } | { kind: 'left'; client: MeetingClient } | { kind: 'reset' };

export function createMeeting(viewer: Viewer, options: MeetingOptions): Meeting {
  const world = viewer.world;
  const events = viewer.events;
  const avatarsEnabled = options.avatarsEnabled ?? true;
  const rtcListeners = new Set<Parameters<Meeting['onRtc']>[0]>();
  let reason: string | null = null;
  let disposed = false;

  const emitState = () => events.emit('meeting', { kind: 'state', snapshot: api.snapshot() });
  const report = (message: string) => events.emit('meeting', { kind: 'error', message });
  const objects = createRfcObjects(report);
  const register = objects.register;

  // ----- The connection: presence and RFCs are queued for the frame -----

  const queuePresence = (payload: Presence) => enqueueMessage(world, { source: 'meeting', type: PRESENCE_MESSAGE, payload });
  const connection = new MeetingConnection({
    url: options.url,
    token: options.token,
    createSocket: options.createSocket,
    onStatus: (status, detail) => {
      if (disposed) return; // stopping on dispose: nothing is left to tell
      if (detail.reason) reason = detail.reason;
      if (status === 'connected') reason = null;
      if (status !== 'connected') queuePresence({ kind: 'reset' });
      emitState();
    },
    onError: (error) => report(error.message),
    onMessage: (message) => {
      switch (message.type) {
        case 'AUTH_RESPONSE':
          emitState();
          return;
        case 'STATE':
          return queuePresence({ kind: 'state', clients: message.clients });
        case 'USER_JOINED':
          return queuePresence({ kind: 'joined', client: message.client });
        case 'USER_LEFT':
          return queuePresence({ kind: 'left', client: message.client });
        case 'RFC':
          enqueueMessage(world, { source: 'meeting', type: RFC_MESSAGE, payload: message });
          return;
        case 'RTC_RESPONSE':
        case 'USER_JOINED_RTC':
          for (const listener of rtcListeners) listener(message);
          return;
        case 'ERROR':
          report(`The meeting server refused a message: ${message.error}`);
          return;
      }
    },
  });

  const selfId = () => connection.self?._id ?? null;
  const call = (object: string, fn: string, args: unknown[]): boolean =>
    connection.send({ type: 'RFC', object, function: fn, args: args.length ? args : [selfId()] });
  const participants = createParticipants(world, events, { avatarsEnabled, selfId, following: () => follow.following });

  // ----- Presence (applied in the frame) -----

  const removeParticipant = (id: string, announce: boolean) => {
    if (!participants.remove(id, announce)) return;
    tools.left(id);
    selections.left(id);
    // Following stops when the followed person leaves.
    if (follow.following === id) follow.stop(false);
  };

  onMessage(world, PRESENCE_MESSAGE, (_world, payload) => {
    const presence = payload as Presence;
    switch (presence.kind) {
      case 'reset':
        for (const id of [...participants.clients.keys()]) removeParticipant(id, false);
        follow.stop(false);
        tools.disconnected();
        selections.disconnected();
        break;
      case 'state': {
        const listed = new Set(presence.clients.map((c) => c._id));
        const first = participants.clients.size === 0;
        for (const id of [...participants.clients.keys()]) if (!listed.has(id)) removeParticipant(id, true);
        for (const client of presence.clients) participants.add(client, !first);
        const self = selfId();
        if (first && self !== null) {
          // (Re)connected: the shared planes and measurements are asked for, our selection goes out.
          tools.connected(self, [...listed]);
          selections.announce();
        }
        break;
      }
      case 'joined':
        participants.add(presence.client, true);
        // A newcomer needs our selection (only we can tell it), our pose and whom we follow.
        selections.announce();
        pose.resend();
        follow.joined();
        break;
      case 'left':
        removeParticipant(presence.client._id, true);
        follow.forget(presence.client._id);
        break;
    }
    emitState();
  });

  onMessage(world, RFC_MESSAGE, (_world, payload) => objects.dispatch(payload as Rfc));

  // ----- Out: the shared tools, the view for followers, the camera pose; after the helpers -----

  const removeSendStep = addFrameStep(world, 'overlays', {
    name: 'meeting: camera pose',
    run: () => {
      if (!connection.connected) return;
      const now = performance.now();
      // After the helpers: the planes and measurements of this frame are up to date.
      tools.flush(now);
      selections.flush(now);
      follow.flush();
      if (!follow.following) pose.send(now);
    },
  });

  // ----- Shared tools: planes, measurements, the editors' selections -----

  const tools: SharedTools = createSharedTools(
    { call, register },
    { world, events, sections: viewer.tools.sections, measurements: viewer.tools.measurements },
    { report },
  );
  const selections: SharedSelections = createSharedSelections(
    { call, register, selfId },
    {
      world,
      scene: viewer.context.scene,
      labels: viewer.tools.labels,
      person: (id) => {
        const client = participants.clients.get(id);
        return client && id !== selfId() ? { name: displayName(client), color: avatarColor(id) } : null;
      },
      sceneObject: (uuid) => {
        const entry = sceneObjectsOf(world, viewer.context.scene).get(uuid);
        return entry ? { eid: entry.eid, name: entry.data.name } : null;
      },
    },
    report,
  );

  // ----- Follow mode and the camera pose -----

  const follow = createFollowMode({
    viewer,
    call,
    register,
    selfId,
    participants,
    tools,
    resendPose: () => pose.resend(),
    changed: () => {
      participants.refreshAvatars();
      emitState();
    },
  });
  const pose = createCameraPose({ viewer, call, register, selfId, participants, following: () => follow.following });

  const api: Meeting = {
    get status() {
      return connection.status;
    },
    snapshot() {
      return { status: connection.status, reason, selfId: selfId(), participants: participants.list(), following: follow.following, avatarsEnabled };
    },
    follow(clientId) {
      if (clientId === null) follow.stop(true);
      else follow.start(clientId);
    },
    call,
    register,
    onRtc(listener) {
      rtcListeners.add(listener);
      return () => rtcListeners.delete(listener);
    },
    sendRtc(content) {
      return connection.send({ type: 'RTC_REQUEST', content: content as never });
    },
    shareSelection(selection) {
      selections.publish(selection);
    },
    shared() {
      return {
        synced: tools.synced,
        objects: tools.list(),
        selections: selections.shown().map(({ clientId, label, visible }) => ({ clientId, label, visible })),
      };
    },
    leave() {
      follow.stop(true);
      connection.stop();
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      connection.stop();
      follow.dispose();
      pose.dispose();
      removeSendStep();
      tools.dispose();
      selections.dispose();
      world.messages.handlers.delete(RFC_MESSAGE);
      world.messages.handlers.delete(PRESENCE_MESSAGE);
      // What the socket queued and the frame has not applied yet has nobody to apply it now.
      const queue = world.messages.queue;
      for (let i = queue.length - 1; i >= 0; i--) if (queue[i].type === RFC_MESSAGE || queue[i].type === PRESENCE_MESSAGE) queue.splice(i, 1);
      participants.clear();
    },
  };
  connection.start();
  return api;
}

export type { ConnectionStatus } from './connection';
export type { MeetingParticipant } from './participants';
