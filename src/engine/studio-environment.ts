import { BackSide, BoxGeometry, BufferAttribute, Mesh, MeshBasicMaterial, Scene, type BufferGeometry } from 'three';

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

  const box = (sx: number, sy: number, sz: number, faceColors: number[], mat = material): Mesh => {
    const geometry = new BoxGeometry(sx, sy, sz);
    paintFaces(geometry, faceColors);
    geometries.push(geometry);
    const mesh = new Mesh(geometry, mat);
    scene.add(mesh);
    return mesh;
  };

  // The room: 20 x 12 x 20 m, floor darker than the walls, ceiling lighter (the light that the
  // soft boxes throw around, baked). BoxGeometry faces: +x, -x, +y, -y, +z, -z.
  const room = box(20, 12, 20, [0.52, 0.5, 0.62, 0.2, 0.48, 0.55], roomMaterial);
  room.position.y = 3;

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
    const block = box(w, h, d, [shade * 1.2, shade * 0.8, shade * 1.6, shade * 0.5, shade, shade * 0.9]);
    block.position.set(x, -3 + h / 2, z);
  }

  // Soft boxes, in linear HDR units (the cube render target holds half floats): a large key light
  // overhead, a strong one on the left, a weaker fill on the right, a strip at the back.
  const panel = (intensity: number, sx: number, sy: number, sz: number, x: number, y: number, z: number) => {
    const c = intensity;
    box(sx, sy, sz, [c, c, c, c, c, c]).position.set(x, y, z);
  };
  panel(7, 8, 0.1, 5, 0, 8.9, 0);
  panel(24, 0.1, 4, 5, -9.9, 3, -1);
  panel(10, 0.1, 3.5, 6, 9.9, 2.5, 1.5);
  panel(14, 10, 1.2, 0.1, 0, 5, -9.9);
  panel(5, 4, 2, 0.1, 1, 4, 9.9);

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
function paintFaces(geometry: BufferGeometry, faceColors: number[]): void {
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
