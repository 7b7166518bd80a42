import { BackSide, BoxGeometry, BufferAttribute, Mesh, MeshBasicMaterial, PMREMGenerator, Scene, type BufferGeometry, type WebGLRenderer, type WebGLRenderTarget } from 'three';

/**
 * The blur (radians) applied to the studio before prefiltering (fromScene's sigma): it softens the
 * boxes' edges. The GPU prefiltering (src/engine/renderer.ts) and the build-time one use it.
 */
export const STUDIO_BLUR_SIGMA = 0.04;

/** One box of the studio: its size and centre (m) and the grey level of each face (linear, HDR). */
export interface StudioBox {
  size: readonly [number, number, number];
  position: readonly [number, number, number];
  /** BoxGeometry's face order: +x, -x, +y, -y, +z, -z. */
  faces: readonly [number, number, number, number, number, number];
  /** The room: seen from inside (its faces are drawn back side). */
  inside?: boolean;
}

/**
 * The studio, as data: createStudioScene draws it for the GPU prefiltering (medium and high
 * tiers) and scripts/assets/studio-prefiltered.ts traces it on the CPU at build time for the low
 * tier's prefiltered cube. One description, so both are the same room.
 */
export const STUDIO_BOXES: readonly StudioBox[] = (() => {
  const boxes: StudioBox[] = [];
  // The room: 20 x 12 x 20 m, floor darker than the walls, ceiling lighter (the light that the
  // soft boxes throw around, baked).
  boxes.push({ size: [20, 12, 20], position: [0, 3, 0], faces: [0.52, 0.5, 0.62, 0.2, 0.48, 0.55], inside: true });
  // Grey blocks standing about: they break up reflections the way furniture does.
  const blocks: [number, number, number, number, number, number][] = [
    // x, z, width, height, depth, shade
    [-6.5, -6.5, 2.5, 3, 2.5, 0.32],
    [6.8, -5.5, 2, 4.5, 2.2, 0.28],
    [-7.2, 5.8, 2.2, 2, 3, 0.35],
    [5.5, 6.8, 3, 2.6, 1.8, 0.3],
  ];
  for (const [x, z, w, h, d, shade] of blocks) {
    // Tops catch the ceiling light; the sides facing the key light are brighter.
    boxes.push({ size: [w, h, d], position: [x, -3 + h / 2, z], faces: [shade * 1.2, shade * 0.8, shade * 1.6, shade * 0.5, shade, shade * 0.9] });
  }
  // Soft boxes, in linear HDR units (the cube render target holds half floats): a large key light
  // overhead, a strong one on the left, a weaker fill on the right, a strip at the back.
  const panel = (c: number, sx: number, sy: number, sz: number, x: number, y: number, z: number) =>
    boxes.push({ size: [sx, sy, sz], position: [x, y, z], faces: [c, c, c, c, c, c] });
  panel(7, 8, 0.1, 5, 0, 8.9, 0);
  panel(24, 0.1, 4, 5, -9.9, 3, -1);
  panel(10, 0.1, 3.5, 6, 9.9, 2.5, 1.5);
  panel(14, 10, 1.2, 0.1, 0, 5, -9.9);
  panel(5, 4, 2, 0.1, 1, 4, 9.9);
  return boxes;
})();

/**
 * The default image-based lighting: a neutral photo studio (a grey room with soft boxes) built
 * only from unlit, vertex-coloured materials, for PMREMGenerator.fromScene.
 *
 * Why not three's RoomEnvironment: it lights its room with a point light and MeshStandardMaterial,
 * so prefiltering it needs a physically based shader program. With a software GPU (SwiftShader,
 * and many phones without a fast one) linking that program takes a second or more on the path to
 * the first frame. Unlit materials with vertex colours need one small program; the light is baked
 * into the colours, and the prefiltering blur hides the difference.
 */
export function createStudioScene(): { scene: Scene; dispose(): void } {
  const scene = new Scene();
  const material = new MeshBasicMaterial({ vertexColors: true });
  const roomMaterial = new MeshBasicMaterial({ vertexColors: true, side: BackSide });
  const geometries: BufferGeometry[] = [];
  for (const box of STUDIO_BOXES) {
    const geometry = new BoxGeometry(...box.size);
    paintFaces(geometry, box.faces);
    geometries.push(geometry);
    const mesh = new Mesh(geometry, box.inside ? roomMaterial : material);
    mesh.position.set(...box.position);
    scene.add(mesh);
  }
  return {
    scene,
    dispose() {
      for (const g of geometries) g.dispose();
      material.dispose();
      roomMaterial.dispose();
    },
  };
}

/** Gives each of a box's six faces one grey level (linear), as vertex colours. */
function paintFaces(geometry: BufferGeometry, faceColors: readonly number[]): void {
  const count = geometry.getAttribute('position').count;
  const colors = new Float32Array(count * 3);
  // BoxGeometry (1 segment per side) writes 4 vertices per face, in face order.
  const perFace = count / 6;
  for (let v = 0; v < count; v++) {
    const c = faceColors[Math.floor(v / perFace)];
    colors[v * 3] = c;
    colors[v * 3 + 1] = c;
    colors[v * 3 + 2] = c;
  }
  geometry.setAttribute('color', new BufferAttribute(colors, 3));
}

/** The studio prefiltered on the GPU into a cube of `size` px per face (the medium and high tiers, and the low tier's fallback). */
export function prefilterStudioOnGpu(renderer: WebGLRenderer, size: number): WebGLRenderTarget {
  const pmrem = new SizedPMREMGenerator(renderer, size);
  const room = createStudioScene();
  const target = pmrem.fromScene(room.scene, STUDIO_BLUR_SIGMA);
  room.dispose();
  pmrem.dispose();
  return target;
}

/**
 * A PMREMGenerator whose scene cube may be smaller than three's 256-pixel minimum. Prefiltering
 * (256 GGX samples per texel of the sharp levels) is the largest single piece of GPU work before
 * the first frame; a 128-pixel cube costs about a quarter of it. `_setSize` is three's (0.187)
 * internal sizing step; tests/unit/engine/renderer-environment.test.ts fails if it goes away.
 */
export class SizedPMREMGenerator extends PMREMGenerator {
  constructor(
    renderer: WebGLRenderer,
    private readonly faceSize: number,
  ) {
    super(renderer);
  }

  /** @internal three's sizing step, given the requested size: keep ours (a power of two, 16 to 256). */
  _setSize(): void {
    const size = 2 ** Math.round(Math.log2(Math.min(256, Math.max(16, this.faceSize))));
    (this as unknown as { _cubeSize: number })._cubeSize = size;
  }
}
