import { merge, type Geometry } from './demo.ts';

/**
 * Geometry for the demos' detailed assets (src/server/demo-instances-realistic.ts), beyond demo.ts's
 * boxes, cylinders and spheres: proper linear transforms, smooth normals, lofts through rings of
 * points, lathes, tubes swept along paths, Bezier curves and lumpy balls. Plain arrays in the
 * `Geometry` form of demo.ts; triangles wind counter-clockwise seen from outside.
 */

export type Vec3 = [number, number, number];
/** A 3 x 3 matrix by rows. */
export type Mat3 = [Vec3, Vec3, Vec3];

// Vectors and transforms.

export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const mul = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
export const unit = (a: Vec3): Vec3 => mul(a, 1 / (Math.hypot(...a) || 1));
/** sign(x) |x|^e: a superellipse's coordinate. */
export const spow = (x: number, e: number): number => Math.sign(x) * Math.abs(x) ** e;

/** A matrix from its nine entries, row by row. */
export const mat = (...m: number[]): Mat3 => [m.slice(0, 3), m.slice(3, 6), m.slice(6, 9)] as Mat3;
export const diag = (x: number, y: number, z: number): Mat3 => mat(x, 0, 0, 0, y, 0, 0, 0, z);
export const rotX = (a: number): Mat3 => mat(1, 0, 0, 0, Math.cos(a), -Math.sin(a), 0, Math.sin(a), Math.cos(a));
export const rotY = (a: number): Mat3 => mat(Math.cos(a), 0, Math.sin(a), 0, 1, 0, -Math.sin(a), 0, Math.cos(a));
export const rotZ = (a: number): Mat3 => mat(Math.cos(a), -Math.sin(a), 0, Math.sin(a), Math.cos(a), 0, 0, 0, 1);
export const apply = (m: Mat3, p: Vec3): Vec3 => [dot(m[0], p), dot(m[1], p), dot(m[2], p)];

/** Positions through p -> M p + t (M proper: det > 0, so the winding holds), normals through M's cofactors. */
export function transform(g: Geometry, m: Mat3, t: Vec3 = [0, 0, 0]): Geometry {
  const c: Mat3 = [cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1])];
  const positions: number[] = [];
  const normals: number[] = [];
  for (let i = 0; i < g.positions.length; i += 3) {
    const p: Vec3 = [g.positions[i]!, g.positions[i + 1]!, g.positions[i + 2]!];
    const n: Vec3 = [g.normals[i]!, g.normals[i + 1]!, g.normals[i + 2]!];
    positions.push(...add(apply(m, p), t));
    // The rows' cross products are the rows of det(M) M^-T, which carries normals.
    normals.push(...unit(apply(c, n)));
  }
  return { positions, normals, uvs: [...g.uvs], indices: [...g.indices] };
}

export const translate = (g: Geometry, t: Vec3): Geometry => transform(g, rotY(0), t);

/** Smooth normals: each vertex gets the area-weighted sum of its triangles' normals. */
export function smooth(g: Geometry): Geometry {
  const acc = new Float64Array(g.positions.length);
  const p = (i: number): Vec3 => [g.positions[i * 3]!, g.positions[i * 3 + 1]!, g.positions[i * 3 + 2]!];
  for (let k = 0; k < g.indices.length; k += 3) {
    const [a, b, c] = [g.indices[k]!, g.indices[k + 1]!, g.indices[k + 2]!];
    const pa = p(a);
    const f = cross(sub(p(b), pa), sub(p(c), pa));
    for (const v of [a, b, c]) for (let j = 0; j < 3; j++) acc[v * 3 + j]! += f[j]!;
  }
  const normals: number[] = [];
  for (let i = 0; i < acc.length; i += 3) {
    const n: Vec3 = [acc[i]!, acc[i + 1]!, acc[i + 2]!];
    normals.push(...(Math.hypot(...n) > 0 ? unit(n) : ([0, 1, 0] as Vec3)));
  }
  return { ...g, normals };
}

/**
 * A surface through rings of points (each ring counter-clockwise about the direction the rings
 * advance in, so the faces look outward): consecutive rings joined by quads, an end closed by a fan
 * to a point where given. `sharp` caps get their own vertices (a crease at the rim, flat if planar);
 * otherwise the whole surface is smooth (a pointed tip).
 */
