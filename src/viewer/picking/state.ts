import { Matrix4, Ray, Vector3, type Mesh } from 'three';

/**
 * The state one pick shares between its parts, written and read in this order: the pick ray
 * (raycast.ts sets it from the camera), the visible interval along it (clipping.ts narrows it), the
 * nearest kept hit so far (raycast.ts), and the hit built from that (hits.ts). One per picker,
 * reused by every pick: a pick allocates only the hit it returns.
 */
export interface PickState {
  /** The pick ray in world space. */
  readonly ray: Ray;
  /** The part of `ray` that is drawn, [near, far] (distances along it), after the camera's and the renderer's planes. */
  near: number;
  far: number;
  /** Whether materials' own clipping planes cut (the renderer's localClippingEnabled; true without a renderer). */
  localClipping: boolean;
  /** The nearest kept hit so far. */
  readonly best: BestHit;
}

/** The per-pick best hit, kept in scratch objects until the hit is returned. */
export interface BestHit {
  distance: number;
  object: Mesh | null;
  instanceId: number;
  faceIndex: number;
  materialIndex: number;
  readonly point: Vector3;
  readonly localNormal: Vector3;
  /** The world matrix the hit triangle was in (the instance's, for instanced meshes). */
  readonly matrix: Matrix4;
}

export function createPickState(): PickState {
  return {
    ray: new Ray(),
    near: 0,
    far: Infinity,
    localClipping: true,
    best: {
      distance: Infinity,
      object: null,
      instanceId: -1,
      faceIndex: -1,
      materialIndex: 0,
      point: new Vector3(),
      localNormal: new Vector3(),
      matrix: new Matrix4(),
    },
  };
}

/** Forgets the previous pick's best hit. */
export function resetBest(state: PickState): void {
  state.best.distance = Infinity;
  state.best.object = null;
}
