import { Matrix4, PerspectiveCamera } from 'three';
import { describe, expect, it } from 'vitest';
import { cellCount, clusterPins, pinNear, projectPins, type PinBuffers } from '../../../../src/viewer/comments/cluster';

function buffers(points: number[][]): PinBuffers {
  const n = points.length;
  const positions = new Float32Array(n * 3);
  points.forEach((p, i) => positions.set(p, i * 3));
  return { positions, screen: new Float32Array(n * 2), counts: new Float32Array(n), cells: new Int32Array(n) };
}

describe('comment pin clustering', () => {
  const camera = new PerspectiveCamera(60, 2, 0.1, 100);
  camera.position.set(0, 0, 10);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  const m = new Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);

  it('projects like three does, merges pins closer than a cell, hides those behind the camera', () => {
    const b = buffers([
      [0, 0, 0], // centre
      [0.01, 0, 0], // beside it: same cell
      [3, 1, 0], // elsewhere
      [0, 0, 20], // behind the camera
    ]);
    projectPins(b, 4, m.elements, 800, 400);
    expect(b.screen[0]).toBeCloseTo(400, 3);
    expect(b.screen[1]).toBeCloseTo(200, 3);
    expect(b.cells[3]).toBe(-1);
    const head = new Int32Array(cellCount(800, 400, 28));
    const drawn = clusterPins(b, 4, 800, 400, 28, head);
    expect(drawn).toBe(2);
    expect([...b.counts]).toEqual([2, 0, 1, 0]);
    // A click near the centre finds the cluster; far away nothing.
    expect(pinNear(b, 4, 402, 201, 15)).toBe(0);
    expect(pinNear(b, 4, 10, 10, 15)).toBe(-1);
  });

  it('refuses a head array that is too small', () => {
    const b = buffers([[0, 0, 0]]);
    projectPins(b, 1, m.elements, 800, 400);
    expect(() => clusterPins(b, 1, 800, 400, 28, new Int32Array(3))).toThrow(/needed/);
  });
});
