import { zlibSync } from 'fflate';

/**
 * The comment tool's cursor (editor specification section 2: /assets/images/comment-cursor-4.png),
 * drawn by our code: a 32 x 32 speech bubble, white with a dark outline and a blue '+', its tail at
 * the bottom left, which is the hot spot (the point a click pins). Antialiased by 4 x 4
 * supersampling of signed distances; encoded as an RGBA PNG (fflate's zlib, our own chunk writer).
 */

export const COMMENT_CURSOR_SIZE = 32;

/** Signed distance to a rounded box centred at (cx, cy) with half sizes (hx, hy) and radius r. */
function roundedBox(x: number, y: number, cx: number, cy: number, hx: number, hy: number, r: number): number {
  const qx = Math.abs(x - cx) - hx + r;
  const qy = Math.abs(y - cy) - hy + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}

/** Inside the triangle (a, b, c)? */
function inTriangle(x: number, y: number, a: number[], b: number[], c: number[]): boolean {
  const s = (p: number[], q: number[]) => (x - q[0]) * (p[1] - q[1]) - (p[0] - q[0]) * (y - q[1]);
  const d1 = s(a, b);
  const d2 = s(b, c);
  const d3 = s(c, a);
  return !((d1 < 0 || d2 < 0 || d3 < 0) && (d1 > 0 || d2 > 0 || d3 > 0));
}

/** What colour a sample point has: 0 outside, 1 outline, 2 fill, 3 the plus. */
function sample(x: number, y: number): number {
  const box = roundedBox(x, y, 17, 13, 13.5, 11, 6);
  const tail = [
    [1, 31],
    [6, 20],
    [14, 22],
  ];
  const tailOutline = [
    [0, 32],
    [4.5, 18.5],
    [15.5, 21],
  ];
  const inBubble = box <= 0 || inTriangle(x, y, tail[0], tail[1], tail[2]);
  const inOutline = box <= 1.6 || inTriangle(x, y, tailOutline[0], tailOutline[1], tailOutline[2]);
  if (inBubble) {
    const plus = (Math.abs(x - 17) <= 1.4 && Math.abs(y - 13) <= 6) || (Math.abs(y - 13) <= 1.4 && Math.abs(x - 17) <= 6);
    return plus ? 3 : 2;
  }
  return inOutline ? 1 : 0;
}

const COLOURS: readonly (readonly [number, number, number])[] = [
  [0, 0, 0],
  [24, 28, 36],
  [255, 255, 255],
  [37, 99, 235],
];

/** The cursor's pixels, RGBA, premultiplied coverage turned into straight alpha. */
export function renderCommentCursor(size = COMMENT_CURSOR_SIZE): Uint8Array {
  const rgba = new Uint8Array(size * size * 4);
  const scale = COMMENT_CURSOR_SIZE / size;
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const kind = sample((px + (sx + 0.5) / n) * scale, (py + (sy + 0.5) / n) * scale);
          if (kind === 0) continue;
          const c = COLOURS[kind];
          r += c[0];
          g += c[1];
          b += c[2];
          a += 1;
        }
      }
      const o = (py * size + px) * 4;
      if (a > 0) {
        rgba[o] = Math.round(r / a);
        rgba[o + 1] = Math.round(g / a);
        rgba[o + 2] = Math.round(b / a);
        rgba[o + 3] = Math.round((a / (n * n)) * 255);
      }
    }
  }
  return rgba;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** An RGBA image (8 bits per channel) as PNG bytes. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  if (rgba.length !== width * height * 4) throw new Error(`encodePng: ${rgba.length} bytes for ${width} x ${height} RGBA (expected ${width * height * 4})`);
  const raw = new Uint8Array((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
    return out;
  };
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', zlibSync(raw, { level: 9 })), chunk('IEND', new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
