import type { Document } from '@gltf-transform/core';
import { box, cylinder, merge, type Geometry } from './demo.ts';
import { assetDocument, assetDocumentsOf, pbr, polygon, random, writeInstanceAssets, type InstanceDemoKey } from './demo-instances.ts';
import {
  add,
  bezier,
  blob,
  cross,
  diag,
  dot,
  lathe,
  loft,
  mul,
  mulMat,
  pairs,
  ring,
  rotX,
  rotY,
  rotZ,
  spow,
  sub,
  transform,
  translate,
  tube,
  vecs,
  type Vec3,
} from './demo-shapes.ts';

/**
 * The instanced demo's realistic asset set (issue 35): the same six assets as src/server/demo-instances.ts
 * (same keys, sizes, origins and facing, so the city's layout fits them unchanged) at the triangle
 * density of real models, for `npm run demo -- instances N --assets realistic`. All of it our own
 * geometry (src/server/demo-shapes.ts): lathes, lofts and swept tubes with smooth normals, lumpy
 * leaf clusters, walls with their openings cut out. Deterministic: the seeded PRNG of the layout, no clock, no Math.random,
 * so the same bytes on every run. A few materials an asset (2 to 5: draw calls grow with them).
 *
 * Assets are in metres, Y up, origin at the base (on the ground) and centred on it; a house's and a
 * car's front face +Z, a street lamp's arm reaches along +X, a bench's seat faces +Z.
 */

/** About how many triangles each realistic asset has (the tests hold them to within 20 %). */
export const REALISTIC_TRIANGLE_TARGETS: Record<InstanceDemoKey, number> = {
  conifer: 5000,
  'broadleaf-tree': 5000,
  car: 10_000,
  house: 3000,
  'street-lamp': 1500,
  bench: 2000,
};

// ---------------------------------------------------------------------------------------------
// The trees.

function conifer(): Document {
  const rand = random(0xc0f1);
  const trunk = lathe([pairs(0.24, 0, 0.2, 0.35, 0.17, 1.5, 0.12, 4, 0.07, 6.5, 0.03, 8.2, 0, 8.9)], 10);
  // Whorls of boughs from 1.1 m up: long and drooping below, short near the top.
  const boughs: Geometry[] = [];
  const tiers = 11;
  for (let i = 0; i < tiers; i++) {
    const f = i / (tiers - 1);
    const y = 1.1 + f * 6.9;
    const length = 0.3 + 1.5 * (1 - f) ** 0.9;
    const count = Math.round(8 - 3 * f);
    const phase = i * 2.39996;
    for (let k = 0; k < count; k++) {
      const yaw = phase + (k / count) * Math.PI * 2 + (rand() - 0.5) * 0.5;
      const dir: Vec3 = [Math.sin(yaw), 0, Math.cos(yaw)];
      const l = length * (0.85 + rand() * 0.3);
      const droop = 0.45 + rand() * 0.25;
      const steps = 5;
      const path: Vec3[] = [];
      const radii: number[] = [];
      for (let s = 0; s <= steps; s++) {
        const t = s / steps;
        path.push(add(mul(dir, 0.08 + l * t), [0, y + l * (0.3 * t - droop * t * t), 0]));
        radii.push(s === steps ? 0 : l * 0.3 * (4 * t * (1 - t)) ** 0.6 + 0.05 * (1 - t));
      }
      // Flat sprays, their edges ragged like the needles'.
      boughs.push(tube(path, radii, 8, { aspect: 0.32, wobble: () => 0.85 + rand() * 0.3 }));
    }
  }
  return assetDocument('Conifer', (doc) => [
    [trunk, pbr(doc, 'Bark', [0.3, 0.2, 0.13], 0, 0.95)],
    [merge(...boughs), pbr(doc, 'Needles', [0.08, 0.3, 0.14], 0, 0.9)],
  ]);
}

