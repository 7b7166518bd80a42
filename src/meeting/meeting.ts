import { Quaternion, Vector3 } from 'three';
import { addFrameStep } from '../engine/frame-steps';
import { enqueueMessage, onMessage } from '../engine/messages';
import {
  AVATARS_OBJECT,
  AVATAR_FORCED_UPDATE_MS,
  AVATAR_POSITION_THRESHOLD,
  AVATAR_UPDATE_INTERVAL_MS,
  CursorArg,
  FOLLOW_OBJECT,
  TransformUpdateArgs,
  VIEW_OBJECT,
  ViewState,
  displayName,
  type MeetingClient,
  type Rfc,
  type ServerMessage,
  type Vec3,
} from '../protocol/meeting';
import type { SharedSelection } from '../protocol/shared-tools';
import { sceneObjectsOf } from '../viewer/scene-objects';
import type { Viewer } from '../viewer/viewer';
import { avatarColor, despawnAvatar, setAvatarTarget, showAvatar, spawnAvatar, type AvatarEntry } from './avatars';
import { MeetingConnection, type ConnectionStatus, type SocketLike } from './connection';
import { createSharedSelections, type SharedSelections } from './shared-selection';
import { createSharedTools, type SharedTools } from './shared-tools';

/**
 * A meeting in the viewer (viewer specification sections 4 and 7, editor specification "avatars and
 * follow mode"): the connection, the participants, the avatars, follow mode. Socket messages that
 * change the scene are queued (`enqueueMessage`) and applied by the message system at its slot of
 * the frame; the camera's pose goes out from a frame step at most every 50 ms, only when it moved
 * more than 0.1, and at least every 5000 ms. Section planes and measurements made in the meeting
 * are everyone's, and each person's editor selection is shown to the others (shared-tools.ts,
 * shared-selection.ts); follow mode carries the followed person's camera, projection and those of
 * their planes that are their own. The UI hears everything as 'meeting' events on `viewer.events`
 * and acts through this interface.
 */

export interface MeetingParticipant {
  id: string;
  /** 'First Last', with ' (you)' for oneself. */
  name: string;
  self: boolean;
  /** 'rgb(...)' of their avatar. */
  color: string;
  /** This participant is the one being followed. */
  followed: boolean;
  /** This participant follows someone (their avatar is hidden). */
  following: boolean;
}

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

export type MeetingEventData =
  | { kind: 'state'; snapshot: MeetingSnapshot }
  | { kind: 'joined' | 'left'; name: string }
  | { kind: 'error'; message: string };

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
  register(object: string, handlers: Record<string, (senderId: string, args: unknown[]) => void>): () => void;
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

type Presence = { kind: 'state'; clients: MeetingClient[] } | { kind: 'joined'; client: MeetingClient } | { kind: 'left'; client: MeetingClient } | { kind: 'reset' };

const scratchPosition = new Vector3();
const scratchTarget = new Vector3();
/** A section plane's rotation turns +Z onto its normal. */
const PLANE_AXIS = new Vector3(0, 0, 1);

