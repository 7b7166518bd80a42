import { Transform } from '../../components';
import { markTransformDirty } from './hierarchy';
import type { ViewerWorld } from './world';

/** Three numbers as an array or as a three.js vector. */
export type Vec3Like = ArrayLike<number> | { readonly x: number; readonly y: number; readonly z: number };
/** Four numbers (x, y, z, w) as an array or as a three.js quaternion. */
export type QuatLike = ArrayLike<number> | { readonly x: number; readonly y: number; readonly z: number; readonly w: number };

const { position: P, rotation: R, scale: S } = Transform;

/**
 * The one door for a node's local transform (the gizmo, the host API, saved edits and so undo,
 * redo and a meeting's edits, the editor's scene objects): writes the given parts into Transform
 * (an absent part is kept), flags it for the transform system, and keeps the entity's Object3D's
 * own fields in step (the animation mixer reads and writes them; entity objects have
 * matrixAutoUpdate off, so `matrix` is composed here). A glTF pivot is folded into Transform at
 * spawn, so the object's pivot goes. The world matrix follows in the next transform system run.
 */
export function setLocalTransform(world: ViewerWorld, eid: number, position?: Vec3Like | null, quaternion?: QuatLike | null, scale?: Vec3Like | null): void {
  const i3 = eid * 3;
  const i4 = eid * 4;
  if (position) write3(P, i3, position);
  if (quaternion) {
    if (isArrayLike(quaternion)) {
      R[i4] = quaternion[0];
      R[i4 + 1] = quaternion[1];
      R[i4 + 2] = quaternion[2];
      R[i4 + 3] = quaternion[3];
    } else {
      R[i4] = quaternion.x;
      R[i4 + 1] = quaternion.y;
      R[i4 + 2] = quaternion.z;
      R[i4 + 3] = quaternion.w;
    }
  }
  if (scale) write3(S, i3, scale);
  markTransformDirty(world, eid);
  const object = world.objects[eid];
  if (object) {
    if (object.pivot) object.pivot = null;
    object.position.set(P[i3], P[i3 + 1], P[i3 + 2]);
    object.quaternion.set(R[i4], R[i4 + 1], R[i4 + 2], R[i4 + 3]);
    object.scale.set(S[i3], S[i3 + 1], S[i3 + 2]);
    object.matrix.compose(object.position, object.quaternion, object.scale);
  }
  world.render.needsRender = true;
}

function isArrayLike(v: Vec3Like | QuatLike): v is ArrayLike<number> {
  return typeof (v as ArrayLike<number>).length === 'number';
}

function write3(into: Float32Array, i: number, v: Vec3Like): void {
  if (isArrayLike(v)) {
    into[i] = v[0];
    into[i + 1] = v[1];
    into[i + 2] = v[2];
  } else {
    into[i] = v.x;
    into[i + 1] = v.y;
    into[i + 2] = v.z;
  }
}
