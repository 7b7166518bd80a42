import { addFrameStep } from '../../engine/frame-steps';
import type { ViewerWorld } from '../../engine/world';
import type { PickHit } from '../pick-types';
import { createClickTracker, createDoubleClickDetector } from './click-tracker';

/**
 * The order in which pointer handlers are offered a press, a click, a double click and the wheel,
 * first to last, whatever the order they were added in (as keymap.ts's contexts are for keys): the
 * editor's gizmo handles, the section plane's gizmo, the active viewer tool (measurements, the
 * sampler, the scene click; comment placing is its click hook, offered first), the editor's box
 * selection, the meeting's pointer (the cursor others see), navigation (the wheel).
 */
export const POINTER_ORDER = ['gizmo', 'section-gizmo', 'tool', 'selection', 'meeting', 'navigation'] as const;
export type PointerSlot = (typeof POINTER_ORDER)[number];

export type PointerPhase = 'down' | 'move' | 'up' | 'cancel';

/** One pointer event as a source reports it; the source fills one object again for each event. */
export interface PointerSample {
  id: number;
  /** Client pixels. */
  x: number;
  y: number;
  time: number;
  button: number;
  buttons: number;
  shift: boolean;
  primary: boolean;
  /** 'mouse', 'pen', 'touch' (DOM pointerType). */
  kind: string;
  /** The event was on the viewer's canvas (not a panel, label or overlay drawn over it). */
  onCanvas: boolean;
}

/**
 * What a part of the viewer or editor takes from the pointer; every method is optional.
 * Coordinates are client pixels.
 */
export interface PointerHandler {
  /** Every event the source reports, before it is dispatched (the pointer kind, the touch loupe). Read `sample` at once: it is reused. */
  watch?(phase: PointerPhase, sample: PointerSample): void;
  /**
   * A left press on the canvas without Shift: true takes it as a handle drag (lower handlers are
   * not offered it). Camera input is then off until the release.
   */
  grab?(clientX: number, clientY: number): boolean;
  /** The grabbed pointer moved: once per frame (the frame's input slot), and once more right before `release` if a move is pending. */
  drag?(clientX: number, clientY: number): void;
  release?(clientX: number, clientY: number): void;
  /** A left click (not a drag) without Shift; a press that grabbed and did not move is one too. True: taken. */
  click?(clientX: number, clientY: number): boolean;
  /** Shift + left click (the point sampler). True: taken. */
  shiftClick?(clientX: number, clientY: number): boolean;
  /** The second of two quick clicks (or taps) at one place, offered after its click. True: taken. */
  doubleClick?(clientX: number, clientY: number): boolean;
  /** The pointer moved over the canvas with no button pressed; once per frame, to every handler. */
  hover?(clientX: number, clientY: number): void;
  /** The pointer moved over the canvas (any buttons), as each move comes. */
  move?(clientX: number, clientY: number): void;
  /** The pointer left the viewer. */
  leave?(): void;
  /** The wheel turned over the canvas (deltaY < 0: towards the scene). True: taken. */
  wheel?(clientX: number, clientY: number, deltaY: number): boolean;
}

/** The camera input that a handle drag turns off (camera-controls' `enabled`). */
export interface CameraInput {
  enabled: boolean;
}

/** What a source of pointer events (the DOM today; XR controllers later) calls. */
export interface PointerSink {
  /** A press; true when a handler grabbed it (the source then captures the pointer). */
  down(sample: PointerSample): boolean;
  move(sample: PointerSample): void;
  /** A release; true when it ended a grab (the source then releases its capture). */
  up(sample: PointerSample): boolean;
  cancel(sample: PointerSample): void;
  leave(): void;
  wheel(clientX: number, clientY: number, deltaY: number): void;
}

export interface PointerRouter extends PointerSink {
  /** Adds a handler in its slot of POINTER_ORDER; returns its removal. */
  add(slot: PointerSlot, handler: PointerHandler): () => void;
  /**
   * The model surface under the pointer's latest position over the canvas, or null (outside, no
   * picker, nothing hit): picked at most once per frame and shared by every reader. Read only.
   */
  hit(): PickHit | null;
  /** Whether a handle drag holds the pointer. */
  readonly grabbing: boolean;
  dispose(): void;
}

export interface PointerRouterOptions {
  /** Camera input turned off during a handle drag. */
  camera: () => CameraInput;
  /** The surface under client pixels (the viewer's picker); absent: hit() is null. */
  pick?: (clientX: number, clientY: number) => PickHit | null;
}

interface Entry {
  rank: number;
  handler: PointerHandler;
}

/**
 * One pointer router per viewer: one ordered list of handlers (POINTER_ORDER), the click tracker
 * and double clicks, handle grabs (one at a time, camera input off meanwhile), hover and drags
 * coalesced to the latest position and run once per frame by a step of the input slot with no
 * allocation per move, a second finger cancelling the click in progress, and the one pick per
 * frame under the pointer. It knows no DOM: sources (pointer.ts) feed it samples.
 */