function broadleafTree(): Document {
  const rand = random(0xb10a);
  const wood: Geometry[] = [];
  const leaves: Geometry[] = [];
  // The trunk, leaning a little, flared at the foot, on into a leader with the top cluster.
  const trunkPath = vecs(0, 0, 0, 0, 0.3, 0, 0.06, 1.3, 0.02, 0.1, 2.4, -0.04, 0.12, 3.4, 0, 0.1, 4.4, 0.05, 0.06, 5.2, 0.04);
  wood.push(tube(trunkPath, [0.3, 0.22, 0.19, 0.17, 0.12, 0.08, 0], 12, { open: true }));
  leaves.push(blob([0.05, 5.7, 0.05], 1.35, 6, rand));
  // Main limbs from the crotch, each forking into two twigs that end in a leaf cluster.
  const limbs = 5;
  for (let k = 0; k < limbs; k++) {
    const yaw = (k / limbs) * Math.PI * 2 + (rand() - 0.5) * 0.6;
    const rise = ((40 + rand() * 20) * Math.PI) / 180;
    const length = 1.7 + rand() * 0.4;
    const y0 = 2.5 + k * 0.18;
    const dir: Vec3 = [Math.sin(yaw) * Math.cos(rise), Math.sin(rise), Math.cos(yaw) * Math.cos(rise)];
    const p0: Vec3 = [0.1, y0, -0.02];
    const p3 = add(p0, mul(dir, length));
    const limb = bezier(p0, add(p0, add(mul(dir, length * 0.4), [0, -0.15, 0])), add(p0, mul(dir, length * 0.75)), p3, 5);
    wood.push(tube(limb, [0.12, 0.11, 0.095, 0.08, 0.065, 0.055], 8));
    // An inner cluster along the limb fills the crown.
    if (k % 2 === 0) leaves.push(blob(add(add(p0, mul(dir, length * 0.6)), [0, 0.55, 0]), 1.0 + rand() * 0.2, 5, rand));
    for (const side of [-1, 1]) {
      const tyaw = yaw + side * (0.5 + rand() * 0.3);
      const trise = rise - 0.25 + rand() * 0.3;
      const tdir: Vec3 = [Math.sin(tyaw) * Math.cos(trise), Math.sin(trise), Math.cos(tyaw) * Math.cos(trise)];
      const tl = 0.8 + rand() * 0.3;
      const tip = add(p3, mul(tdir, tl));
      wood.push(tube(bezier(p3, add(p3, mul(tdir, tl * 0.35)), add(p3, add(mul(tdir, tl * 0.7), [0, 0.05, 0])), tip, 2), [0.055, 0.04, 0], 6));
      leaves.push(blob(add(tip, [0, 0.25, 0]), 0.95 + rand() * 0.3, 5, rand));
    }
  }
  return assetDocument('Broadleaf tree', (doc) => [
    [merge(...wood), pbr(doc, 'Bark', [0.33, 0.24, 0.16], 0, 0.95)],
    [merge(...leaves), pbr(doc, 'Leaves', [0.24, 0.45, 0.13], 0, 0.85)],
  ]);
}

// ---------------------------------------------------------------------------------------------
// The car: front to +Z, 4.3 m long, 1.8 m wide, wheels 0.64 m across.

const CAR = { length: 4.3, width: 1.8, wheelZ: 1.35, wheelX: 0.78, wheelR: 0.322, archR: 0.42 } as const;

/** The body's lower edge: 0.3 m above the road, arched over the wheels. */
function carBottom(z: number): number {
  let y = 0.3;
  for (const wz of [CAR.wheelZ, -CAR.wheelZ]) {
    const dz = z - wz;
    if (Math.abs(dz) < CAR.archR) y = Math.max(y, CAR.wheelR + Math.sqrt(CAR.archR ** 2 - dz * dz));
  }
  return y;
}

/** The body's top (the belt line): the hood falling to the nose, the boot lid at the back. */
function carTop(z: number): number {
  if (z > 0.85) return 0.98 - 0.13 * ((z - 0.85) / 1.3) ** 1.6;
  if (z < -1.35) return 1.0 - 0.08 * ((-1.35 - z) / 0.8) ** 2;
  return 0.98 + 0.02 * ((0.85 - z) / 2.2);
}

function carBody(): Geometry {
  const rings: Vec3[][] = [];
  const n = 44;
  const cols = 44;
  const half = CAR.length / 2;
  for (let i = 1; i < n; i++) {
    const z = half * Math.sin(((i / n) * 2 - 1) * (Math.PI / 2));
    const end = Math.abs(z) / half;
    const s = (1 - end ** 8) ** (1 / 8);
    const bottom = carBottom(z);
    const top = carTop(z);
    const yc = (bottom + top) / 2;
    const hh = ((top - bottom) / 2) * (0.6 + 0.4 * s);
    const hw = (CAR.width / 2) * s * (1 - 0.04 * end ** 2);
    const points: Vec3[] = [];
    for (let j = 0; j < cols; j++) {
      const a = (j / cols) * Math.PI * 2;
      const sy = spow(Math.sin(a), 0.35);
      // Narrower at the shoulder (tumblehome).
      const x = hw * spow(Math.cos(a), 0.3) * (1 - 0.07 * Math.max(0, sy));
      // Rings advance along +Z: u = +X, v = +Y (X x Y = Z).
      points.push([x, yc + hh * sy, z]);
    }
    rings.push(points);
  }
  const nose = (y: number): Vec3 => [0, y, 0];
  return loft(rings, {
    start: add(nose((carBottom(-half) + carTop(-half)) / 2), [0, 0, -half]),
    end: add(nose((carBottom(half) + carTop(half)) / 2), [0, 0, half]),
  });
}

