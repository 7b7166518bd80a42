import { LoopOnce, LoopRepeat, type AnimationAction, type Event } from 'three';
import { AnimationState } from '../../components';
import { ANIMATION_SPEED_MIN } from '../protocol/constants';
import type { AnimationEntry, AnimationEvent, AnimationEventType, ModelRecord, ViewerWorld } from '../engine/world';

/**
 * Animation control (viewer specification section 4, "Animations"): start, stop, pause, resume;
 * finish and loop events; looping plays forever, non-looping plays once and holds its last frame;
 * stopping the last running action marks the model as not playing; one global speed scales every
 * mixer and never goes below 0.1.
 */

export interface AnimationInfo {
  id: string;
  name: string;
  duration: number;
  tracks: number;
}

export interface PlayOptions {
  /** Loop forever (default) or play once and hold the last frame. */
  loop?: boolean;
  /** Blend weight (default 1). */
  weight?: number;
  /** Start time in seconds. */
  time?: number;
}

export function listAnimations(record: ModelRecord): AnimationInfo[] {
  return record.animations.map((a) => ({ id: a.id, name: a.name, duration: a.clip.duration, tracks: a.clip.tracks.length }));
}

export function findAnimation(record: ModelRecord, idOrName: string | number): AnimationEntry {
  const key = String(idOrName);
  const entry = record.animations.find((a) => a.id === key) ?? record.animations.find((a) => a.name === key);
  if (!entry) throw new Error(`Model "${record.name}" has no animation "${key}".`);
  return entry;
}

function actionOf(record: ModelRecord, entry: AnimationEntry): AnimationAction {
  if (!record.mixer) throw new Error(`Model "${record.name}" has no animations.`);
  if (!entry.action) entry.action = record.mixer.clipAction(entry.clip);
  return entry.action;
}

/** Starts (or restarts) an animation. */
export function playAnimation(world: ViewerWorld, record: ModelRecord, idOrName: string | number, options: PlayOptions = {}): void {
  const entry = findAnimation(record, idOrName);
  const action = actionOf(record, entry);
  const loop = options.loop ?? true;
  action.reset();
  action.setLoop(loop ? LoopRepeat : LoopOnce, loop ? Infinity : 1);
  action.clampWhenFinished = !loop;
  // Options are per call: an omitted weight is full weight, not the previous play's weight.
  action.setEffectiveWeight(options.weight ?? 1);
  if (options.time !== undefined) action.time = Math.max(0, Math.min(options.time, entry.clip.duration));
  action.paused = false;
  action.play();
  refreshPlaying(world, record);
  emit(world, record, entry, 'start');
}

/** Stops an animation and returns its nodes to the pose without it. */
export function stopAnimation(world: ViewerWorld, record: ModelRecord, idOrName: string | number): void {
  const entry = findAnimation(record, idOrName);
  if (!entry.action) return;
  entry.action.stop();
  record.syncPose = true;
  refreshPlaying(world, record);
  emit(world, record, entry, 'stop');
}

export function pauseAnimation(world: ViewerWorld, record: ModelRecord, idOrName: string | number): void {
  const entry = findAnimation(record, idOrName);
  if (!entry.action || !entry.action.isRunning()) return;
  entry.action.paused = true;
  refreshPlaying(world, record);
  emit(world, record, entry, 'pause');
}

export function resumeAnimation(world: ViewerWorld, record: ModelRecord, idOrName: string | number): void {
  const entry = findAnimation(record, idOrName);
  if (!entry.action || !entry.action.paused) return;
  entry.action.paused = false;
  refreshPlaying(world, record);
  emit(world, record, entry, 'resume');
}

/**
 * Shows an animation at `time` seconds (clamped to the clip): the timeline's scrub. A running
 * animation keeps running from there; a paused one stays paused there; a stopped or finished one is
 * started paused at that time, so the pose holds until played.
 */
export function seekAnimation(world: ViewerWorld, record: ModelRecord, idOrName: string | number, time: number): void {
  if (!Number.isFinite(time)) throw new Error(`An animation time must be a number of seconds, got ${time}.`);
  const entry = findAnimation(record, idOrName);
  const action = actionOf(record, entry);
  const t = Math.max(0, Math.min(time, entry.clip.duration));
  if (!action.enabled || !action.isScheduled() || (action.paused && action.time >= entry.clip.duration - 1e-6 && action.loop === LoopOnce)) {
    const loop = action.isScheduled() ? action.loop !== LoopOnce : true;
    action.reset();
    action.setLoop(loop ? LoopRepeat : LoopOnce, loop ? Infinity : 1);
    action.clampWhenFinished = !loop;
    action.play();
    action.paused = true;
    emit(world, record, entry, 'pause');
  }
  action.time = t;
  // The pose at that time now (the mixer system copies it into the ECS in the next frame).
  record.mixer!.update(0);
  record.syncPose = true;
  refreshPlaying(world, record);
  world.render.needsRender = true;
}

/** Sets the global animation speed (clamped to at least 0.1); returns the speed in effect. */
export function setAnimationSpeed(world: ViewerWorld, speed: number): number {
  if (!Number.isFinite(speed)) throw new Error(`Animation speed must be a number, got ${speed}.`);
  world.animation.speed = Math.max(ANIMATION_SPEED_MIN, speed);
  return world.animation.speed;
}

export function isAnimationRunning(entry: AnimationEntry): boolean {
  return !!entry.action && entry.action.isRunning();
}

/** Subscribes to animation events; returns the unsubscribe function. */
export function onAnimationEvent(world: ViewerWorld, listener: (event: AnimationEvent) => void): () => void {
  world.animation.listeners.add(listener);
  return () => world.animation.listeners.delete(listener);
}

/** Wires the mixer's finished and loop events of a model to the world's animation listeners. */
export function attachAnimationEvents(world: ViewerWorld, record: ModelRecord): void {
  const mixer = record.mixer;
  if (!mixer) return;
  const entryOf = (action: AnimationAction) => record.animations.find((a) => a.action === action);
  mixer.addEventListener('finished', (e: Event & { action?: AnimationAction }) => {
    const entry = e.action && entryOf(e.action);
    if (!entry) return;
    // A finished once-only action holds its last frame (clampWhenFinished) and no longer runs.
    record.syncPose = true;
    refreshPlaying(world, record);
    emit(world, record, entry, 'finish');
  });
  mixer.addEventListener('loop', (e: Event & { action?: AnimationAction }) => {
    const entry = e.action && entryOf(e.action);
    if (entry) emit(world, record, entry, 'loop');
  });
}

/** Recounts the running actions; the model plays while at least one runs. */
function refreshPlaying(world: ViewerWorld, record: ModelRecord): void {
  let running = 0;
  for (const a of record.animations) if (a.action && a.action.isRunning()) running++;
  AnimationState.running[record.eid] = running;
  AnimationState.playing[record.eid] = running > 0 ? 1 : 0;
  record.syncPose = true;
  world.render.needsRender = true;
}

function emit(world: ViewerWorld, record: ModelRecord, entry: AnimationEntry, eventType: AnimationEventType): void {
  if (world.animation.listeners.size === 0) return;
  const action = entry.action;
  const event: AnimationEvent = {
    modelId: record.modelId,
    animationName: entry.name,
    eventType,
    isPlaying: AnimationState.playing[record.eid] === 1,
    time: action ? action.time : 0,
    weight: action ? action.getEffectiveWeight() : 0,
    duration: entry.clip.duration,
    loop: action ? action.loop !== LoopOnce : true,
  };
  for (const listener of world.animation.listeners) listener(event);
}
