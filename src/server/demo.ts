import { Document, NodeIO } from '@gltf-transform/core';
import type { Buffer as GltfBuffer, Material, Mesh, Node } from '@gltf-transform/core';
import type { SceneDoc } from '../protocol/scene.ts';
import { importModel } from './import.ts';
import type { Store } from './store.ts';
import { DEMO_SCENE_ID } from './demo-scenes.ts';

/**
 * The demo scene `npm start` opens: a pump unit generated here from simple shapes (nothing
 * copied), in metres (about 3 x 1.7 x 1.6 m), with meaningful node names, nine PBR materials
 * (metal, paints, rubber, glass, an emissive lamp) and two looping animations: 'Spin' turns the
 * motor's rotor (shaft, fan, coupling) and 'Gauge' swings the pressure gauge needle.
 */

export { DEMO_SCENE_ID } from './demo-scenes.ts';
export const DEMO_SCENE_NAME = 'Demo machine';
export const DEMO_FILE_NAME = 'demo-machine.glb';
export const DEMO_GENERATOR = 'parametricos demo';

// ---------------------------------------------------------------------------------------------
// Geometry builders. Each returns flat arrays; triangles wind counter-clockwise seen from outside.

export interface Geometry {
  positions: number[];
  normals: number[];
  uvs: number[];
  indices: number[];
}

type Vec3 = [number, number, number];
type Quat = [number, number, number, number];
export type Axis = 'x' | 'y' | 'z';

function emptyGeometry(): Geometry {
  return { positions: [], normals: [], uvs: [], indices: [] };
}

/** Rotates a vector given along +Y onto `axis` (proper rotations, so winding is kept). */
function alongAxis(axis: Axis, [x, y, z]: Vec3): Vec3 {
  if (axis === 'x') return [y, -x, z];
  if (axis === 'z') return [x, -z, y];
  return [x, y, z];
}