/** The greenhouse's cross-section at z: from inside the body (y 0.9) up to the roof line. */
function cabinRing(z: number, cols: number): Vec3[] {
  // Windscreen from z 0.85 (belt) back to 0.1 (roof), rear window from -0.95 down to -1.4.
  const roof = 1.45;
  let top = roof;
  if (z > 0.1) top = 0.98 + (roof - 0.98) * Math.max(0, 1 - (z - 0.1) / 0.75) ** 0.8;
  if (z < -0.95) top = 1.0 + (roof - 1.0) * Math.max(0, 1 - (-0.95 - z) / 0.45) ** 0.7;
  const bottom = 0.9;
  const yc = (top + bottom) / 2;
  const hh = (top - bottom) / 2;
  const points: Vec3[] = [];
  for (let j = 0; j < cols; j++) {
    const a = (j / cols) * Math.PI * 2;
    const sy = spow(Math.sin(a), 0.3);
    const y = yc + hh * sy;
    // Narrower towards the roof.
    const hw = 0.8 - 0.12 * Math.max(0, (y - 0.98) / (roof - 0.98));
    points.push([hw * spow(Math.cos(a), 0.3), y, z]);
  }
  return points;
}

function carCabin(): { glass: Geometry; pillars: Geometry; roof: Geometry } {
  const cols = 32;
  const rings: Vec3[][] = [];
  const zs: number[] = [];
  for (let i = 0; i <= 18; i++) zs.push(-1.4 + (2.25 * i) / 18);
  for (const z of zs) rings.push(cabinRing(z, cols));
  const glass = loft(rings, { start: [0, 0.95, -1.4], end: [0, 0.95, 0.85], sharp: true });
  // Pillars: thin tubes along the glass's upper side corners and at the door gap.
  const corner = Math.round(cols / 8);
  const pillars: Geometry[] = [];
  for (const side of [1, -1]) {
    const j = side > 0 ? corner : cols / 2 - corner;
    const along = (from: number, to: number, k: number) => Array.from({ length: k + 1 }, (_, i) => from + ((to - from) * i) / k);
    const edge = (zs2: number[]) => zs2.map((z) => cabinRing(z, cols)[j]!).map((p) => add(p, [side * 0.012, 0.006, 0]) as Vec3);
    // A-pillar, roof rail, C-pillar in one sweep; the B-pillar straight down at the door gap.
    pillars.push(tube(edge(along(0.84, -1.38, 14)), new Array(15).fill(0.035), 6, { aspect: 0.8 }));
    const top = cabinRing(-0.42, cols)[j]!;
    pillars.push(tube([add(top, [side * 0.01, 0, 0]), [side * 0.8, 0.95, -0.42]], [0.04, 0.04], 6));
  }
  const roof: Vec3[][] = [];
  for (let i = 0; i <= 10; i++) {
    const z = -0.9 + (0.95 * i) / 10;
    const s = Math.sin((Math.PI * (i + 0.5)) / 11.5) ** 0.15;
    roof.push(ring([0, 1.455, z], [1, 0, 0], [0, 1, 0], 0.685 * s, 0.02, 24, 0.3));
  }
  return { glass, pillars: merge(...pillars), roof: loft(roof, { start: [0, 1.455, -0.92], end: [0, 1.455, 0.07] }) };
}

