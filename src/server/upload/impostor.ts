import { TextureInfo, type Buffer as GltfBuffer, type Document } from '@gltf-transform/core';
import { encodePng } from '../../protocol/png.ts';
import {
  IMPOSTOR_COLUMNS,
  IMPOSTOR_ELEVATIONS,
  IMPOSTOR_SCENE,
  IMPOSTOR_TILE,
  impostorDirection,
  type AssetImpostorExtras,
} from '../../protocol/asset-levels.ts';

/**
 * The impostor of an asset (src/protocol/asset-levels.ts): its triangles drawn on the CPU (no GPU on
 * a server) into an atlas of IMPOSTOR_COLUMNS x IMPOSTOR_ELEVATIONS.length tiles, each the asset's
 * bounding sphere seen orthographically from one direction, then stored as a PNG on one quad with
 * an alpha-masked material in a scene of its own. The viewer turns the quad to the camera and
 * picks the tile nearest the direction it is seen from (src/engine/instance-levels.ts).
 *
 * Each tile is drawn at twice its size and averaged down (the alpha is the coverage), with a
 * depth buffer, into two atlases: the base colour (the material's base colour factor times the
 * vertex colour, unlit) and the surface's normal in the tile's own frame (glTF's tangent-space
 * convention: +X right, +Y up, +Z towards the viewer), so that the viewer lights the card as the
 * asset would be lit from that side. Textures are not sampled: a textured asset's impostor has its
 * factor's colour (a limit noted in the README). Transparent texels take their neighbours' values,
 * so that filtering at the edges of the shape does not darken it. The atlases are sampled without
 * mipmaps: averaged alpha in a mipmap would thin a far card's shape below the alpha cutoff.
 */

export interface ImpostorSource {
  /** Column-major world matrix of the primitive's node (in the asset's root space). */
  matrix: number[];
  positions: Float32Array;
  indices: Uint32Array;
  /** Linear RGB per vertex, or null. */
  colors: Float32Array | null;
  /** Vertex normals in the node's space, or null (the faces' own normals are used). */
  normals: Float32Array | null;
  /** Linear RGBA base colour factor. */
  color: [number, number, number, number];
}

/** The atlas's rows, top of the image first, are the elevations in this order. */
export const IMPOSTOR_ROWS = IMPOSTOR_ELEVATIONS.length;

/** Adds the impostor scene; false (nothing added) when the asset has no extent to draw. */
export function addImpostor(doc: Document, sources: ImpostorSource[], buffer: GltfBuffer): boolean {
  const sphere = boundingSphere(sources);
  if (!sphere) return false;
  const atlas = renderImpostorAtlas(sources, sphere.center, sphere.radius);
  const texture = doc
    .createTexture('Impostor')
    .setImage(encodePng(atlas.width, atlas.height, atlas.rgba))
    .setMimeType('image/png');
  const normals = doc
    .createTexture('Impostor normals')
    .setImage(encodePng(atlas.width, atlas.height, atlas.normals))
    .setMimeType('image/png');
  const material = doc
    .createMaterial('Impostor')
    .setBaseColorTexture(texture)
    .setNormalTexture(normals)
    .setAlphaMode('MASK')
    .setAlphaCutoff(0.5)
    .setMetallicFactor(0)
    .setRoughnessFactor(1);
  for (const info of [material.getBaseColorTextureInfo(), material.getNormalTextureInfo()]) {
    info
      ?.setMinFilter(TextureInfo.MinFilter.LINEAR)
      .setMagFilter(TextureInfo.MagFilter.LINEAR)
      .setWrapS(TextureInfo.WrapMode.CLAMP_TO_EDGE)
      .setWrapT(TextureInfo.WrapMode.CLAMP_TO_EDGE);
  }
  // A unit square facing +Z; texture coordinates of one tile's corners (v down, as glTF's are).
  const accessor = (array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>, type: 'VEC3' | 'VEC2' | 'SCALAR') =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor(new Float32Array([-0.5, 0.5, 0, -0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0]), 'VEC3'))
    .setAttribute('NORMAL', accessor(new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1]), 'VEC3'))
    .setAttribute('TEXCOORD_0', accessor(new Float32Array([0, 0, 0, 1, 1, 1, 1, 0]), 'VEC2'))
    .setIndices(accessor(new Uint16Array([0, 1, 2, 0, 2, 3]), 'SCALAR'))
    .setMaterial(material);
  const node = doc.createNode('Impostor').setMesh(doc.createMesh('Impostor').addPrimitive(primitive));
  const extras: AssetImpostorExtras = { columns: IMPOSTOR_COLUMNS, elevations: [...IMPOSTOR_ELEVATIONS], center: sphere.center, radius: sphere.radius };
  doc.createScene(IMPOSTOR_SCENE).addChild(node).setExtras({ assetImpostor: extras });
  return true;
}

