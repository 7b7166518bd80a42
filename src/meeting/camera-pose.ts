import { Vector3 } from 'three';
import {
  AVATARS_OBJECT,
  AVATAR_FORCED_UPDATE_MS,
  AVATAR_POSITION_THRESHOLD,
  AVATAR_UPDATE_INTERVAL_MS,
  CursorArg,
  TransformUpdateArgs,
  type Vec3,
} from '../protocol/meeting';
import type { Viewer } from '../viewer/viewer';
import type { Participants } from './participants';
import type { RfcObjects } from './rfc-objects';

export interface CameraPose {
  /** From the meeting's frame step (not while following): this viewer's pose goes out when due. */
  send(now: number): void;
  /** A newcomer or new follower needs this viewer's pose now, not in up to 5 s. */
  resend(): void;
  dispose(): void;
}

export interface CameraPoseDeps {
  viewer: Pick<Viewer, 'world' | 'pointer' | 'navigation'>;
  call(object: string, fn: string, args: unknown[]): boolean;
  register: RfcObjects['register'];
  selfId(): string | null;
  participants: Pick<Participants, 'moveAvatar'>;
  /** Whom this viewer follows: their pose moves this viewer's camera too. */
  following(): string | null;
}

const scratchPosition = new Vector3();
const scratchTarget = new Vector3();

/**
 * The camera pose both ways, handleTransformUpdate(client id, camera position, camera target,
 * cursor?): this viewer's goes out at most every 50 ms, when it moved more than 0.1 or the cursor
 * changed, and at least every 5000 ms; another person's moves their avatar (and this camera while
 * following them). The cursor is the surface under the pointer, the viewer's one pick of the frame.
 */
export function createCameraPose(deps: CameraPoseDeps): CameraPose {
  const { viewer, call, selfId } = deps;
  const world = viewer.world;
  let lastSentAt = -Infinity;
  const lastPosition = new Vector3(Infinity, Infinity, Infinity);
  const lastTarget = new Vector3(Infinity, Infinity, Infinity);
  let pointerMoved = false;
  let lastCursor: Vec3 | null = null;

  const offs = [
    deps.register(AVATARS_OBJECT, {
      handleTransformUpdate(sender, args) {
        const parsed = TransformUpdateArgs.safeParse(args);
        if (!parsed.success) throw new Error(`handleTransformUpdate from ${sender}: bad arguments (${parsed.error.issues[0]?.message}).`);
        const [, position, target] = parsed.data;
        const cursor = args.length > 3 ? CursorArg.safeParse(args[3]) : null;
        deps.participants.moveAvatar(sender, position, target, cursor?.success ? cursor.data : null);
        if (deps.following() === sender) void viewer.navigation.setLookAt(position[0], position[1], position[2], target[0], target[1], target[2], true);
      },
    }),
    viewer.pointer.add('meeting', {
      move: () => void (pointerMoved = true),
      leave: () => void (pointerMoved = true),
    }),
  ];

  return {
    send(now) {
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
    resend() {
      lastSentAt = -Infinity;
    },
    dispose() {
      for (const off of offs) off();
    },
  };
}

/** Millimetres are enough on the wire (and keep frames small). */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function sameCursor(a: Vec3 | null, b: Vec3 | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) <= AVATAR_POSITION_THRESHOLD;
}