function car(): Document {
  const { glass, pillars, roof } = carCabin();
  const rubber: Geometry[] = [];
  const chrome: Geometry[] = [];
  for (const z of [CAR.wheelZ, -CAR.wheelZ]) {
    for (const side of [1, -1]) {
      // Built about +Y with the outside up, then turned so the outside faces away from the car.
      const tyre = lathe(
        [pairs(0.215, -0.11, 0.27, -0.115, 0.305, -0.105, 0.318, -0.08, 0.322, -0.04, 0.322, 0.04, 0.318, 0.08, 0.305, 0.105, 0.27, 0.115, 0.215, 0.11)],
        24,
      );
      const rim = lathe([pairs(0.215, 0.11, 0.2, 0.1, 0.17, 0.06, 0.09, 0.055, 0.06, 0.085, 0.035, 0.095, 0, 0.095)], 24);
      const spokes: Geometry[] = [];
      for (let k = 0; k < 5; k++) spokes.push(transform(box([0.035, 0.03, 0.12], [0, 0.07, 0.125]), rotY((k / 5) * Math.PI * 2)));
      const turn = rotZ(-side * (Math.PI / 2));
      const at: Vec3 = [side * CAR.wheelX, CAR.wheelR, z];
      rubber.push(transform(tyre, turn, at));
      chrome.push(transform(merge(rim, ...spokes), turn, at));
    }
  }
  const half = CAR.length / 2;
  // Bumpers: rounded bars across the ends; a grille between the headlights.
  for (const end of [1, -1]) {
    const zb = end * (half - 0.02);
    rubber.push(
      tube(
        bezier([-0.86, 0.42, zb - end * 0.3], [-0.78, 0.42, zb + end * 0.1], [0.78, 0.42, zb + end * 0.1], [0.86, 0.42, zb - end * 0.3], 10),
        new Array(11).fill(0.07),
        10,
        { ref: [0, 0, 1] },
      ),
    );
  }
  for (let k = 0; k < 4; k++) rubber.push(box([0.7, 0.025, 0.04], [0, 0.6 + k * 0.055, half - 0.05 - k * 0.012]));
  // Mirrors on stalks, door handles, number plates.
  const paint: Geometry[] = [carBody(), roof, pillars];
  for (const side of [1, -1]) {
    paint.push(transform(blob([0, 0, 0], 1, 3, random(7), 0), diag(0.06, 0.065, 0.1), [side * 0.98, 1.05, 0.62]));
    rubber.push(box([0.12, 0.03, 0.05], [side * 0.88, 1.02, 0.64]));
    for (const z of [0.1, -0.75]) chrome.push(box([0.03, 0.025, 0.16], [side * 0.895, 0.9, z]));
  }
  chrome.push(box([0.52, 0.12, 0.02], [0, 0.5, half + 0.005]), box([0.52, 0.12, 0.02], [0, 0.7, -half - 0.005]));
  const lights: Geometry[] = [];
  const tail: Geometry[] = [];
  for (const side of [1, -1]) {
    lights.push(transform(blob([0, 0, 0], 1, 4, random(11), 0), diag(0.17, 0.075, 0.08), [side * 0.55, 0.75, half - 0.085]));
    tail.push(transform(blob([0, 0, 0], 1, 3, random(13), 0), diag(0.15, 0.08, 0.06), [side * 0.58, 0.85, -half + 0.07]));
  }
  return assetDocument('Car', (doc) => [
    [merge(...paint), pbr(doc, 'Car paint', [0.62, 0.08, 0.08], 0.6, 0.35)],
    [merge(glass, ...tail), pbr(doc, 'Car glass', [0.1, 0.13, 0.16], 0.2, 0.1)],
    [merge(...rubber), pbr(doc, 'Tyres and trim', [0.04, 0.04, 0.045], 0, 0.9)],
    [merge(...chrome), pbr(doc, 'Wheel rims', [0.75, 0.76, 0.78], 1, 0.3)],
    [merge(...lights), pbr(doc, 'Headlights', [1, 0.97, 0.85], 0, 0.2).setEmissiveFactor([1, 0.95, 0.8])],
  ]);
}

// ---------------------------------------------------------------------------------------------
// The house: 8 x 7.5 m, walls 5.6 m to the eaves, a gable roof to 8.4 m, front door to +Z.

interface Opening {
  /** Centre along the wall, from its left end seen from outside, and bottom and size (metres). */
  u: number;
  y: number;
  w: number;
  h: number;
  door?: boolean;
}

/** A wall's local frame: u along it (left to right seen from outside), y up, depth into it. */
interface WallFrame {
  origin: Vec3;
  along: Vec3;
  out: Vec3;
}

const at = (f: WallFrame, u: number, y: number, depth: number): Vec3 => add(add(f.origin, mul(f.along, u)), add([0, y, 0], mul(f.out, -depth)));

/** An axis-aligned box in a wall's frame (walls run along X or Z, so it stays axis-aligned). */
function wallBox(f: WallFrame, u: number, y: number, depth: number, su: number, sy: number, sd: number): Geometry {
  const size: Vec3 = Math.abs(f.along[0]) > 0.5 ? [su, sy, sd] : [sd, sy, su];
  return box(size, at(f, u, y, depth));
}

/** A flat polygon in a wall's frame, wound so that its face looks along `facing` (world). */
function quad(f: WallFrame, facing: Vec3, ...pts: [number, number, number][]): Geometry {
  const world = pts.map(([u, y, d]) => at(f, u, y, d));
  const [a, b, c] = world as [Vec3, Vec3, Vec3];
  return polygon(dot(cross(sub(b, a), sub(c, a)), facing) > 0 ? world : world.reverse());
}