/** The box of every vertex of the sources, in the asset's root space (null when they have none). */
export function sourcesBox(sources: readonly Pick<ImpostorSource, 'matrix' | 'positions'>[]): { min: number[]; max: number[] } | null {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const p = [0, 0, 0];
  for (const source of sources) {
    for (let i = 0; i < source.positions.length; i += 3) {
      toWorld(source.matrix, source.positions, i, p);
      for (let k = 0; k < 3; k++) {
        min[k] = Math.min(min[k]!, p[k]!);
        max[k] = Math.max(max[k]!, p[k]!);
      }
    }
  }
  return max[0]! >= min[0]! ? { min, max } : null;
}

/** The sphere about the box centre of every vertex (asset space) that holds them all. */
export function boundingSphere(sources: ImpostorSource[]): { center: [number, number, number]; radius: number } | null {
  const box = sourcesBox(sources);
  if (!box) return null;
  const { min, max } = box;
  const p = [0, 0, 0];
  const center: [number, number, number] = [(min[0]! + max[0]!) / 2, (min[1]! + max[1]!) / 2, (min[2]! + max[2]!) / 2];
  let r2 = 0;
  for (const source of sources) {
    for (let i = 0; i < source.positions.length; i += 3) {
      toWorld(source.matrix, source.positions, i, p);
      r2 = Math.max(r2, (p[0]! - center[0]) ** 2 + (p[1]! - center[1]) ** 2 + (p[2]! - center[2]) ** 2);
    }
  }
  const radius = Math.sqrt(r2);
  return radius > 0 ? { center, radius } : null;
}

function toWorld(m: number[], positions: Float32Array, i: number, out: number[]): void {
  const x = positions[i]!;
  const y = positions[i + 1]!;
  const z = positions[i + 2]!;
  out[0] = m[0]! * x + m[4]! * y + m[8]! * z + m[12]!;
  out[1] = m[1]! * x + m[5]! * y + m[9]! * z + m[13]!;
  out[2] = m[2]! * x + m[6]! * y + m[10]! * z + m[14]!;
}

export interface ImpostorAtlas {
  width: number;
  height: number;
  /** RGBA8, sRGB colour, straight alpha, row 0 at the top. */
  rgba: Uint8Array;
  /** RGBA8 normals (xyz * 0.5 + 0.5 in the tile's frame; alpha as rgba's). */
  normals: Uint8Array;
}

/** Draws every tile of the atlas (see the top of the file). */
export function renderImpostorAtlas(sources: ImpostorSource[], center: [number, number, number], radius: number, tile = IMPOSTOR_TILE): ImpostorAtlas {
  const width = tile * IMPOSTOR_COLUMNS;
  const height = tile * IMPOSTOR_ROWS;
  const rgba = new Uint8Array(width * height * 4);
  const normalAtlas = new Uint8Array(width * height * 4);
  const big = tile * 2;
  const depth = new Float32Array(big * big);
  const colour = new Float32Array(big * big * 3);
  const normal = new Float32Array(big * big * 3);
  // Vertex normals in the asset's space (the node's linear part, renormalised), once.
  const normalsOf = sources.map((s) => (s.normals ? normalsToWorld(s.matrix, s.normals) : null));
  // Each vertex in the asset's space, once.
  const world = sources.map((s) => {
    const out = new Float32Array(s.positions.length);
    const p = [0, 0, 0];
    for (let i = 0; i < s.positions.length; i += 3) {
      toWorld(s.matrix, s.positions, i, p);
      out[i] = p[0]! - center[0];
      out[i + 1] = p[1]! - center[1];
      out[i + 2] = p[2]! - center[2];
    }
    return out;
  });
  const screen = sources.map((s) => new Float32Array(s.positions.length));
  for (let row = 0; row < IMPOSTOR_ROWS; row++) {
    for (let column = 0; column < IMPOSTOR_COLUMNS; column++) {
      const d = impostorDirection(column, IMPOSTOR_COLUMNS, IMPOSTOR_ELEVATIONS[row]!);
      // The view's right = up x d, its up = d x right (three's lookAt with +Y up).
      const right = normalize(cross([0, 1, 0], d));
      const up = cross(d, right);
      depth.fill(-Infinity);
      colour.fill(0);
      normal.fill(0);
      const scale = big / (2 * radius);
      sources.forEach((source, s) => {
        const p = world[s]!;
        const out = screen[s]!;
        for (let i = 0; i < p.length; i += 3) {
          const x = p[i]!;
          const y = p[i + 1]!;
          const z = p[i + 2]!;
          out[i] = (x * right[0] + y * right[1] + z * right[2]) * scale + big / 2;
          out[i + 1] = big / 2 - (x * up[0] + y * up[1] + z * up[2]) * scale;
          out[i + 2] = x * d[0] + y * d[1] + z * d[2];
        }
        drawTriangles(out, p, normalsOf[s]!, source, big, depth, colour, normal, { right, up, d });
      });
      downsample(depth, colour, normal, big, rgba, normalAtlas, width, column * tile, row * tile);
    }
  }
  bleed(rgba, width, height);
  bleed(normalAtlas, width, height);
  return { width, height, rgba, normals: normalAtlas };
}