export function loft(rings: Vec3[][], caps: { start?: Vec3; end?: Vec3; sharp?: boolean } = {}): Geometry {
  const n = rings[0]!.length;
  const g: Geometry = { positions: [], normals: [], uvs: [], indices: [] };
  rings.forEach((ring, i) =>
    ring.forEach((p, j) => {
      g.positions.push(...p);
      g.uvs.push(j / n, i / Math.max(1, rings.length - 1));
    }),
  );
  for (let i = 0; i + 1 < rings.length; i++) {
    for (let j = 0; j < n; j++) {
      const a = i * n + j;
      const b = i * n + ((j + 1) % n);
      g.indices.push(a, b, b + n, a, b + n, a + n);
    }
  }
  const fans: Geometry[] = [];
  for (const [center, ring, reversed] of [
    [caps.start, 0, true],
    [caps.end, rings.length - 1, false],
  ] as const) {
    if (!center) continue;
    const target = caps.sharp
      ? { positions: [...rings[ring]!.flat()], normals: [], uvs: rings[ring]!.flatMap((_, j) => [j / n, ring === 0 ? 0 : 1]), indices: [] }
      : g;
    const first = caps.sharp ? 0 : ring * n;
    const c = target.positions.length / 3;
    target.positions.push(...center);
    target.uvs.push(0.5, ring === 0 ? 0 : 1);
    for (let j = 0; j < n; j++) {
      const a = first + j;
      const b = first + ((j + 1) % n);
      target.indices.push(...(reversed ? [c, b, a] : [c, a, b]));
    }
    if (caps.sharp) fans.push(smooth(target));
  }
  return merge(smooth(g), ...fans);
}

/** n points of a superellipse (exponent 1: an ellipse) about c, counter-clockwise about u x v. */
export function ring(c: Vec3, u: Vec3, v: Vec3, ru: number, rv: number, n: number, exponent = 1, wobble?: (j: number) => number): Vec3[] {
  const points: Vec3[] = [];
  for (let j = 0; j < n; j++) {
    const a = (j / n) * Math.PI * 2;
    const k = wobble ? wobble(j) : 1;
    points.push(add(c, add(mul(u, ru * k * spow(Math.cos(a), exponent)), mul(v, rv * k * spow(Math.sin(a), exponent)))));
  }
  return points;
}

/**
 * A surface of revolution about +Y through profile pieces of (radius, y) points, each piece
 * traced counter-clockwise in the (r, y) plane (r to the right: the outside is on the right-hand
 * side of the way it goes). Pieces meet at creases; an end at r = 0 is a smooth pointed cap.
 */
export function lathe(pieces: [number, number][][], segments: number): Geometry {
  return merge(
    ...pieces.map((piece) => {
      const pts = [...piece];
      const start = pts[0]![0] === 0 ? pts.shift()! : undefined;
      const end = pts[pts.length - 1]![0] === 0 ? pts.pop()! : undefined;
      const rings = pts.map(([r, y]) => ring([0, y, 0], [0, 0, 1], [1, 0, 0], r, r, segments));
      return loft(rings, { start: start && [0, start[1], 0], end: end && [0, end[1], 0] });
    }),
  );
}

/**
 * A tube along a path (rotation-minimising frames, the first one's `u` across `ref`), elliptical
 * where `aspect` is not 1 (v radius over u radius). A zero radius at an end makes a pointed tip
 * (and leaves the other end open, where the tube grows out of something); otherwise both ends are
 * closed flat, unless `open`.
 */
