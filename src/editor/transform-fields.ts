import { Euler, MathUtils, Matrix4, Quaternion, Vector3 } from 'three';

/**
 * The editor's transform fields as a person types them (position, rotation in degrees, scale) to
 * and from what the editor stores (a column-major matrix for nodes, a quaternion for scene
 * objects). Rotation order XYZ, three's default.
 */

const m4 = new Matrix4();
const pos = new Vector3();
const quat = new Quaternion();
const scl = new Vector3();
const euler = new Euler();

export interface TransformFields {
  position: [number, number, number];
  /** Degrees about X, Y, Z. */
  rotation: [number, number, number];
  scale: [number, number, number];
}

/** A column-major 4 x 4 matrix as the fields. */
export function matrixToFields(matrix: readonly number[]): TransformFields {
  m4.fromArray(matrix as number[]).decompose(pos, quat, scl);
  return { position: [pos.x, pos.y, pos.z], rotation: quaternionToDegrees(quat.toArray() as [number, number, number, number]), scale: [scl.x, scl.y, scl.z] };
}

/** The fields as a column-major 4 x 4 matrix. */
export function fieldsToMatrix(position: readonly number[], rotationDeg: readonly number[], scale: readonly number[]): number[] {
  quat.fromArray(degreesToQuaternion(rotationDeg));
  return m4.compose(pos.fromArray(position as number[]), quat, scl.fromArray(scale as number[])).toArray();
}

/** A quaternion [x, y, z, w] as degrees about X, Y, Z. */
export function quaternionToDegrees(q: readonly number[]): [number, number, number] {
  euler.setFromQuaternion(quat.fromArray(q as number[]));
  return [MathUtils.radToDeg(euler.x), MathUtils.radToDeg(euler.y), MathUtils.radToDeg(euler.z)];
}

/** Degrees about X, Y, Z as a quaternion [x, y, z, w]. */
export function degreesToQuaternion(r: readonly number[]): [number, number, number, number] {
  euler.set(MathUtils.degToRad(r[0]!), MathUtils.degToRad(r[1]!), MathUtils.degToRad(r[2]!));
  return new Quaternion().setFromEuler(euler).toArray() as [number, number, number, number];
}

export const { radToDeg, degToRad } = MathUtils;