/** An axis-aligned box of `size` centred on `center`, four vertices per face, UVs 0..1 per face. */
export function box(size: Vec3, center: Vec3 = [0, 0, 0]): Geometry {
  const g = emptyGeometry();
  const half: Vec3 = [size[0] / 2, size[1] / 2, size[2] / 2];
  // normal, u and v with u x v = normal
  const faces: [Vec3, Vec3, Vec3][] = [
    [[1, 0, 0], [0, 0, -1], [0, 1, 0]],
    [[-1, 0, 0], [0, 0, 1], [0, 1, 0]],
    [[0, 1, 0], [1, 0, 0], [0, 0, -1]],
    [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
    [[0, 0, 1], [1, 0, 0], [0, 1, 0]],
    [[0, 0, -1], [-1, 0, 0], [0, 1, 0]],
  ];
  const corners: [number, number, number, number][] = [
    [-1, -1, 0, 1],
    [1, -1, 1, 1],
    [1, 1, 1, 0],
    [-1, 1, 0, 0],
  ];
  for (const [n, u, v] of faces) {
    const base = g.positions.length / 3;
    for (const [su, sv, tu, tv] of corners) {
      for (let k = 0; k < 3; k++) {
        g.positions.push(center[k] + (n[k] + su * u[k] + sv * v[k]) * half[k]);
        g.normals.push(n[k]);
      }
      g.uvs.push(tu, tv);
    }
    g.indices.push(base, base + 1, base + 2, base, base + 2, base + 3);
  }
  return g;
}

export interface CylinderOptions {
  radius: number;
  height: number;
  /** 6 gives a hex bolt head. */
  segments?: number;
  axis?: Axis;
  center?: Vec3;
  capped?: boolean;
}

/** A cylinder along `axis`, smooth sides (u around, v along), flat caps with planar UVs. */
export function cylinder({ radius, height, segments = 32, axis = 'y', center = [0, 0, 0], capped = true }: CylinderOptions): Geometry {
  const g = emptyGeometry();
  const push = (p: Vec3, n: Vec3, uv: [number, number]) => {
    const q = alongAxis(axis, p);
    const m = alongAxis(axis, n);
    g.positions.push(q[0] + center[0], q[1] + center[1], q[2] + center[2]);
    g.normals.push(m[0], m[1], m[2]);
    g.uvs.push(uv[0], uv[1]);
  };
  const h = height / 2;
  const side = g.positions.length / 3;
  for (let i = 0; i <= segments; i++) {
    const a = (i / segments) * Math.PI * 2;
    const s = Math.sin(a);
    const c = Math.cos(a);
    push([radius * s, -h, radius * c], [s, 0, c], [i / segments, 1]);
    push([radius * s, h, radius * c], [s, 0, c], [i / segments, 0]);
  }
  for (let i = 0; i < segments; i++) {
    const bl = side + i * 2;
    const tl = bl + 1;
    const br = bl + 2;
    const tr = bl + 3;
    g.indices.push(bl, br, tr, bl, tr, tl);
  }
  if (capped) {
    for (const sign of [1, -1]) {
      const centerIndex = g.positions.length / 3;
      push([0, sign * h, 0], [0, sign, 0], [0.5, 0.5]);
      for (let i = 0; i <= segments; i++) {
        const a = (i / segments) * Math.PI * 2;
        const s = Math.sin(a);
        const c = Math.cos(a);
        push([radius * s, sign * h, radius * c], [0, sign, 0], [0.5 + 0.5 * s, 0.5 - 0.5 * c]);
      }
      for (let i = 0; i < segments; i++) {
        const a = centerIndex + 1 + i;
        if (sign > 0) g.indices.push(centerIndex, a, a + 1);
        else g.indices.push(centerIndex, a + 1, a);
      }
    }
  }
  return g;
}

/** A UV sphere (u around, v from top to bottom). */
export function sphere(radius: number, center: Vec3 = [0, 0, 0], widthSegments = 24, heightSegments = 16): Geometry {
  const g = emptyGeometry();
  for (let j = 0; j <= heightSegments; j++) {
    const phi = (j / heightSegments) * Math.PI;
    for (let i = 0; i <= widthSegments; i++) {
      const theta = (i / widthSegments) * Math.PI * 2;
      const n: Vec3 = [Math.sin(phi) * Math.sin(theta), Math.cos(phi), Math.sin(phi) * Math.cos(theta)];
      g.positions.push(center[0] + radius * n[0], center[1] + radius * n[1], center[2] + radius * n[2]);
      g.normals.push(n[0], n[1], n[2]);
      g.uvs.push(i / widthSegments, j / heightSegments);
    }
  }
  const row = widthSegments + 1;
  for (let j = 0; j < heightSegments; j++) {
    for (let i = 0; i < widthSegments; i++) {
      const tl = j * row + i;
      const tr = tl + 1;
      const bl = tl + row;
      const br = bl + 1;
      if (j !== heightSegments - 1) g.indices.push(bl, br, tr);
      if (j !== 0) g.indices.push(bl, tr, tl);
    }
  }
  return g;
}

/** One geometry holding all of `parts`. */
export function merge(...parts: Geometry[]): Geometry {
  const g = emptyGeometry();
  for (const part of parts) {
    const base = g.positions.length / 3;
    g.positions.push(...part.positions);
    g.normals.push(...part.normals);
    g.uvs.push(...part.uvs);
    g.indices.push(...part.indices.map((i) => i + base));
  }
  return g;
}

// ---------------------------------------------------------------------------------------------
// Rotations

function axisAngle(axis: Axis, degrees: number): Quat {
  const half = (degrees * Math.PI) / 360;
  const s = Math.sin(half);
  const c = Math.cos(half);
  if (axis === 'x') return [s, 0, 0, c];
  if (axis === 'y') return [0, s, 0, c];
  return [0, 0, s, c];
}

/** a * b: rotation b first, then a. */
function multiply(a: Quat, b: Quat): Quat {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

// ---------------------------------------------------------------------------------------------
// The model

interface Builder {
  doc: Document;
  buffer: GltfBuffer;
  materials: Record<MaterialName, Material>;
}

type MaterialName = 'steel' | 'motorPaint' | 'pumpPaint' | 'basePaint' | 'valvePaint' | 'rubber' | 'glass' | 'gaugeFace' | 'lamp';

function createMaterials(doc: Document): Record<MaterialName, Material> {
  const pbr = (name: string, color: [number, number, number, number], metallic: number, roughness: number) =>
    doc.createMaterial(name).setBaseColorFactor(color).setMetallicFactor(metallic).setRoughnessFactor(roughness);
  return {
    // Double-sided: open pipes and the fan guard are seen from inside too.
    steel: pbr('Brushed steel', [0.78, 0.79, 0.8, 1], 1, 0.32).setDoubleSided(true),
    motorPaint: pbr('Motor paint (blue)', [0.06, 0.22, 0.52, 1], 0, 0.45),
    pumpPaint: pbr('Pump paint (yellow)', [0.92, 0.62, 0.08, 1], 0, 0.4),
    basePaint: pbr('Base plate paint (grey)', [0.24, 0.25, 0.27, 1], 0.2, 0.6),
    valvePaint: pbr('Valve paint (red)', [0.7, 0.06, 0.05, 1], 0, 0.45),
    rubber: pbr('Rubber', [0.03, 0.03, 0.03, 1], 0, 0.92),
    glass: pbr('Glass', [0.85, 0.92, 1, 0.22], 0, 0.05).setAlphaMode('BLEND'),
    gaugeFace: pbr('Gauge face', [0.95, 0.95, 0.93, 1], 0, 0.6),
    lamp: pbr('Status lamp', [0.2, 0.9, 0.3, 1], 0, 0.3).setEmissiveFactor([0.1, 0.9, 0.2]),
  };
}

function createMesh(b: Builder, name: string, geometry: Geometry, material: Material): Mesh {
  const { doc, buffer } = b;
  const accessor = (suffix: string, type: 'VEC3' | 'VEC2', array: Float32Array<ArrayBuffer>) =>
    doc.createAccessor(`${name} ${suffix}`).setType(type).setArray(array).setBuffer(buffer);
  const vertexCount = geometry.positions.length / 3;
  const indices = vertexCount < 65536 ? new Uint16Array(geometry.indices) : new Uint32Array(geometry.indices);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('positions', 'VEC3', new Float32Array(geometry.positions)))
    .setAttribute('NORMAL', accessor('normals', 'VEC3', new Float32Array(geometry.normals)))
    .setAttribute('TEXCOORD_0', accessor('uvs', 'VEC2', new Float32Array(geometry.uvs)))
    .setIndices(doc.createAccessor(`${name} indices`).setType('SCALAR').setArray(indices).setBuffer(buffer))
    .setMaterial(material);
  return doc.createMesh(name).addPrimitive(primitive);
}

function node(b: Builder, name: string, options: { mesh?: Mesh; at?: Vec3; rotation?: Quat; children?: Node[] } = {}): Node {
  const n = b.doc.createNode(name);
  if (options.mesh) n.setMesh(options.mesh);
  if (options.at) n.setTranslation(options.at);
  if (options.rotation) n.setRotation(options.rotation);
  for (const child of options.children ?? []) n.addChild(child);
  return n;
}

// Dimensions (metres). Y is up; the shaft runs along X at AXIS_Y.
const PLATE = { size: [3.0, 0.1, 1.6] as Vec3, top: 0.15 };
const AXIS_Y = 0.6;
const MOTOR = { x: -0.6, radius: 0.35, length: 1.0 };
const PUMP = { x: 0.45, radius: 0.45, width: 0.3 };
const DISCHARGE = { radius: 0.08, top: 1.6 };
const GAUGE = { y: 1.25, radius: 0.09 };

function buildBase(b: Builder): Node[] {
  const { materials: m } = b;
  const plate = node(b, 'Base plate', { mesh: createMesh(b, 'Base plate', box(PLATE.size), m.basePaint), at: [0, 0.1, 0] });
  const mountMesh = createMesh(b, 'Rubber mount', cylinder({ radius: 0.08, height: 0.05 }), m.rubber);
  const mounts = (
    [
      ['front left', -1.35, 0.65],
      ['front right', 1.35, 0.65],
      ['back left', -1.35, -0.65],
      ['back right', 1.35, -0.65],
    ] as const
  ).map(([label, x, z]) => node(b, `Rubber mount ${label}`, { mesh: mountMesh, at: [x, 0.025, z] }));
  // A hex nut on a threaded stud; the node sits on the surface the bolt holds down.
  const boltMesh = createMesh(
    b,
    'Anchor bolt',
    merge(cylinder({ radius: 0.035, height: 0.03, segments: 6, center: [0, 0.015, 0] }), cylinder({ radius: 0.016, height: 0.05, segments: 12, center: [0, 0.025, 0] })),
    m.steel,
  );
  const motorFootTop = AXIS_Y - MOTOR.radius + 0.05;
  const pedestalTop = PLATE.top + 0.1;
  const boltSpots: Vec3[] = [
    [MOTOR.x - 0.34, motorFootTop, 0.2],
    [MOTOR.x + 0.34, motorFootTop, 0.2],
    [MOTOR.x - 0.34, motorFootTop, -0.2],
    [MOTOR.x + 0.34, motorFootTop, -0.2],
    [PUMP.x - 0.1, pedestalTop, 0.22],
    [PUMP.x + 0.1, pedestalTop, 0.22],
    [PUMP.x - 0.1, pedestalTop, -0.22],
    [PUMP.x + 0.1, pedestalTop, -0.22],
  ];
  const bolts = boltSpots.map((at, i) => node(b, `Anchor bolt ${i + 1}`, { mesh: boltMesh, at }));
  return [node(b, 'Base', { children: [plate, ...mounts, ...bolts] })];
}

function buildMotor(b: Builder): Node {
  const { materials: m } = b;
  const footTop = AXIS_Y - MOTOR.radius;
  const housing = node(b, 'Motor housing', {
    mesh: createMesh(b, 'Motor housing', cylinder({ radius: MOTOR.radius, height: MOTOR.length, segments: 48, axis: 'x' }), m.motorPaint),
  });
  const ribs = node(b, 'Cooling ribs', {
    mesh: createMesh(
      b,
      'Cooling ribs',
      merge(...[-0.35, -0.2, -0.05, 0.1, 0.25].map((x) => cylinder({ radius: MOTOR.radius + 0.025, height: 0.03, segments: 48, axis: 'x', center: [x, 0, 0] }))),
      m.motorPaint,
    ),
  });
  const endCap = node(b, 'Motor end cap', {
    mesh: createMesh(b, 'Motor end cap', cylinder({ radius: MOTOR.radius * 0.8, height: 0.06, segments: 48, axis: 'x' }), m.steel),
    at: [MOTOR.length / 2 + 0.03, 0, 0],
  });
  const fanGuard = node(b, 'Fan guard', {
    mesh: createMesh(b, 'Fan guard', cylinder({ radius: MOTOR.radius * 0.95, height: 0.14, segments: 48, axis: 'x', capped: false }), m.steel),
    at: [-MOTOR.length / 2 - 0.07, 0, 0],
  });
  const foot = node(b, 'Motor foot', {
    mesh: createMesh(b, 'Motor foot', box([0.8, footTop - PLATE.top + 0.05, 0.5]), m.motorPaint),
    at: [0, (PLATE.top + footTop + 0.05) / 2 - AXIS_Y, 0],
  });
  const terminalBox = node(b, 'Terminal box', {
    mesh: createMesh(b, 'Terminal box', box([0.25, 0.14, 0.25]), m.motorPaint),
    at: [0, MOTOR.radius + 0.04, 0],
  });
  const lamp = node(b, 'Status lamp', {
    mesh: createMesh(b, 'Status lamp', cylinder({ radius: 0.03, height: 0.03, segments: 24 }), m.lamp),
    at: [0.06, MOTOR.radius + 0.125, 0.06],
  });
  const lampCover = node(b, 'Status lamp cover', {
    mesh: createMesh(b, 'Status lamp cover', sphere(0.04, [0, 0, 0], 24, 12), m.glass),
    at: [0.06, MOTOR.radius + 0.14, 0.06],
  });
  return node(b, 'Motor', { at: [MOTOR.x, AXIS_Y, 0], children: [housing, ribs, endCap, fanGuard, foot, terminalBox, lamp, lampCover] });
}

/** The rotating parts, under one node on the shaft axis so 'Spin' is a rotation about X. */
function buildRotor(b: Builder): Node {
  const { materials: m } = b;
  const fanX = MOTOR.x - MOTOR.length / 2 - 0.08;
  const shaftStart = fanX - 0.05;
  const shaftEnd = PUMP.x;
  const shaft = node(b, 'Shaft', {
    mesh: createMesh(b, 'Shaft', cylinder({ radius: 0.035, height: shaftEnd - shaftStart, segments: 24, axis: 'x' }), m.steel),
    at: [(shaftStart + shaftEnd) / 2, 0, 0],
  });
  const coupling = node(b, 'Coupling', {
    mesh: createMesh(b, 'Coupling', merge(cylinder({ radius: 0.09, height: 0.06, segments: 32, axis: 'x', center: [-0.04, 0, 0] }), cylinder({ radius: 0.09, height: 0.06, segments: 32, axis: 'x', center: [0.04, 0, 0] })), m.steel),
    at: [MOTOR.x + MOTOR.length / 2 + 0.13, 0, 0],
  });
  const couplingInsert = node(b, 'Coupling insert', {
    mesh: createMesh(b, 'Coupling insert', cylinder({ radius: 0.08, height: 0.02, segments: 32, axis: 'x' }), m.rubber),
    at: [MOTOR.x + MOTOR.length / 2 + 0.13, 0, 0],
  });
  const bladeMesh = createMesh(b, 'Fan blade', box([0.02, 0.24, 0.09], [0, 0.17, 0]), m.steel);
  const blades = [0, 1, 2, 3, 4, 5].map((i) =>
    node(b, `Fan blade ${i + 1}`, { mesh: bladeMesh, rotation: multiply(axisAngle('x', i * 60), axisAngle('y', 25)) }),
  );
  const hub = node(b, 'Fan hub', { mesh: createMesh(b, 'Fan hub', cylinder({ radius: 0.06, height: 0.06, segments: 24, axis: 'x' }), m.steel) });
  const fan = node(b, 'Fan', { at: [fanX, 0, 0], children: [hub, ...blades] });
  return node(b, 'Rotor', { at: [0, AXIS_Y, 0], children: [shaft, coupling, couplingInsert, fan] });
}

function buildPump(b: Builder): Node {
  const { materials: m } = b;
  const casing = node(b, 'Pump casing', {
    mesh: createMesh(b, 'Pump casing', cylinder({ radius: PUMP.radius, height: PUMP.width, segments: 48, axis: 'x' }), m.pumpPaint),
  });
  const cover = node(b, 'Pump cover', {
    mesh: createMesh(b, 'Pump cover', cylinder({ radius: PUMP.radius * 0.7, height: 0.05, segments: 48, axis: 'x' }), m.pumpPaint),
    at: [PUMP.width / 2 + 0.025, 0, 0],
  });
  const bearing = node(b, 'Bearing housing', {
    mesh: createMesh(b, 'Bearing housing', cylinder({ radius: 0.12, height: 0.2, segments: 32, axis: 'x' }), m.pumpPaint),
    at: [-PUMP.width / 2 - 0.1, 0, 0],
  });
  const pedestal = node(b, 'Pump pedestal', {
    mesh: createMesh(b, 'Pump pedestal', box([0.3, 0.1, 0.55]), m.pumpPaint),
    at: [0, PLATE.top + 0.05 - AXIS_Y, 0],
  });
  return node(b, 'Pump', { at: [PUMP.x, AXIS_Y, 0], children: [casing, cover, bearing, pedestal] });
}

function buildPiping(b: Builder): Node {
  const { materials: m } = b;
  const flangeMesh = createMesh(b, 'Flange', cylinder({ radius: 0.16, height: 0.04, segments: 32 }), m.steel);
  const suctionStart = PUMP.x + PUMP.width / 2 + 0.05;
  const suctionEnd = 1.5;
  const suction = node(b, 'Suction pipe', {
    mesh: createMesh(b, 'Suction pipe', cylinder({ radius: 0.1, height: suctionEnd - suctionStart, segments: 32, axis: 'x', capped: false }), m.steel),
    at: [(suctionStart + suctionEnd) / 2, AXIS_Y, 0],
  });
  const suctionFlange = node(b, 'Suction flange', { mesh: flangeMesh, at: [suctionStart + 0.02, AXIS_Y, 0], rotation: axisAngle('z', -90) });
  const valveX = 1.1;
  const valveBody = node(b, 'Valve body', {
    mesh: createMesh(b, 'Valve body', merge(box([0.22, 0.26, 0.26]), cylinder({ radius: 0.03, height: 0.2, segments: 16, center: [0, 0.23, 0] })), m.valvePaint),
    at: [valveX, AXIS_Y, 0],
  });
  const handwheel = node(b, 'Valve handwheel', {
    mesh: createMesh(b, 'Valve handwheel', merge(cylinder({ radius: 0.14, height: 0.025, segments: 32 }), cylinder({ radius: 0.035, height: 0.05, segments: 16 })), m.valvePaint),
    at: [valveX, AXIS_Y + 0.34, 0],
  });
  const dischargeStart = AXIS_Y + PUMP.radius - 0.02;
  const discharge = node(b, 'Discharge pipe', {
    mesh: createMesh(b, 'Discharge pipe', cylinder({ radius: DISCHARGE.radius, height: DISCHARGE.top - dischargeStart, segments: 32, capped: false }), m.steel),
    at: [PUMP.x, (dischargeStart + DISCHARGE.top) / 2, 0],
  });
  const dischargeFlange = node(b, 'Discharge flange', { mesh: flangeMesh, at: [PUMP.x, dischargeStart + 0.04, 0] });
  const elbow = node(b, 'Discharge elbow', { mesh: createMesh(b, 'Discharge elbow', sphere(DISCHARGE.radius), m.steel), at: [PUMP.x, DISCHARGE.top, 0] });
  const outletEnd = 1.5;
  const outlet = node(b, 'Outlet pipe', {
    mesh: createMesh(b, 'Outlet pipe', cylinder({ radius: DISCHARGE.radius, height: outletEnd - PUMP.x, segments: 32, axis: 'x', capped: false }), m.steel),
    at: [(PUMP.x + outletEnd) / 2, DISCHARGE.top, 0],
  });
  const hose = node(b, 'Drain hose', {
    mesh: createMesh(b, 'Drain hose', cylinder({ radius: 0.025, height: 0.3, segments: 16, axis: 'z' }), m.rubber),
    at: [PUMP.x, AXIS_Y - PUMP.radius + 0.12, PUMP.width / 2 + 0.25],
  });
  return node(b, 'Piping', { children: [suction, suctionFlange, valveBody, handwheel, discharge, dischargeFlange, elbow, outlet, hose] });
}

function buildGauge(b: Builder): { gauge: Node; needle: Node } {
  const { materials: m } = b;
  const body = node(b, 'Gauge body', {
    mesh: createMesh(b, 'Gauge body', cylinder({ radius: GAUGE.radius, height: 0.05, segments: 32, axis: 'z' }), m.steel),
  });
  const face = node(b, 'Gauge face', {
    mesh: createMesh(b, 'Gauge face', cylinder({ radius: GAUGE.radius * 0.9, height: 0.004, segments: 32, axis: 'z' }), m.gaugeFace),
    at: [0, 0, 0.027],
  });
  const needle = node(b, 'Gauge needle', {
    mesh: createMesh(b, 'Gauge needle', box([0.008, 0.075, 0.004], [0, 0.03, 0]), m.valvePaint),
    at: [0, 0, 0.032],
  });
  const glass = node(b, 'Gauge glass', {
    mesh: createMesh(b, 'Gauge glass', cylinder({ radius: GAUGE.radius * 0.95, height: 0.006, segments: 32, axis: 'z' }), m.glass),
    at: [0, 0, 0.04],
  });
  const stem = node(b, 'Gauge stem', {
    mesh: createMesh(b, 'Gauge stem', cylinder({ radius: 0.015, height: 0.08, segments: 12, axis: 'z' }), m.steel),
    at: [0, 0, -0.06],
  });
  const gauge = node(b, 'Pressure gauge', {
    at: [PUMP.x, GAUGE.y, DISCHARGE.radius + 0.1],
    children: [stem, body, face, needle, glass],
  });
  return { gauge, needle };
}

function addRotationAnimation(b: Builder, name: string, target: Node, times: number[], rotations: Quat[]): void {
  const { doc, buffer } = b;
  const input = doc.createAccessor(`${name} times`).setType('SCALAR').setArray(new Float32Array(times)).setBuffer(buffer);
  const output = doc.createAccessor(`${name} rotations`).setType('VEC4').setArray(new Float32Array(rotations.flat())).setBuffer(buffer);
  const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
  const channel = doc.createAnimationChannel().setTargetNode(target).setTargetPath('rotation').setSampler(sampler);
  doc.createAnimation(name).addSampler(sampler).addChannel(channel);
}

/** The demo model as a Document (exported for tests and tools). */
export function createDemoDocument(): Document {
  const doc = new Document();
  doc.getRoot().getAsset().generator = DEMO_GENERATOR;
  const b: Builder = { doc, buffer: doc.createBuffer('Demo machine'), materials: createMaterials(doc) };

  const rotor = buildRotor(b);
  const { gauge, needle } = buildGauge(b);
  const unit = node(b, 'Pump unit', {
    children: [...buildBase(b), buildMotor(b), rotor, buildPump(b), buildPiping(b), gauge],
  });
  doc.createScene(DEMO_SCENE_NAME).addChild(unit);
  doc.getRoot().setDefaultScene(doc.getRoot().listScenes()[0]);

  // One revolution per second in quarter turns: LINEAR slerp between keys < 180 degrees apart.
  addRotationAnimation(b, 'Spin', rotor, [0, 0.25, 0.5, 0.75, 1], [0, 90, 180, 270, 360].map((deg) => axisAngle('x', deg)));
  // The needle swings with the pressure, 4 s per cycle; clockwise is a negative angle about +Z.
  addRotationAnimation(b, 'Gauge', needle, [0, 1, 2, 3, 4], [40, -20, -55, -10, 40].map((deg) => axisAngle('z', deg)));
  return doc;
}

/** The demo model as GLB bytes; the same bytes on every call. */
export async function buildDemoModel(): Promise<Uint8Array> {
  return new NodeIO().writeBinary(createDemoDocument());
}

/** Creates the scene 'demo' with the generated model unless the store already has it. */
export async function ensureDemoScene(store: Store): Promise<{ scene: SceneDoc; created: boolean }> {
  const existing = await store.getScene(DEMO_SCENE_ID);
  if (existing) return { scene: existing, created: false };
  const { scene } = await importModel(
    store,
    { bytes: await buildDemoModel(), fileName: DEMO_FILE_NAME },
    { sceneId: DEMO_SCENE_ID, name: DEMO_SCENE_NAME, generator: DEMO_GENERATOR },
  );
  return { scene, created: true };
}