export function createMeeting(viewer: Viewer, options: MeetingOptions): Meeting {
  const world = viewer.world;
  const events = viewer.events;
  const avatarsEnabled = options.avatarsEnabled ?? true;
  const participants = new Map<string, MeetingClient>();
  const avatars = new Map<string, AvatarEntry>();
  /** Participants who follow someone: their avatars are hidden for everyone. */
  const followers = new Map<string, string>();
  const objects = new Map<string, Record<string, (senderId: string, args: unknown[]) => void>>();
  const rtcListeners = new Set<Parameters<Meeting['onRtc']>[0]>();
  let following: string | null = null;
  /** Set while a followed person's planes are being copied (see applyViewState). */
  let mirroring = false;
  let reason: string | null = null;
  let savedSections: { normal: Vec3; constant: number }[] | null = null;
  let mirroredSections: number[] = [];
  let disposed = false;

  const emitState = () => events.emit('meeting', { kind: 'state', snapshot: api.snapshot() });
  const report = (message: string) => events.emit('meeting', { kind: 'error', message });

  // ----- The connection: presence and RFCs are queued for the frame -----

  const connection = new MeetingConnection({
    url: options.url,
    token: options.token,
    createSocket: options.createSocket,
    onStatus: (status, detail) => {
      if (disposed) return; // stopping on dispose: nothing is left to tell
      if (detail.reason) reason = detail.reason;
      if (status === 'connected') reason = null;
      if (status !== 'connected') enqueueMessage(world, { source: 'meeting', type: PRESENCE_MESSAGE, payload: { kind: 'reset' } satisfies Presence });
      emitState();
    },
    onError: (error) => report(error.message),
    onMessage: (message) => {
      switch (message.type) {
        case 'AUTH_RESPONSE':
          emitState();
          return;
        case 'STATE':
          enqueueMessage(world, { source: 'meeting', type: PRESENCE_MESSAGE, payload: { kind: 'state', clients: message.clients } satisfies Presence });
          return;
        case 'USER_JOINED':
          enqueueMessage(world, { source: 'meeting', type: PRESENCE_MESSAGE, payload: { kind: 'joined', client: message.client } satisfies Presence });
          return;
        case 'USER_LEFT':
          enqueueMessage(world, { source: 'meeting', type: PRESENCE_MESSAGE, payload: { kind: 'left', client: message.client } satisfies Presence });
          return;
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

  // ----- Presence (applied in the frame) -----

  const selfId = () => connection.self?._id ?? null;

  const addParticipant = (client: MeetingClient, announce: boolean) => {
    if (participants.has(client._id)) return;
    participants.set(client._id, client);
    if (client._id !== selfId()) {
      avatars.set(client._id, spawnAvatar(world, client));
      if (announce) events.emit('meeting', { kind: 'joined', name: displayName(client) });
    }
  };

  const removeParticipant = (id: string, announce: boolean) => {
    const client = participants.get(id);
    if (!client) return;
    participants.delete(id);
    followers.delete(id);
    const avatar = avatars.get(id);
    if (avatar) {
      despawnAvatar(world, avatar);
      avatars.delete(id);
    }
    if (announce && id !== selfId()) events.emit('meeting', { kind: 'left', name: displayName(client) });
    tools.left(id);
    selections.left(id);
    // Following stops when the followed person leaves.
    if (following === id) stopFollowing(false);
  };

  const avatarShown = (id: string) => avatarsEnabled && following === null && !followers.has(id);
  const refreshAvatars = () => {
    for (const [id, avatar] of avatars) showAvatar(world, avatar, avatarShown(id));
  };

  onMessage(world, PRESENCE_MESSAGE, (_world, payload) => {
    const presence = payload as Presence;
    switch (presence.kind) {
      case 'reset':
        for (const id of [...participants.keys()]) removeParticipant(id, false);
        if (following) stopFollowing(false);
        tools.disconnected();
        selections.disconnected();
        break;
      case 'state': {
        const listed = new Set(presence.clients.map((c) => c._id));
        const first = participants.size === 0;
        for (const id of [...participants.keys()]) if (!listed.has(id)) removeParticipant(id, true);
        for (const client of presence.clients) addParticipant(client, !first);
        const self = selfId();
        if (first && self !== null) {
          // (Re)connected: the shared planes and measurements are asked for, our selection goes out.
          tools.connected(self, [...listed]);
          selections.announce();
        }
        break;
      }
      case 'joined':
        addParticipant(presence.client, true);
        // A newcomer needs our selection (only we can tell it).
        selections.announce();
        // A newcomer needs our pose now, not in up to 5 s.
        lastSentAt = -Infinity;
        if (following) call(FOLLOW_OBJECT, 'handleStartFollowRfc', [selfId(), following]);
        if (followedBy.size > 0) {
          viewDirty = true;
          lastView = '';
        }
        break;
      case 'left':
        removeParticipant(presence.client._id, true);
        followedBy.delete(presence.client._id);
        break;
    }
    emitState();
  });

  // A call nobody here knows, or one whose handler fails (bad arguments), is reported (console and
  // notice), never thrown into the frame.
  onMessage(world, RFC_MESSAGE, (_world, payload) => {
    const rfc = payload as Rfc;
    const target = objects.get(rfc.object);
    const handler = target && Object.hasOwn(target, rfc.function) ? target[rfc.function] : undefined;
    if (!handler) return report(`Another participant called '${rfc.function}' on the meeting's object '${rfc.object}', which this viewer does not have.`);
    const sender = rfc.args[0];
    if (typeof sender !== 'string') return report(`The call ${rfc.object}.${rfc.function} has no sender id.`);
    try {
      handler(sender, rfc.args);
    } catch (error) {
      report(error instanceof Error ? error.message : String(error));
    }
  });

  // ----- Avatars: handleTransformUpdate(client id, camera position, camera target, cursor?) -----

  objects.set(AVATARS_OBJECT, {
    handleTransformUpdate(sender, args) {
      const parsed = TransformUpdateArgs.safeParse(args);
      if (!parsed.success) throw new Error(`handleTransformUpdate from ${sender}: bad arguments (${parsed.error.issues[0]?.message}).`);
      const [, position, target] = parsed.data;
      const cursor = args.length > 3 ? CursorArg.safeParse(args[3]) : null;
      const avatar = avatars.get(sender);
      if (avatar) setAvatarTarget(world, avatar, position, target, cursor?.success ? cursor.data : null, avatarShown(sender));
      if (following === sender) void viewer.navigation.setLookAt(position[0], position[1], position[2], target[0], target[1], target[2], true);
    },
  });

  // ----- Follow mode -----

  /** Participants that follow this viewer. */
  const followedBy = new Set<string>();

  objects.set(FOLLOW_OBJECT, {
    handleStartFollowRfc(sender, args) {
      const followed = typeof args[1] === 'string' ? args[1] : null;
      followers.set(sender, followed ?? '');
      if (followed === selfId()) {
        followedBy.add(sender);
        viewDirty = true;
        lastView = ''; // the new follower needs it whether or not it changed
        lastSentAt = -Infinity;
      } else {
        followedBy.delete(sender);
      }
      refreshAvatars();
      emitState();
    },
    handleStopFollowRfc(sender) {
      followers.delete(sender);
      followedBy.delete(sender);
      refreshAvatars();
      emitState();
    },
  });

  objects.set(VIEW_OBJECT, {
    handleViewState(sender, args) {
      if (sender !== following) return;
      const parsed = ViewState.safeParse(args[1]);
      if (!parsed.success) throw new Error(`handleViewState from ${sender}: bad view (${parsed.error.issues[0]?.message}).`);
      applyViewState(parsed.data);
    },
  });

  const viewState = (): ViewState => ({
    projection: world.view.projection,
    zoom: world.view.projection === 'Orthographic' ? world.view.zoom : 1,
    fov: world.view.fov,
    // The planes that are this person's own: the meeting's planes reach a follower anyway, and
    // the ones mirrored from whoever this person follows are theirs.
    sections: ownSections().map((s) => ({ normal: [s.normal.x, s.normal.y, s.normal.z] as Vec3, constant: s.constant })),
  });

  const ownSections = () => viewer.tools.sections.list().filter((s) => !mirroredSections.includes(s.id) && !tools.isSharedSection(s.id));

  // Sent only when it changed (a plane being dragged changes it every frame) and at most every 50 ms.
  let lastView = '';
  let lastViewAt = -Infinity;
  const sendViewState = (force = false): boolean => {
    if (followedBy.size === 0) return true;
    const now = performance.now();
    if (!force && now - lastViewAt < AVATAR_UPDATE_INTERVAL_MS) return false;
    const view = viewState();
    const text = JSON.stringify(view);
    if (!force && text === lastView) return true;
    lastView = text;
    lastViewAt = now;
    call(VIEW_OBJECT, 'handleViewState', [selfId(), view]);
    return true;
  };

  const applyViewState = (view: ViewState) => {
    if (viewer.navigation.projection !== view.projection) viewer.navigation.setProjection(view.projection);
    if (view.projection === 'Orthographic') void viewer.navigation.zoomTo(view.zoom, true);
    const sections = viewer.tools.sections;
    // The copies are the follower's own (not shared), placed without selecting them, and
    // whatever they set off is not the follower enabling a tool: it does not stop following.
    mirroring = true;
    try {
      tools.unshared(() => mirrorSections(sections, view));
    } finally {
      mirroring = false;
    }
    world.render.needsRender = true;
  };

  const mirrorSections = (sections: Viewer['tools']['sections'], view: ViewState) => {
    for (const id of mirroredSections) sections.remove(id);
    mirroredSections = [];
    const point = new Vector3();
    const normal = new Vector3();
    const rotation = new Quaternion();
    for (const plane of view.sections) {
      normal.set(plane.normal[0], plane.normal[1], plane.normal[2]);
      if (normal.lengthSq() < 1e-12) continue; // not a plane
      normal.normalize();
      point.copy(normal).multiplyScalar(-plane.constant);
      const id = sections.place(point, rotation.setFromUnitVectors(PLANE_AXIS, normal));
      if (id) mirroredSections.push(id);
    }
  };

  const startFollowing = (id: string) => {
    if (following === id) return;
    if (following) stopFollowing(true);
    if (!participants.has(id) || id === selfId()) throw new Error(`Cannot follow '${id}': not another participant of this meeting.`);
    following = id;
    // Follow mode and a tool do not mix: the tool goes, the follower's own planes are put aside
    // (the meeting's planes stay: the followed person has them too).
    if (viewer.tools.active) viewer.tools.deactivate();
    const sections = viewer.tools.sections;
    const own = ownSections();
    savedSections = own.map((s) => ({ normal: [s.normal.x, s.normal.y, s.normal.z] as Vec3, constant: s.constant }));
    tools.unshared(() => {
      for (const s of own) sections.remove(s.id);
    });
    call(FOLLOW_OBJECT, 'handleStartFollowRfc', [selfId(), id]);
    refreshAvatars();
    emitState();
  };

  const stopFollowing = (announce: boolean) => {
    if (following === null) return;
    following = null;
    const sections = viewer.tools.sections;
    const saved = savedSections;
    savedSections = null;
    // The follower's own planes come back as their own (not shared).
    tools.unshared(() => {
      for (const id of mirroredSections) sections.remove(id);
      mirroredSections = [];
      if (!saved) return;
      const point = new Vector3();
      const normal = new Vector3();
      const rotation = new Quaternion();
      for (const plane of saved) {
        normal.set(plane.normal[0], plane.normal[1], plane.normal[2]).normalize();
        sections.place(point.copy(normal).multiplyScalar(-plane.constant), rotation.setFromUnitVectors(PLANE_AXIS, normal));
      }
    });
    if (announce) call(FOLLOW_OBJECT, 'handleStopFollowRfc', [selfId()]);
    refreshAvatars();
    emitState();
    world.render.needsRender = true;
  };

  const offs: (() => void)[] = [];
  // Following stops when another tool is enabled.
  offs.push(
    events.on('tool', ({ tool }) => {
      if (tool !== null && following && !mirroring) stopFollowing(true);
    }),
  );
  // Followers see this viewer's projection and section planes as they change: sent from the frame
  // step, after the section plane system derived the planes of this frame.
  let viewDirty = false;
  offs.push(events.on('navigation', () => (viewDirty = true)));
  offs.push(events.on('section', () => (viewDirty = true)));

  // ----- The camera's pose out: at most every 50 ms, when moved > 0.1, forced every 5000 ms -----

  let lastSentAt = -Infinity;
  const lastPosition = new Vector3(Infinity, Infinity, Infinity);
  const lastTarget = new Vector3(Infinity, Infinity, Infinity);
  // The cursor others see: the surface under this person's pointer, the viewer's one pick of the frame.
  let pointerMoved = false;
  let lastCursor: Vec3 | null = null;
  offs.push(
    viewer.pointer.add('meeting', {
      move: () => void (pointerMoved = true),
      leave: () => void (pointerMoved = true),
    }),
  );

  const sendStep = {
    name: 'meeting: camera pose',
    run: () => {
      if (!connection.connected) return;
      const now = performance.now();
      // After the helpers: the planes and measurements of this frame are up to date.
      tools.flush(now);
      selections.flush(now);
      if (viewDirty && sendViewState()) viewDirty = false;
      if (following) return;
      if (now - lastSentAt < AVATAR_UPDATE_INTERVAL_MS) return;
      // The view pose as the navigation wrote it this frame (world.view).
      scratchPosition.copy(world.view.position);
      scratchTarget.copy(world.view.target);
      const moved = scratchPosition.distanceTo(lastPosition) > AVATAR_POSITION_THRESHOLD || scratchTarget.distanceTo(lastTarget) > AVATAR_POSITION_THRESHOLD;
      let cursorChanged = false;
      if (pointerMoved) {
        pointerMoved = false;
        const hit = viewer.pointer.hit();
        const cursor: Vec3 | null = hit ? [round(hit.point.x), round(hit.point.y), round(hit.point.z)] : null;
        cursorChanged = !sameCursor(cursor, lastCursor);
        lastCursor = cursor;
      }
      if (!moved && !cursorChanged && now - lastSentAt < AVATAR_FORCED_UPDATE_MS) return;
      lastSentAt = now;
      lastPosition.copy(scratchPosition);
      lastTarget.copy(scratchTarget);
      call(AVATARS_OBJECT, 'handleTransformUpdate', [
        selfId(),
        [round(scratchPosition.x), round(scratchPosition.y), round(scratchPosition.z)],
        [round(scratchTarget.x), round(scratchTarget.y), round(scratchTarget.z)],
        lastCursor,
      ]);
    },
  };
  offs.push(addFrameStep(world, 'overlays', sendStep));

  const call = (object: string, fn: string, args: unknown[]): boolean => connection.send({ type: 'RFC', object, function: fn, args: args.length ? args : [selfId()] });

  const register: Meeting['register'] = (object, handlers) => {
    if (objects.has(object)) throw new Error(`The meeting object '${object}' is already registered.`);
    objects.set(object, handlers);
    return () => objects.delete(object);
  };

  // ----- Shared tools: planes, measurements, the editors' selections -----

  const tools: SharedTools = createSharedTools({ call, register }, { world, events, sections: viewer.tools.sections, measurements: viewer.tools.measurements }, { report });
  const selections: SharedSelections = createSharedSelections(
    { call, register, selfId },
    {
      world,
      scene: viewer.context.scene,
      labels: viewer.tools.labels,
      person: (id) => {
        const client = participants.get(id);
        return client && id !== selfId() ? { name: displayName(client), color: avatarColor(id) } : null;
      },
      sceneObject: (uuid) => {
        const entry = sceneObjectsOf(world, viewer.context.scene).get(uuid);
        return entry ? { eid: entry.eid, name: entry.data.name } : null;
      },
    },
    report,
  );

  const api: Meeting = {
    get status() {
      return connection.status;
    },
    snapshot() {
      const self = selfId();
      const list: MeetingParticipant[] = [];
      for (const client of participants.values()) {
        const avatar = avatars.get(client._id);
        list.push({
          id: client._id,
          name: displayName(client, self),
          self: client._id === self,
          color: avatar ? `#${avatar.material.color.getHexString()}` : '#888888',
          followed: following === client._id,
          following: followers.has(client._id),
        });
      }
      // Oneself first, then by name.
      list.sort((a, b) => (a.self !== b.self ? (a.self ? -1 : 1) : a.name.localeCompare(b.name)));
      return { status: connection.status, reason, selfId: self, participants: list, following, avatarsEnabled };
    },
    follow(clientId) {
      if (clientId === null) stopFollowing(true);
      else startFollowing(clientId);
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
      return { synced: tools.synced, objects: tools.list(), selections: selections.shown().map(({ clientId, label, visible }) => ({ clientId, label, visible })) };
    },
    leave() {
      if (following) stopFollowing(true);
      connection.stop();
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      connection.stop();
      for (const off of offs) off();
      tools.dispose();
      selections.dispose();
      world.messages.handlers.delete(RFC_MESSAGE);
      world.messages.handlers.delete(PRESENCE_MESSAGE);
      // What the socket queued and the frame has not applied yet has nobody to apply it now.
      const queue = world.messages.queue;
      for (let i = queue.length - 1; i >= 0; i--) if (queue[i].type === RFC_MESSAGE || queue[i].type === PRESENCE_MESSAGE) queue.splice(i, 1);
      for (const avatar of avatars.values()) despawnAvatar(world, avatar);
      avatars.clear();
      participants.clear();
    },
  };
  connection.start();
  return api;
}

/** Centimetres are enough on the wire (and keep frames small). */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function sameCursor(a: Vec3 | null, b: Vec3 | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) <= AVATAR_POSITION_THRESHOLD;
}

export type { ConnectionStatus } from './connection';