export function createPointerRouter(world: ViewerWorld, options: PointerRouterOptions): PointerRouter {
  const entries: Entry[] = [];
  const tracker = createClickTracker();
  const doubles = createDoubleClickDetector();
  let grabbedBy: PointerHandler | null = null;
  let grabPointer = -1;
  let cameraWasEnabled = true;
  let hoverX = 0;
  let hoverY = 0;
  let hoverPending = false;
  let dragX = 0;
  let dragY = 0;
  let dragPending = false;
  let pointerX = 0;
  let pointerY = 0;
  let inside = false;
  let frame = 0;
  let hitFrame = -1;
  let hitX = 0;
  let hitY = 0;
  let lastHit: PickHit | null = null;

  const runDrag = () => {
    dragPending = false;
    grabbedBy?.drag?.(dragX, dragY);
  };
  const removeStep = addFrameStep(world, 'input', {
    name: 'pointer',
    run() {
      frame++;
      if (dragPending) runDrag();
      if (hoverPending) {
        hoverPending = false;
        for (let i = 0; i < entries.length; i++) entries[i]!.handler.hover?.(hoverX, hoverY);
      }
    },
  });

  const watch = (phase: PointerPhase, sample: PointerSample) => {
    for (let i = 0; i < entries.length; i++) entries[i]!.handler.watch?.(phase, sample);
  };

  const endGrab = (x: number, y: number) => {
    // A move still waiting for its frame runs now: the drop is where the pointer let go.
    if (dragPending) runDrag();
    const handler = grabbedBy;
    grabbedBy = null;
    handler?.release?.(x, y);
    options.camera().enabled = cameraWasEnabled;
  };

  const offerClick = (kind: 'click' | 'shiftClick' | 'doubleClick', x: number, y: number) => {
    for (let i = 0; i < entries.length; i++) if (entries[i]!.handler[kind]?.(x, y)) return;
  };

  const router: PointerRouter = {
    add(slot, handler) {
      const rank = POINTER_ORDER.indexOf(slot);
      if (rank < 0) throw new Error(`Unknown pointer slot '${String(slot)}': expected one of ${POINTER_ORDER.join(', ')}.`);
      // After the handlers of its own slot and before those of later slots.
      let at = entries.length;
      while (at > 0 && entries[at - 1]!.rank > rank) at--;
      const entry = { rank, handler };
      entries.splice(at, 0, entry);
      return () => {
        const index = entries.indexOf(entry);
        if (index >= 0) entries.splice(index, 1);
        if (grabbedBy === handler) {
          grabbedBy = null;
          dragPending = false;
          options.camera().enabled = cameraWasEnabled;
        }
      };
    },
    hit() {
      if (!inside || !options.pick) return null;
      // One pick per frame and position: a move or a wheel at another place within the frame asks again.
      if (hitFrame === frame && hitX === pointerX && hitY === pointerY) return lastHit;
      hitFrame = frame;
      hitX = pointerX;
      hitY = pointerY;
      try {
        lastHit = options.pick(pointerX, pointerY);
      } catch {
        // No renderer or a closed picker: nothing under the pointer.
        lastHit = null;
      }
      return lastHit;
    },
    get grabbing() {
      return grabbedBy !== null;
    },
    down(s) {
      watch('down', s);
      if (!s.primary) {
        // A second finger: a pinch or a two-finger pan, never a click or half of a double tap.
        tracker.cancel();
        doubles.reset();
        return false;
      }
      if (!s.onCanvas) return false;
      if (s.button !== 0) {
        tracker.cancel();
        return false;
      }
      tracker.down(s.x, s.y, s.time, s.button);
      if (s.shift || grabbedBy) return false;
      for (let i = 0; i < entries.length; i++) {
        const handler = entries[i]!.handler;
        if (!handler.grab?.(s.x, s.y)) continue;
        grabbedBy = handler;
        grabPointer = s.id;
        const controls = options.camera();
        cameraWasEnabled = controls.enabled;
        controls.enabled = false;
        return true;
      }
      return false;
    },
    move(s) {
      watch('move', s);
      tracker.move(s.x, s.y);
      if (grabbedBy && s.id === grabPointer) {
        dragX = s.x;
        dragY = s.y;
        dragPending = true;
        world.render.needsRender = true;
        return;
      }
      if (!s.onCanvas) {
        // Onto a panel or label inside the viewer: the pointer has left the 3D view.
        if (inside) router.leave();
        return;
      }
      pointerX = s.x;
      pointerY = s.y;
      inside = true;
      for (let i = 0; i < entries.length; i++) entries[i]!.handler.move?.(s.x, s.y);
      if (s.buttons === 0) {
        hoverX = s.x;
        hoverY = s.y;
        hoverPending = true;
      }
    },
    up(s) {
      watch('up', s);
      const wasGrab = grabbedBy !== null && s.id === grabPointer;
      const kind = tracker.up(s.x, s.y, s.time, s.button);
      // A press on a handle that did not move is still a click (a measurement started on the
      // corner another measurement already uses).
      if (wasGrab) endGrab(s.x, s.y);
      // The press was on the canvas (the tracker only follows those); the release may be anywhere.
      if (kind !== 'click') {
        if (kind === 'drag') doubles.reset();
        return wasGrab;
      }
      if (s.shift) {
        doubles.reset();
        offerClick('shiftClick', s.x, s.y);
        return wasGrab;
      }
      offerClick('click', s.x, s.y);
      if (doubles.click(s.x, s.y, s.time, s.kind === 'touch')) offerClick('doubleClick', s.x, s.y);
      return wasGrab;
    },
    cancel(s) {
      watch('cancel', s);
      tracker.cancel();
      if (grabbedBy && s.id === grabPointer) endGrab(s.x, s.y);
    },
    leave() {
      hoverPending = false;
      inside = false;
      for (let i = 0; i < entries.length; i++) entries[i]!.handler.leave?.();
    },
    wheel(x, y, deltaY) {
      pointerX = x;
      pointerY = y;
      inside = true;
      for (let i = 0; i < entries.length; i++) if (entries[i]!.handler.wheel?.(x, y, deltaY)) return;
    },
    dispose() {
      removeStep();
      if (grabbedBy) options.camera().enabled = cameraWasEnabled;
      grabbedBy = null;
      entries.length = 0;
    },
  };
  return router;
}
