import { Quaternion, Vector3 } from 'three';
import { AVATAR_UPDATE_INTERVAL_MS, FOLLOW_OBJECT, VIEW_OBJECT, ViewState, type Vec3 } from '../protocol/meeting';
import type { Viewer } from '../viewer/viewer';
import type { Participants } from './participants';
import type { RfcObjects } from './rfc-objects';
import type { SharedTools } from './shared-tools';

export interface FollowMode {
  /** The client id this viewer follows, or null. */
  readonly following: string | null;
  /** Follows another participant (stops any other follow). */
  start(id: string): void;
  /** Stops following (`announce`: tells the others). */
  stop(announce: boolean): void;
  /** A newcomer: told whom this viewer follows, and sent this viewer's view if anyone follows it. */
  joined(): void;
  /** Someone who left no longer follows this viewer. */
  forget(id: string): void;
  /** From the meeting's frame step: the view goes out to followers when it changed. */
  flush(): void;
  dispose(): void;
}

export interface FollowModeDeps {
  viewer: Viewer;
  call(object: string, fn: string, args: unknown[]): boolean;
  register: RfcObjects['register'];
  selfId(): string | null;
  participants: Participants;
  tools: Pick<SharedTools, 'unshared' | 'isSharedSection'>;
  /** A new follower needs this viewer's camera pose now (camera-pose.ts). */
  resendPose(): void;
  /** Follow mode changed who follows whom: avatars and the UI's state. */
  changed(): void;
}

/** A section plane's rotation turns +Z onto its normal. */
const PLANE_AXIS = new Vector3(0, 0, 1);

/**
 * Follow mode (editor specification "avatars and follow mode"): the follower's camera goes with the
 * followed person's pose (camera-pose.ts), and their projection and those of their planes that are
 * their own come as view states (VIEW_OBJECT). Starting puts the follower's own planes aside and any
 * tool away; stopping brings the planes back; enabling a tool stops it.
 */
export function createFollowMode(deps: FollowModeDeps): FollowMode {
  const { viewer, call, selfId, participants, tools } = deps;
  const world = viewer.world;
  let following: string | null = null;
  /** Set while a followed person's planes are being copied (see applyViewState). */
  let mirroring = false;
  let savedSections: { normal: Vec3; constant: number }[] | null = null;
  let mirroredSections: number[] = [];
  /** Participants that follow this viewer. */
  const followedBy = new Set<string>();
  // Sent only when it changed (a plane being dragged changes it every frame) and at most every 50 ms.
  let viewDirty = false;
  let lastView = '';
  let lastViewAt = -Infinity;

  const ownSections = () => viewer.tools.sections.list().filter((s) => !mirroredSections.includes(s.id) && !tools.isSharedSection(s.id));

  const viewState = (): ViewState => ({
    projection: world.view.projection,
    zoom: world.view.projection === 'Orthographic' ? world.view.zoom : 1,
    fov: world.view.fov,
    // The planes that are this person's own: the meeting's planes reach a follower anyway, and
    // the ones mirrored from whoever this person follows are theirs.
    sections: ownSections().map((s) => ({ normal: [s.normal.x, s.normal.y, s.normal.z] as Vec3, constant: s.constant })),
  });

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

  const start = (id: string) => {
    if (following === id) return;
    if (following) stop(true);
    if (!participants.clients.has(id) || id === selfId()) throw new Error(`Cannot follow '${id}': not another participant of this meeting.`);
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
    deps.changed();
  };

  const stop = (announce: boolean) => {
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
    deps.changed();
    world.render.needsRender = true;
  };

  const offs = [
    deps.register(FOLLOW_OBJECT, {
      handleStartFollowRfc(sender, args) {
        const followed = typeof args[1] === 'string' ? args[1] : null;
        participants.followers.set(sender, followed ?? '');
        if (followed === selfId()) {
          followedBy.add(sender);
          viewDirty = true;
          lastView = ''; // the new follower needs it whether or not it changed
          deps.resendPose();
        } else {
          followedBy.delete(sender);
        }
        deps.changed();
      },
      handleStopFollowRfc(sender) {
        participants.followers.delete(sender);
        followedBy.delete(sender);
        deps.changed();
      },
    }),
    deps.register(VIEW_OBJECT, {
      handleViewState(sender, args) {
        if (sender !== following) return;
        const parsed = ViewState.safeParse(args[1]);
        if (!parsed.success) throw new Error(`handleViewState from ${sender}: bad view (${parsed.error.issues[0]?.message}).`);
        applyViewState(parsed.data);
      },
    }),
    // Following stops when another tool is enabled.
    viewer.events.on('tool', ({ tool }) => {
      if (tool !== null && following && !mirroring) stop(true);
    }),
    // Followers see this viewer's projection and section planes as they change: sent from the
    // meeting's frame step, after the section plane system derived the planes of this frame.
    viewer.events.on('navigation', () => (viewDirty = true)),
    viewer.events.on('section', () => (viewDirty = true)),
  ];

  return {
    get following() {
      return following;
    },
    start,
    stop,
    joined() {
      if (following) call(FOLLOW_OBJECT, 'handleStartFollowRfc', [selfId(), following]);
      if (followedBy.size > 0) {
        viewDirty = true;
        lastView = '';
      }
    },
    forget(id) {
      followedBy.delete(id);
    },
    flush() {
      if (viewDirty && sendViewState()) viewDirty = false;
    },
    dispose() {
      for (const off of offs) off();
    },
  };
}