function normalsToWorld(m: number[], normals: Float32Array): Float32Array {
  const out = new Float32Array(normals.length);
  for (let i = 0; i < normals.length; i += 3) {
    const x = normals[i]!;
    const y = normals[i + 1]!;
    const z = normals[i + 2]!;
    const wx = m[0]! * x + m[4]! * y + m[8]! * z;
    const wy = m[1]! * x + m[5]! * y + m[9]! * z;
    const wz = m[2]! * x + m[6]! * y + m[10]! * z;
    const l = Math.hypot(wx, wy, wz) || 1;
    out[i] = wx / l;
    out[i + 1] = wy / l;
    out[i + 2] = wz / l;
  }
  return out;
}

interface TileFrame {
  right: readonly number[];
  up: readonly number[];
  d: readonly number[];
}

function cross(a: readonly number[], b: readonly number[]): [number, number, number] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

function normalize(v: [number, number, number]): [number, number, number] {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
}

/**
 * Rasterizes a source's triangles (pixel centres, nearest depth wins: larger is nearer): colour and
 * the normal in the tile's frame (vertex normals interpolated, else the face's; turned to the
 * viewer, as a double-sided face is lit).
 */
function drawTriangles(
  screen: Float32Array,
  world: Float32Array,
  normals: Float32Array | null,
  source: ImpostorSource,
  size: number,
  depth: Float32Array,
  colour: Float32Array,
  normal: Float32Array,
  frame: TileFrame,
): void {
  const { indices, colors, color } = source;
  const { right, up, d } = frame;
  const face = [0, 0, 0];
  for (let t = 0; t + 2 < indices.length; t += 3) {
    const a = indices[t]! * 3;
    const b = indices[t + 1]! * 3;
    const c = indices[t + 2]! * 3;
    // The face's normal (asset space), for faces without vertex normals and to turn them to the viewer.
    const e1x = world[b]! - world[a]!;
    const e1y = world[b + 1]! - world[a + 1]!;
    const e1z = world[b + 2]! - world[a + 2]!;
    const e2x = world[c]! - world[a]!;
    const e2y = world[c + 1]! - world[a + 1]!;
    const e2z = world[c + 2]! - world[a + 2]!;
    face[0] = e1y * e2z - e1z * e2y;
    face[1] = e1z * e2x - e1x * e2z;
    face[2] = e1x * e2y - e1y * e2x;
    const facing = face[0] * d[0]! + face[1] * d[1]! + face[2] * d[2]! >= 0 ? 1 : -1;
    const ax = screen[a]!;
    const ay = screen[a + 1]!;
    const bx = screen[b]!;
    const by = screen[b + 1]!;
    const cx = screen[c]!;
    const cy = screen[c + 1]!;
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0 || !Number.isFinite(area)) continue;
    const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
    const x1 = Math.min(size - 1, Math.ceil(Math.max(ax, bx, cx)));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy)));
    const y1 = Math.min(size - 1, Math.ceil(Math.max(ay, by, cy)));
    for (let y = y0; y <= y1; y++) {
      const py = y + 0.5;
      for (let x = x0; x <= x1; x++) {
        const px = x + 0.5;
        // Barycentric weights of a, b, c (either winding: both faces are drawn).
        const wa = ((bx - px) * (cy - py) - (by - py) * (cx - px)) / area;
        const wb = ((cx - px) * (ay - py) - (cy - py) * (ax - px)) / area;
        const wc = 1 - wa - wb;
        if (wa < 0 || wb < 0 || wc < 0) continue;
        const z = wa * screen[a + 2]! + wb * screen[b + 2]! + wc * screen[c + 2]!;
        const at = y * size + x;
        if (z <= depth[at]!) continue;
        depth[at] = z;
        for (let k = 0; k < 3; k++) {
          const vertex = colors ? wa * colors[a + k]! + wb * colors[b + k]! + wc * colors[c + k]! : 1;
          colour[at * 3 + k] = color[k]! * vertex;
        }
        let nx: number;
        let ny: number;
        let nz: number;
        if (normals) {
          nx = wa * normals[a]! + wb * normals[b]! + wc * normals[c]!;
          ny = wa * normals[a + 1]! + wb * normals[b + 1]! + wc * normals[c + 1]!;
          nz = wa * normals[a + 2]! + wb * normals[b + 2]! + wc * normals[c + 2]!;
          // A back face seen (double-sided) is lit from this side.
          if (nx * d[0]! + ny * d[1]! + nz * d[2]! < 0) {
            nx = -nx;
            ny = -ny;
            nz = -nz;
          }
        } else {
          nx = face[0]! * facing;
          ny = face[1]! * facing;
          nz = face[2]! * facing;
        }
        normal[at * 3] = nx * right[0]! + ny * right[1]! + nz * right[2]!;
        normal[at * 3 + 1] = nx * up[0]! + ny * up[1]! + nz * up[2]!;
        normal[at * 3 + 2] = nx * d[0]! + ny * d[1]! + nz * d[2]!;
      }
    }
  }
}