export function tube(
  path: Vec3[],
  radii: number[],
  cols: number,
  options: { ref?: Vec3; aspect?: number; open?: boolean; exponent?: number; wobble?: (i: number, j: number) => number } = {},
): Geometry {
  const tangents = path.map((p, i) => unit(sub(path[Math.min(i + 1, path.length - 1)]!, path[Math.max(i - 1, 0)]!)));
  const ref = options.ref ?? [0, 1, 0];
  let u = unit(cross(ref, tangents[0]!));
  if (Math.hypot(...cross(ref, tangents[0]!)) < 1e-6) u = unit(cross([1, 0, 0], tangents[0]!));
  const rings: Vec3[][] = [];
  let start: Vec3 | undefined;
  let end: Vec3 | undefined;
  path.forEach((p, i) => {
    const t = tangents[i]!;
    u = unit(sub(u, mul(t, dot(u, t))));
    const v = cross(t, u);
    const r = radii[i]!;
    if (r === 0 && i === 0) start = p;
    else if (r === 0 && i === path.length - 1) end = p;
    else rings.push(ring(p, u, v, r, r * (options.aspect ?? 1), cols, options.exponent ?? 1, options.wobble && ((j) => options.wobble!(i, j))));
  });
  if (start || end) return loft(rings, { start, end });
  if (options.open) return loft(rings);
  return loft(rings, { start: path[0], end: path[path.length - 1], sharp: true });
}

/** Points of a cubic Bezier curve. */
export function bezier(p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3, n: number): Vec3[] {
  const points: Vec3[] = [];
  for (let i = 0; i <= n; i++) {
    const t = i / n;
    const s = 1 - t;
    points.push(add(add(mul(p0, s * s * s), mul(p1, 3 * s * s * t)), add(mul(p2, 3 * s * t * t), mul(p3, t * t * t))));
  }
  return points;
}

/**
 * A lumpy ball: a cube's faces, each an n x n grid, pushed out onto a sphere whose radius a few
 * seeded waves modulate (a leaf cluster). Shared edges are one vertex, so it is closed and smooth.
 */
export function blob(center: Vec3, radius: number, n: number, rand: () => number, lumpiness = 0.16): Geometry {
  const waves = Array.from({ length: 4 }, () => ({ k: mul(unit([rand() - 0.5, rand() - 0.5, rand() - 0.5]), 3 + rand() * 3), phase: rand() * Math.PI * 2 }));
  const g: Geometry = { positions: [], normals: [], uvs: [], indices: [] };
  const index = new Map<string, number>();
  const vertex = (q: Vec3): number => {
    const key = q.map((x) => Math.round(x * 1e6)).join(',');
    const found = index.get(key);
    if (found !== undefined) return found;
    const d = unit(q);
    let r = 1;
    for (const w of waves) r += (lumpiness / 2) * Math.sin(dot(w.k, d) + w.phase);
    g.positions.push(...add(center, mul(d, radius * r)));
    g.uvs.push(0.5 + Math.atan2(d[0], d[2]) / (2 * Math.PI), 0.5 - Math.asin(Math.max(-1, Math.min(1, d[1]))) / Math.PI);
    index.set(key, g.positions.length / 3 - 1);
    return g.positions.length / 3 - 1;
  };
  // normal, u and v with u x v = normal (as demo.ts's box)
  const faces = [
    1, 0, 0, 0, 0, -1, 0, 1, 0, -1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, -1, 0, -1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, -1, -1, 0,
    0, 0, 1, 0,
  ];
  for (let f = 0; f < 6; f++) {
    const [nrm, u, v] = vecs(...faces.slice(f * 9, f * 9 + 9)) as [Vec3, Vec3, Vec3];
    const at = (i: number, j: number) => vertex(add(nrm, add(mul(u, -1 + (2 * i) / n), mul(v, -1 + (2 * j) / n))));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const [a, b, c, d] = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
        g.indices.push(a, b, c, a, c, d);
      }
    }
  }
  return smooth(g);
}

export function mulMat(a: Mat3, b: Mat3): Mat3 {
  const col = (j: number): Vec3 => [b[0][j]!, b[1][j]!, b[2][j]!];
  return a.map((row) => [dot(row, col(0)), dot(row, col(1)), dot(row, col(2))]) as Mat3;
}

/** Pairs of numbers from a flat list: (radius, y) profiles for `lathe`. */
export const pairs = (...xs: number[]): [number, number][] => Array.from({ length: xs.length / 2 }, (_, i) => [xs[2 * i]!, xs[2 * i + 1]!]);

/** Points from a flat list of coordinates. */
export const vecs = (...xs: number[]): Vec3[] => Array.from({ length: xs.length / 3 }, (_, i) => [xs[3 * i]!, xs[3 * i + 1]!, xs[3 * i + 2]!]);
