import type { CommentPlaceEvent } from './comments';
import type { AnimationEvent } from '../engine/world';
import type { ToolsSnapshot } from './tools/tool-state';

/**
 * A small typed event emitter: the viewer's outward events (hit, background-hit, sample,
 * measurement and section changes, ...) for the UI and, later, the host-page API.
 */
export class Emitter<Events extends Record<string, unknown>> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  on<K extends keyof Events>(type: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  emit<K extends keyof Events>(type: K, payload: Events[K]): void {
    const set = this.listeners.get(type);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as (payload: Events[K]) => void)(payload);
      } catch (error) {
        // One failing listener must not stop the others or the frame; it is still reported.
        console.error(`A listener of the viewer's '${String(type)}' event failed:`, error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** A hit as the outside sees it: plain data (the host API posts it as is). */
export interface HitEventData {
  point: { x: number; y: number; z: number };
  normal: { x: number; y: number; z: number };
  modelId: string | null;
  nodeId: string | null;
  nodeName: string;
  materialId: string | null;
  materialName: string;
  instanceId: number | null;
  /** The instanced asset group hit (its scene object uuid; instanceId is the instance's stable id), else null. */
  groupId: string | null;
}

/**
 * Every event the viewer raises, by name. Each tool adds its own entries here (add, never change
 * an existing one: the UI and the host API rely on them).
 */
export interface ViewerEventMap extends Record<string, unknown> {
  /** A click (not a drag) that hit the scene while no tool took it. */
  hit: HitEventData;
  /** A click that hit nothing. */
  'background-hit': { clientX: number; clientY: number };
  /** The active tool changed (null: none). */
  tool: ToolEventData;
  /** A measurement was created, corrected (a point dragged) or deleted. */
  measurement: MeasurementEventData;
  /** Shift + left click sampled a point of the model. */
  sample: SampleEventData;
  /** A section plane was created, moved or rotated, or deleted. */
  section: SectionEventData;
  /** The navigation mode, projection or camera config changed. */
  navigation: NavigationEventData;
  /** The tools' state as the UI shows it changed (coalesced: one event per task). */
  tools: ToolsSnapshot;
  /** An animation started, stopped, paused, resumed, finished or looped (editor specification section 7). */
  animation: AnimationEvent;
  /** A scene's models were loaded (those that failed are not listed). */
  models: { modelIds: string[] };
  /** The comment tool turned on or off (src/viewer/comments). */
  'comment-tool': { active: boolean };
  /** The comment tool's click hit a surface: the UI opens the composer with this anchor and view. */
  'comment-place': CommentPlaceEvent;
  /** The comment tool's click hit nothing. */
  'comment-miss': { clientX: number; clientY: number };
  /** A comment pin was clicked (a cluster's click zooms in instead). */
  'comment-pin': { id: string };
}

export interface NavigationEventData {
  mode: 'Orbit' | 'FirstPerson' | 'Plan';
  projection: 'Perspective' | 'Orthographic';
  cameraConfig: 'simple' | 'editor';
}

export interface ToolEventData {
  tool: 'section-tool' | 'length-measure-tool' | 'area-measure-tool' | 'angle-measure-tool' | null;
  previous: 'section-tool' | 'length-measure-tool' | 'area-measure-tool' | 'angle-measure-tool' | null;
}

export interface MeasurementEventData {
  action: 'created' | 'updated' | 'deleted';
  /** The measurement's entity id. */
  id: number;
  kind: 'length' | 'area' | 'angle';
  /** Metres, square metres or degrees. */
  value: number;
  /** The label as shown: '2.00 m', '6.00 m²', '90.00°'. */
  label: string;
  points: { x: number; y: number; z: number }[];
}

export interface SampleEventData {
  point: { x: number; y: number; z: number };
  /** The label as shown: 'X 1.00 · Y 2.00 · Z 0.50 m'. */
  label: string;
  /** What was hit at the point. */
  hit: HitEventData;
}

export interface SectionEventData {
  action: 'created' | 'updated' | 'deleted';
  /** The plane's entity id. */
  id: number;
  /** The kept side is where normal . p + constant >= 0. */
  normal: { x: number; y: number; z: number };
  constant: number;
}