/** 2x2 samples to one texel: alpha the covered share, colour their mean (written as sRGB), the normal their mean's direction. */
function downsample(
  depth: Float32Array,
  colour: Float32Array,
  normal: Float32Array,
  big: number,
  rgba: Uint8Array,
  normals: Uint8Array,
  width: number,
  left: number,
  top: number,
): void {
  const tile = big / 2;
  for (let y = 0; y < tile; y++) {
    for (let x = 0; x < tile; x++) {
      let covered = 0;
      const sum = [0, 0, 0];
      const n = [0, 0, 0];
      for (let sy = 0; sy < 2; sy++) {
        for (let sx = 0; sx < 2; sx++) {
          const at = (y * 2 + sy) * big + x * 2 + sx;
          if (depth[at] === -Infinity) continue;
          covered++;
          for (let k = 0; k < 3; k++) {
            sum[k] += colour[at * 3 + k]!;
            n[k] += normal[at * 3 + k]!;
          }
        }
      }
      const o = ((top + y) * width + left + x) * 4;
      if (covered > 0) {
        const length = Math.hypot(n[0]!, n[1]!, n[2]!) || 1;
        for (let k = 0; k < 3; k++) {
          rgba[o + k] = Math.round(linearToSrgb(sum[k]! / covered) * 255);
          normals[o + k] = Math.round((n[k]! / length) * 127.5 + 127.5);
        }
      } else {
        // Facing the viewer where nothing is (bleed fills the edges).
        normals[o] = 128;
        normals[o + 1] = 128;
        normals[o + 2] = 255;
      }
      rgba[o + 3] = Math.round((covered / 4) * 255);
      normals[o + 3] = rgba[o + 3]!;
    }
  }
}

function linearToSrgb(c: number): number {
  const v = Math.min(1, Math.max(0, c));
  return v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055;
}

/** Transparent texels next to the shape take the mean colour of their opaque neighbours (4 rounds). */
function bleed(rgba: Uint8Array, width: number, height: number): void {
  const filled = new Uint8Array(width * height);
  for (let i = 0; i < filled.length; i++) filled[i] = rgba[i * 4 + 3]! > 0 ? 1 : 0;
  for (let round = 0; round < 4; round++) {
    const next = filled.slice();
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const at = y * width + x;
        if (filled[at]) continue;
        let n = 0;
        const sum = [0, 0, 0];
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= width || ny >= height || !filled[ny * width + nx]) continue;
            n++;
            for (let k = 0; k < 3; k++) sum[k] += rgba[(ny * width + nx) * 4 + k]!;
          }
        }
        if (n === 0) continue;
        for (let k = 0; k < 3; k++) rgba[at * 4 + k] = Math.round(sum[k]! / n);
        next[at] = 1;
      }
    }
    filled.set(next);
  }
}
