import { Box3, Matrix4, Vector4, type BufferGeometry, type Camera, type InstancedMesh, type Mesh, type Object3D } from 'three';

/**
 * The selection outline's geometry on the CPU: a subtree's box in its root's own space, whether an
 * object is shown, and a world box's rectangle on screen. Module scratch objects: nothing here
 * allocates per call.
 */

const corner = new Vector4();
const scratchBox = new Box3();
const viewProjection = new Matrix4();
const inverse = new Matrix4();
const relative = new Matrix4();

/** Grows `out` by `box` carried by `matrix` (its 8 corners). */
export function unionTransformed(out: Box3, box: Box3, matrix: Matrix4): void {
  if (box.isEmpty()) return;
  scratchBox.copy(box).applyMatrix4(matrix);
  out.union(scratchBox);
}

/** The box of an object's own drawing (not its children) in its local space, or null. */
function ownBox(object: Object3D): Box3 | null {
  const mesh = object as InstancedMesh;
  if (mesh.isInstancedMesh) {
    if (mesh.boundingBox === null) mesh.computeBoundingBox();
    return mesh.boundingBox;
  }
  const geometry = (object as Mesh).geometry as BufferGeometry | undefined;
  if (!geometry || !(geometry as BufferGeometry).isBufferGeometry || !geometry.getAttribute('position')) return null;
  if (geometry.boundingBox === null) geometry.computeBoundingBox();
  return geometry.boundingBox;
}

/** The box subtreeBox grows (module state: traverse's callback allocates nothing). */
let growing = new Box3();

function addOwnBox(object: Object3D): void {
  const own = ownBox(object);
  if (!own) return;
  relative.multiplyMatrices(inverse, object.matrixWorld);
  unionTransformed(growing, own, relative);
}

/** The box of everything `root` and its subtree draw, in the root's own space, into `out`. */
export function subtreeBox(root: Object3D, out: Box3): Box3 {
  growing = out.makeEmpty();
  inverse.copy(root.matrixWorld).invert();
  root.traverse(addOwnBox);
  return out;
}

/** Whether the object and all its ancestors are visible (a hidden parent hides it). */
export function shown(object: Object3D): boolean {
  for (let o: Object3D | null = object; o; o = o.parent) if (!o.visible) return false;
  return true;
}

/**
 * The rectangle of `bounds` (world space) on a `width` x `height` drawing buffer seen by `camera`,
 * grown by `margin` pixels and kept on the buffer, into `out` as [x, y, width, height] from the
 * bottom left; the whole buffer when a corner is behind the camera; null when none of it is on it.
 */
export function screenRect(
  bounds: Box3,
  camera: Camera,
  width: number,
  height: number,
  margin: number,
  out: [number, number, number, number],
): [number, number, number, number] | null {
  viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  let behind = false;
  for (let i = 0; i < 8; i++) {
    corner.set(i & 1 ? bounds.max.x : bounds.min.x, i & 2 ? bounds.max.y : bounds.min.y, i & 4 ? bounds.max.z : bounds.min.z, 1).applyMatrix4(viewProjection);
    if (corner.w <= 1e-6) {
      behind = true;
      break;
    }
    const x = corner.x / corner.w;
    const y = corner.y / corner.w;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  let px0 = 0;
  let py0 = 0;
  let px1 = width;
  let py1 = height;
  if (!behind) {
    px0 = Math.max(0, Math.floor(((x0 + 1) / 2) * width) - margin);
    py0 = Math.max(0, Math.floor(((y0 + 1) / 2) * height) - margin);
    px1 = Math.min(width, Math.ceil(((x1 + 1) / 2) * width) + margin);
    py1 = Math.min(height, Math.ceil(((y1 + 1) / 2) * height) + margin);
  }
  if (px1 <= px0 || py1 <= py0) return null;
  out[0] = px0;
  out[1] = py0;
  out[2] = px1 - px0;
  out[3] = py1 - py0;
  return out;
}