const REVEAL = 0.22;

/**
 * A wall's outer face from y 0 to `top` (and a gable triangle to `ridge` above it), with its openings
 * cut out and lined (reveals), and what fills them: frames, mullions, sills, glass; the door.
 */
function wall(
  f: WallFrame,
  length: number,
  top: number,
  openings: Opening[],
  ridge?: number,
): { plaster: Geometry[]; trim: Geometry[]; glass: Geometry[]; door: Geometry[] } {
  const plaster: Geometry[] = [];
  const trim: Geometry[] = [];
  const glass: Geometry[] = [];
  const door: Geometry[] = [];
  const us = [...new Set([0, length, ...openings.flatMap((o) => [o.u - o.w / 2, o.u + o.w / 2])])].sort((a, b) => a - b);
  const ys = [...new Set([0, top, ...openings.flatMap((o) => [o.y, o.y + o.h])])].sort((a, b) => a - b);
  const inside = (u: number, y: number) => openings.some((o) => Math.abs(u - o.u) < o.w / 2 && y > o.y && y < o.y + o.h);
  for (let r = 0; r + 1 < ys.length; r++) {
    const [y0, y1] = [ys[r]!, ys[r + 1]!];
    let c = 0;
    while (c + 1 < us.length) {
      if (inside((us[c]! + us[c + 1]!) / 2, (y0 + y1) / 2)) {
        c++;
        continue;
      }
      let e = c + 1;
      while (e + 1 < us.length && !inside((us[e]! + us[e + 1]!) / 2, (y0 + y1) / 2)) e++;
      plaster.push(quad(f, f.out, [us[c]!, y0, 0], [us[e]!, y0, 0], [us[e]!, y1, 0], [us[c]!, y1, 0]));
      c = e;
    }
  }
  if (ridge !== undefined) plaster.push(quad(f, f.out, [0, top, 0], [length, top, 0], [length / 2, ridge, 0]));
  for (const o of openings) {
    const [u0, u1, y0, y1] = [o.u - o.w / 2, o.u + o.w / 2, o.y, o.y + o.h];
    // The reveals, facing into the opening.
    plaster.push(
      quad(f, f.along, [u0, y0, 0], [u0, y1, 0], [u0, y1, REVEAL], [u0, y0, REVEAL]),
      quad(f, mul(f.along, -1), [u1, y0, 0], [u1, y0, REVEAL], [u1, y1, REVEAL], [u1, y1, 0]),
      quad(f, [0, -1, 0], [u0, y1, 0], [u1, y1, 0], [u1, y1, REVEAL], [u0, y1, REVEAL]),
    );
    if (!o.door) plaster.push(quad(f, [0, 1, 0], [u0, y0, 0], [u0, y0, REVEAL], [u1, y0, REVEAL], [u1, y0, 0]));
    // A surround on the face: head and jambs; a sill under a window, a step before the door.
    const band = 0.1;
    trim.push(
      wallBox(f, o.u, y1 + band / 2, -0.015, o.w + 2 * band, band, 0.03),
      wallBox(f, u0 - band / 2, (y0 + y1) / 2, -0.015, band, o.h, 0.03),
      wallBox(f, u1 + band / 2, (y0 + y1) / 2, -0.015, band, o.h, 0.03),
    );
    if (o.door) {
      // A panelled leaf with a handle, in a frame.
      door.push(wallBox(f, o.u, y0 + o.h / 2, 0.15, o.w - 0.1, o.h - 0.05, 0.05));
      for (const pu of [-0.22, 0.22]) for (const py of [0.55, 1.5]) door.push(wallBox(f, o.u + pu, y0 + py, 0.12, 0.34, py < 1 ? 0.7 : 0.9, 0.02));
      trim.push(
        wallBox(f, u0 + 0.025, y0 + o.h / 2, 0.1, 0.05, o.h, 0.1),
        wallBox(f, u1 - 0.025, y0 + o.h / 2, 0.1, 0.05, o.h, 0.1),
        wallBox(f, o.u, y1 - 0.025, 0.1, o.w, 0.05, 0.1),
      );
      const knob = cylinder({
        radius: 0.03,
        height: 0.08,
        segments: 10,
        axis: Math.abs(f.along[0]) > 0.5 ? 'z' : 'x',
        center: at(f, u1 - 0.15, y0 + 1.05, 0.09),
      });
      trim.push(knob);
    } else {
      trim.push(wallBox(f, o.u, y0 - 0.02, -0.06, o.w + 0.2, 0.06, 0.2));
      // Frame, mullion and transom, with the glass behind.
      const t = 0.06;
      const d = REVEAL - 0.08;
      trim.push(
        wallBox(f, o.u, y0 + t / 2, d, o.w, t, 0.07),
        wallBox(f, o.u, y1 - t / 2, d, o.w, t, 0.07),
        wallBox(f, u0 + t / 2, (y0 + y1) / 2, d, t, o.h - 2 * t, 0.07),
        wallBox(f, u1 - t / 2, (y0 + y1) / 2, d, t, o.h - 2 * t, 0.07),
        wallBox(f, o.u, (y0 + y1) / 2, d, 0.045, o.h - 2 * t, 0.05),
        wallBox(f, o.u, y0 + o.h * 0.68, d, o.w - 2 * t, 0.045, 0.05),
      );
      glass.push(quad(f, f.out, [u0, y0, d + 0.02], [u1, y0, d + 0.02], [u1, y1, d + 0.02], [u0, y1, d + 0.02]));
    }
  }
  return { plaster, trim, glass, door };
}

