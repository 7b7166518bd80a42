import { LoopOnce } from 'three';
import type { AnimationEntry, ModelRecord, ViewerWorld } from '../engine/world';
import { modelById } from '../engine/stable-ids';
import { onAnimationEvent, pauseAnimation, playAnimation, resumeAnimation, seekAnimation, setAnimationSpeed, stopAnimation, type PlayOptions } from './animation';
import type { Emitter, ViewerEventMap } from './events';

/** 'finished': a play-once animation that ended and holds its last frame. */
export type AnimationStatus = 'playing' | 'paused' | 'finished' | 'stopped';

/** One animation of a loaded model as the UI and the host API see it. */
export interface AnimationRow {
  modelId: string;
  modelName: string;
  /** The animation's id within its model (its glTF index). */
  id: string;
  name: string;
  duration: number;
  status: AnimationStatus;
  /** Seconds into the clip. */
  time: number;
  loop: boolean;
}

/** The viewer's animations by model id and animation id or name (viewer specification section 4). */
export interface ViewerAnimations {
  list(): AnimationRow[];
  play(modelId: string, animation: string, options?: PlayOptions): void;
  pause(modelId: string, animation: string): void;
  resume(modelId: string, animation: string): void;
  stop(modelId: string, animation: string): void;
  /** Shows the animation at `time` seconds (the timeline's scrub); a stopped one starts paused there. */
  seek(modelId: string, animation: string, time: number): void;
  /** The global speed scaling every mixer. */
  readonly speed: number;
  /** Sets the global speed (at least 0.1); returns the speed in effect. */
  setSpeed(speed: number): number;
  dispose(): void;
}

export function animationStatus(entry: AnimationEntry): AnimationStatus {
  const action = entry.action;
  if (!action || !action.enabled || !action.isScheduled()) return 'stopped';
  if (action.paused) return action.loop === LoopOnce && action.time >= entry.clip.duration - 1e-6 ? 'finished' : 'paused';
  return action.isRunning() ? 'playing' : 'stopped';
}

/** Animation control for the viewer's interface; every animation event goes out as the 'animation' event. */
export function createAnimationControl(world: ViewerWorld, events: Emitter<ViewerEventMap>): ViewerAnimations {
  const off = onAnimationEvent(world, (event) => events.emit('animation', event));
  const record = (modelId: string): ModelRecord => {
    const found = modelById(world, modelId);
    if (!found) throw new Error(`There is no loaded model '${modelId}'.`);
    return found;
  };
  return {
    list() {
      const rows: AnimationRow[] = [];
      for (const r of world.models.values()) {
        for (const entry of r.animations) {
          rows.push({
            modelId: r.modelId,
            modelName: r.name,
            id: entry.id,
            name: entry.name,
            duration: entry.clip.duration,
            status: animationStatus(entry),
            time: entry.action?.time ?? 0,
            loop: entry.action ? entry.action.loop !== LoopOnce : true,
          });
        }
      }
      return rows;
    },
    play: (modelId, animation, options) => playAnimation(world, record(modelId), animation, options),
    pause: (modelId, animation) => pauseAnimation(world, record(modelId), animation),
    resume: (modelId, animation) => resumeAnimation(world, record(modelId), animation),
    stop: (modelId, animation) => stopAnimation(world, record(modelId), animation),
    seek: (modelId, animation, time) => seekAnimation(world, record(modelId), animation, time),
    get speed() {
      return world.animation.speed;
    },
    setSpeed: (speed) => setAnimationSpeed(world, speed),
    dispose: off,
  };
}
