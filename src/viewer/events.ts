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
}