function house(): Document {
  const [w, h, d] = [8, 5.6, 7.5];
  const overhang = 0.45;
  const ridge = h + 2.8;
  const ze = d / 2 + overhang;
  const pitch = Math.atan2(ridge - h, ze);
  // The front and back walls reach up to the roof's underside; the gables follow it to the ridge.
  const eave = h + overhang * Math.tan(pitch);
  const win = (u: number, y: number): Opening => ({ u, y, w: 1.2, h: 1.3 });
  const frames: [WallFrame, number, Opening[], number?][] = [
    [
      { origin: [-w / 2, 0, d / 2], along: [1, 0, 0], out: [0, 0, 1] },
      w,
      [win(1.4, 1.0), win(6.6, 1.0), win(1.4, 3.5), win(6.6, 3.5), win(4, 3.5), { u: 4, y: 0.35, w: 1.1, h: 2.2, door: true }],
    ],
    [{ origin: [w / 2, 0, -d / 2], along: [-1, 0, 0], out: [0, 0, -1] }, w, [win(1.4, 1.0), win(6.6, 1.0), win(1.4, 3.5), win(6.6, 3.5), win(4, 3.5)]],
    [{ origin: [w / 2, 0, d / 2], along: [0, 0, -1], out: [1, 0, 0] }, d, [win(2.2, 1.0), win(5.3, 1.0), win(3.75, 3.5)], ridge],
    [{ origin: [-w / 2, 0, -d / 2], along: [0, 0, 1], out: [-1, 0, 0] }, d, [win(2.2, 1.0), win(5.3, 1.0), win(3.75, 3.5)], ridge],
  ];
  const plaster: Geometry[] = [box([w + 0.3, 0.35, d + 0.3], [0, 0.175, 0])];
  const trim: Geometry[] = [];
  const glass: Geometry[] = [];
  const door: Geometry[] = [];
  for (const [f, length, openings, top] of frames) {
    const parts = wall(f, length, eave, openings, top);
    plaster.push(...parts.plaster);
    trim.push(...parts.trim);
    glass.push(...parts.glass);
    door.push(...parts.door);
  }
  // Steps and a canopy at the door.
  plaster.push(box([1.7, 0.17, 0.5], [0, 0.085, d / 2 + 0.4]), box([1.5, 0.17, 0.3], [0, 0.255, d / 2 + 0.3]));
  trim.push(box([1.7, 0.1, 1.0], [0, 2.85, d / 2 + 0.5]));
  for (const x of [-0.7, 0.7]) trim.push(transform(box([0.06, 0.5, 0.06], [0, 0, 0]), rotX(-Math.PI / 4), [x, 2.62, d / 2 + 0.2]));
  // The roof: two slabs, rows of tiles on them, a ridge, barge boards, gutters and downpipes.
  const roof: Geometry[] = [];
  const slope = Math.hypot(ze, ridge - h);
  const width = w + 2 * overhang;
  const rows = 14;
  for (const side of [1, -1]) {
    // Turned so the slab's +Z runs down the slope from the ridge to this side's eave, +Y out of it.
    const frame = side > 0 ? rotX(pitch) : mulMat(rotY(Math.PI), rotX(pitch));
    const base: Vec3 = [0, ridge, 0];
    const onSlope = (g: Geometry) => transform(g, frame, base);
    // Underside of the slab on the plane through the eave and the ridge.
    roof.push(onSlope(box([width, 0.12, slope], [0, 0.06, slope / 2])));
    for (let r = 0; r < rows; r++) {
      const s0 = (slope * r) / rows;
      const len = (slope / rows) * 1.15;
      roof.push(onSlope(transform(box([width, 0.035, len], [0, 0, len / 2]), rotX(-0.05), [0, 0.12 + 0.012, s0])));
    }
    trim.push(onSlope(box([width + 0.04, 0.2, 0.04], [0, 0.0, slope + 0.02])));
    for (const x of [-width / 2 - 0.02, width / 2 + 0.02]) trim.push(onSlope(box([0.04, 0.22, slope + 0.02], [x, 0.05, slope / 2])));
    // A half-round gutter under the eave.
    const gz = side * (ze + 0.1);
    trim.push(cylinder({ radius: 0.08, height: width, segments: 10, axis: 'x', center: [0, h - 0.05, gz] }));
    const px = side * (w / 2 - 0.3);
    trim.push(
      cylinder({ radius: 0.045, height: h - 0.1, segments: 8, center: [px, (h - 0.1) / 2, side * (d / 2 + 0.08)] }),
      tube(
        [
          [px, h - 0.12, side * (d / 2 + 0.08)],
          [px, h - 0.02, side * (ze + 0.08)],
        ],
        [0.045, 0.045],
        8,
        { open: true },
      ),
    );
  }
  roof.push(cylinder({ radius: 0.12, height: width + 0.05, segments: 14, axis: 'x', center: [0, ridge + 0.1, 0] }));
  // The chimney on the back slope, brick in the roof's colour, with two pots.
  roof.push(box([0.7, 2.6, 0.7], [2.2, 6.4 + 1.3, -1.4]), box([0.85, 0.1, 0.85], [2.2, 9.05, -1.4]));
  const pot = lathe([pairs(0.09, 9.1, 0.08, 9.35, 0.1, 9.4, 0.07, 9.42, 0, 9.3)], 10);
  for (const x of [2.05, 2.35]) roof.push(translate(pot, [x, 0, -1.4]));
  return assetDocument('House', (doc) => [
    [merge(...plaster), pbr(doc, 'Plaster', [0.86, 0.8, 0.7], 0, 0.9)],
    [merge(...roof), pbr(doc, 'Roof tiles', [0.55, 0.2, 0.14], 0, 0.8)],
    [merge(...glass), pbr(doc, 'Window glass', [0.2, 0.32, 0.42], 0.1, 0.15)],
    [merge(...trim), pbr(doc, 'White trim', [0.92, 0.92, 0.9], 0, 0.6)],
    [merge(...door), pbr(doc, 'Door wood', [0.36, 0.2, 0.1], 0, 0.7)],
  ]);
}

