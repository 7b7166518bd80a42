import { Mesh, MeshBasicMaterial, PMREMGenerator, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import { SizedPMREMGenerator } from '../../../src/engine/studio-environment';
import { createStudioScene } from '../../../src/engine/studio-environment';

const cubeSize = (g: PMREMGenerator) => (g as unknown as { _cubeSize: number })._cubeSize;
// The generator keeps the renderer and makes no WebGL call until it renders.
const renderer = {} as WebGLRenderer;

describe('SizedPMREMGenerator', () => {
  it("overrides the step three 0.187 sizes its cube with (a three upgrade that renames it fails here)", () => {
    expect(typeof (PMREMGenerator.prototype as unknown as { _setSize: unknown })._setSize).toBe('function');
    const plain = new PMREMGenerator(renderer);
    (plain as unknown as { _setSize(n: number): void })._setSize(128);
    // three clamps to 256: the reason for the subclass.
    expect(cubeSize(plain)).toBe(256);
  });

  it('keeps the requested face size, a power of two from 16 to 256', () => {
    const sized = (n: number) => {
      const g = new SizedPMREMGenerator(renderer, n);
      (g as unknown as { _setSize(n: number): void })._setSize(256);
      return cubeSize(g);
    };
    expect(sized(128)).toBe(128);
    expect(sized(256)).toBe(256);
    expect(sized(1024)).toBe(256);
    expect(sized(100)).toBe(128);
    expect(sized(4)).toBe(16);
  });
});

describe('createStudioScene', () => {
  it('is drawn with unlit vertex-coloured materials only: one small shader program, no lights', () => {
    const studio = createStudioScene();
    const meshes: Mesh[] = [];
    studio.scene.traverse((o) => {
      expect(o.type === 'Scene' || (o as Mesh).isMesh).toBe(true);
      if ((o as Mesh).isMesh) meshes.push(o as Mesh);
    });
    expect(meshes.length).toBeGreaterThan(5);
    for (const mesh of meshes) {
      const material = mesh.material as MeshBasicMaterial;
      expect(material.type).toBe('MeshBasicMaterial');
      expect(material.vertexColors).toBe(true);
      const colors = mesh.geometry.getAttribute('color');
      expect(colors.count).toBe(mesh.geometry.getAttribute('position').count);
    }
    // Soft boxes are HDR emitters: brighter than white, the room itself is not.
    const peak = (m: Mesh) => Math.max(...(m.geometry.getAttribute('color').array as Float32Array));
    expect(meshes.filter((m) => peak(m) > 1).length).toBeGreaterThanOrEqual(4);
    expect(peak(meshes[0])).toBeLessThan(1);
    studio.dispose();
  });
});
