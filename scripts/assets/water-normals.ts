/**
 * A tileable tangent-space normal map for three.js' Water (which reads it as noise.xzy: blue is
 * up). The surface is a sum of sine waves whose wave vectors are whole numbers of cycles across
 * the tile, so the map repeats seamlessly; amplitudes fall with frequency like a wind sea.
 * Deterministic: the waves come from a seeded generator.
 */

export interface WaterNormalsOptions {
  size?: number;
  waves?: number;
  seed?: number;
  /** Root-mean-square slope of the surface (strength of the normals). */
  slope?: number;
}

/** Returns size * size * 4 RGBA bytes. */
export function renderWaterNormals(options: WaterNormalsOptions = {}): { size: number; rgba: Uint8Array } {
  const size = options.size ?? 512;
  const count = options.waves ?? 56;
  const random = mulberry32(options.seed ?? 0x5eed);
  const slope = options.slope ?? 0.32;

  const waves: { kx: number; ky: number; amplitude: number; phase: number }[] = [];
  while (waves.length < count) {
    // Wave vectors in a band of 2..28 cycles per tile, mostly along one wind direction.
    const k = 2 + Math.floor(random() * 27);
    const angle = 0.6 + (random() - 0.5) * 2.2 + (random() < 0.2 ? Math.PI / 2 : 0);
    const kx = Math.round(k * Math.cos(angle));
    const ky = Math.round(k * Math.sin(angle));
    if (kx === 0 && ky === 0) continue;
    const length = Math.hypot(kx, ky);
    waves.push({ kx, ky, amplitude: length ** -1.6, phase: random() * Math.PI * 2 });
  }

  // sin(A + B) with A along x and B along y: per-wave tables make it four multiplications a pixel.
  const sinA = new Float64Array(count * size);
  const cosA = new Float64Array(count * size);
  const sinB = new Float64Array(count * size);
  const cosB = new Float64Array(count * size);
  waves.forEach((w, i) => {
    for (let t = 0; t < size; t++) {
      const a = (2 * Math.PI * w.kx * t) / size + w.phase;
      const b = (2 * Math.PI * w.ky * t) / size;
      sinA[i * size + t] = Math.sin(a);
      cosA[i * size + t] = Math.cos(a);
      sinB[i * size + t] = Math.sin(b);
      cosB[i * size + t] = Math.cos(b);
    }
  });

  // Gradient of h = sum amplitude * sin(A + B): dh/dx = sum amplitude * 2 pi kx cos(A + B).
  const gx = new Float64Array(size * size);
  const gy = new Float64Array(size * size);
  let sum2 = 0;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let dx = 0;
      let dy = 0;
      for (let i = 0; i < count; i++) {
        const ca = cosA[i * size + x], sa = sinA[i * size + x];
        const cb = cosB[i * size + y], sb = sinB[i * size + y];
        const c = ca * cb - sa * sb; // cos(A + B)
        const w = waves[i];
        dx += w.amplitude * w.kx * c;
        dy += w.amplitude * w.ky * c;
      }
      gx[y * size + x] = dx;
      gy[y * size + x] = dy;
      sum2 += dx * dx + dy * dy;
    }
  }
  const scale = slope / Math.sqrt(sum2 / (size * size) || 1);
  const rgba = new Uint8Array(size * size * 4);
  for (let i = 0; i < size * size; i++) {
    const nx = -gx[i] * scale;
    const ny = -gy[i] * scale;
    const inv = 1 / Math.sqrt(nx * nx + ny * ny + 1);
    rgba[i * 4] = Math.round((nx * inv * 0.5 + 0.5) * 255);
    rgba[i * 4 + 1] = Math.round((ny * inv * 0.5 + 0.5) * 255);
    rgba[i * 4 + 2] = Math.round((inv * 0.5 + 0.5) * 255);
    rgba[i * 4 + 3] = 255;
  }
  return { size, rgba };
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