// ---------------------------------------------------------------------------------------------
// The street lamp: a post at the origin, the arm along +X to a lantern at x 1.5 m.

function streetLamp(): Document {
  const post = lathe(
    [
      pairs(0.25, 0, 0.25, 0.12),
      pairs(0.25, 0.12, 0.21, 0.16, 0.21, 0.4, 0.17, 0.46, 0.17, 0.5),
      pairs(0.17, 0.5, 0.13, 0.58, 0.1, 0.68, 0.085, 0.8),
      pairs(0.085, 0.8, 0.08, 2.5, 0.072, 4.2, 0.065, 5.6, 0.062, 5.9),
      pairs(0.062, 5.9, 0.085, 5.95, 0.085, 6.05, 0.062, 6.1),
      pairs(0.062, 6.1, 0.055, 6.25, 0.07, 6.32, 0.05, 6.4, 0.02, 6.46, 0, 6.5),
    ],
    16,
  );
  // The arm: a swept curve from the post's collar to the lantern, with a scroll beneath it.
  const arm = tube(
    bezier([0, 6.0, 0], [0.25, 6.32, 0], [0.9, 6.38, 0], [1.5, 6.32, 0], 14),
    [0.045, 0.045, 0.043, 0.042, 0.04, 0.039, 0.038, 0.037, 0.036, 0.035, 0.034, 0.034, 0.033, 0.033, 0.033],
    10,
    { ref: [0, 0, 1] },
  );
  const scroll: Vec3[] = [];
  for (let i = 0; i <= 16; i++) {
    const a = Math.PI * 0.9 + (i / 16) * Math.PI * 1.7;
    const r = 0.22 - (i / 16) * 0.12;
    scroll.push([0.32 + r * Math.cos(a), 6.02 + r * Math.sin(a) * 0.9, 0]);
  }
  const curl = tube(scroll, new Array(17).fill(0.018), 6, { ref: [0, 0, 1] });
  const hook = lathe([pairs(0.03, 6.2, 0.03, 6.32)], 8);
  const hood = lathe([pairs(0.17, 6.14, 0.31, 6.14), pairs(0.31, 6.14, 0.3, 6.17, 0.22, 6.23, 0.12, 6.28, 0.05, 6.3, 0, 6.31)], 24);
  const bowl = lathe([pairs(0, 5.93, 0.06, 5.94, 0.11, 5.98, 0.15, 6.05, 0.17, 6.14)], 24);
  const head: Vec3 = [1.5, 0, 0];
  return assetDocument('Street lamp', (doc) => [
    [merge(post, arm, curl, translate(merge(hook, hood), head)), pbr(doc, 'Lamp post steel', [0.2, 0.22, 0.24], 0.8, 0.45)],
    [translate(bowl, head), pbr(doc, 'Lamp glass', [1, 0.93, 0.75], 0, 0.2).setEmissiveFactor([1, 0.88, 0.6])],
  ]);
}

