import { Euler, Matrix4, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { degreesToQuaternion, fieldsToMatrix, matrixToFields, quaternionToDegrees } from '../../../src/editor/transform-fields';

const round = (values: readonly number[]) => values.map((v) => Math.round(v * 1e4) / 1e4 + 0);

describe('transform fields (the editor\'s position / rotation in degrees / scale)', () => {
  it('reads a matrix as position, degrees and scale, and writes it back', () => {
    const matrix = new Matrix4().compose(new Vector3(1, 2, 3), new Quaternion().setFromEuler(new Euler(Math.PI / 2, 0, Math.PI / 6)), new Vector3(2, 1, 0.5)).toArray();
    const fields = matrixToFields(matrix);
    expect(round(fields.position)).toEqual([1, 2, 3]);
    expect(round(fields.rotation)).toEqual([90, 0, 30]);
    expect(round(fields.scale)).toEqual([2, 1, 0.5]);
    expect(round(fieldsToMatrix(fields.position, fields.rotation, fields.scale))).toEqual(round(matrix));
  });

  it('turns degrees into a quaternion and back', () => {
    const q = degreesToQuaternion([0, 90, 0]);
    expect(round(q)).toEqual(round([0, Math.SQRT1_2, 0, Math.SQRT1_2]));
    expect(round(quaternionToDegrees(q))).toEqual([0, 90, 0]);
    expect(round(quaternionToDegrees([0, 0, 0, 1]))).toEqual([0, 0, 0]);
  });
});