// ---------------------------------------------------------------------------------------------
// The park bench: 1.8 m of slats along X, the seat facing +Z.

function bench(): Document {
  const slat = (center: Vec3, tiltX: number, depth: number, thick: number): Geometry => {
    // A rounded-edged plank along X, sagging a little in the middle.
    const rings: Vec3[][] = [];
    const n = 6;
    for (let i = 0; i <= n; i++) {
      const x = -0.9 + (1.8 * i) / n;
      const sag = -0.008 * Math.cos((Math.PI * (i - n / 2)) / n);
      // Rings advance along +X: u = +Y, v = +Z (Y x Z = X).
      rings.push(ring([x, sag, 0], [0, 1, 0], [0, 0, 1], thick / 2, depth / 2, 10, 0.35));
    }
    return transform(loft(rings, { start: [-0.9, 0, 0], end: [0.9, 0, 0], sharp: true }), rotX(tiltX), center);
  };
  const wood: Geometry[] = [];
  for (let i = 0; i < 4; i++) wood.push(slat([0, 0.45, 0.13 - i * 0.115], 0, 0.095, 0.035));
  const back = 0.26;
  // The back's planks lean back by 0.26 rad: their width runs up and a little to -Z.
  for (let i = 0; i < 3; i++) wood.push(slat([0, 0.58 + i * 0.13, -0.31 - i * 0.035], -(Math.PI / 2 + back), 0.1, 0.03));
  const iron: Geometry[] = [];
  for (const x of [-0.72, 0.72]) {
    const side = (path: Vec3[], r: number) => iron.push(tube(path, new Array(path.length).fill(r), 8, { ref: [1, 0, 0], aspect: 1.4 }));
    // The front leg rising into the armrest.
    side(bezier([x, 0.02, 0.18], [x, 0.4, 0.24], [x, 0.62, 0.22], [x, 0.66, -0.05], 9), 0.02);
    side(bezier([x, 0.66, -0.05], [x, 0.68, -0.2], [x, 0.66, -0.3], [x, 0.62, -0.36], 4), 0.018);
    // The rear leg and the back's support, one curve.
    side(bezier([x, 0.02, -0.33], [x, 0.3, -0.3], [x, 0.5, -0.3], [x, 0.92, -0.42], 10), 0.022);
    // The seat's bearer under the slats.
    side(bezier([x, 0.42, 0.2], [x, 0.41, 0.05], [x, 0.41, -0.15], [x, 0.43, -0.31], 6), 0.016);
    for (const z of [0.18, -0.33]) iron.push(box([0.08, 0.02, 0.1], [x, 0.01, z]));
  }
  return assetDocument('Park bench', (doc) => [
    [merge(...wood), pbr(doc, 'Bench wood', [0.55, 0.36, 0.2], 0, 0.8)],
    [merge(...iron), pbr(doc, 'Cast iron', [0.12, 0.14, 0.13], 0.7, 0.5)],
  ]);
}

const BUILDERS: Record<InstanceDemoKey, () => Document> = {
  conifer,
  'broadleaf-tree': broadleafTree,
  car,
  house,
  'street-lamp': streetLamp,
  bench,
};

/** The realistic asset documents, in INSTANCE_DEMO_ASSETS order (for tests and tools). */
export function createRealisticInstanceAssetDocuments(): { key: InstanceDemoKey; name: string; doc: Document }[] {
  return assetDocumentsOf(BUILDERS);
}

/** The realistic assets as GLB bytes with their triangle counts. */
export async function createRealisticInstanceAssets(): Promise<{ key: InstanceDemoKey; name: string; glb: Uint8Array; triangles: number }[]> {
  return writeInstanceAssets(createRealisticInstanceAssetDocuments());
}
