/**
 * Radiance .hdr (RGBE) writer: the header, then every scanline in the adaptive run-length form
 * (four separately run-length coded byte planes R, G, B, E) that Radiance and three.js' HDRLoader
 * read. A pixel's shared exponent E and mantissas follow Ward's float -> RGBE conversion:
 * v = max(r, g, b) = m * 2^e with m in [0.5, 1); R = floor(r * m * 256 / v); E = e + 128.
 */

/** Longest run a run packet holds (128 + 127 = 255) and longest literal packet. */
const MAX_RUN = 127;
const MAX_LITERAL = 128;
/** Shortest repetition worth a run packet. */
const MIN_RUN = 4;

/**
 * Encodes `rgb` (width * height * 3 linear floats, top row first) as a Radiance file.
 * Negative and non-finite values are written as 0.
 */
export function encodeRadianceHdr(width: number, height: number, rgb: Float32Array, comment = 'generated'): Uint8Array {
  if (rgb.length !== width * height * 3) throw new Error(`encodeRadianceHdr: expected ${width * height * 3} values, got ${rgb.length}`);
  const header = new TextEncoder().encode(`#?RADIANCE\n# ${comment.replace(/\n/g, ' ')}\nFORMAT=32-bit_rle_rgbe\n\n-Y ${height} +X ${width}\n`);
  const rle = width >= 8 && width <= 0x7fff;
  // Worst case per scanline: 4 header bytes + for each plane width bytes plus one per 128 literals.
  const capacity = header.length + height * (rle ? 4 + 4 * (width + Math.ceil(width / MAX_LITERAL)) : 4 * width);
  const out = new Uint8Array(capacity);
  out.set(header, 0);
  let pos = header.length;
  const line = new Uint8Array(width * 4);
  const planes = [new Uint8Array(width), new Uint8Array(width), new Uint8Array(width), new Uint8Array(width)];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) toRgbe(rgb, (y * width + x) * 3, line, x * 4);
    if (!rle) {
      out.set(line, pos);
      pos += line.length;
      continue;
    }
    out[pos++] = 2;
    out[pos++] = 2;
    out[pos++] = width >> 8;
    out[pos++] = width & 0xff;
    for (let c = 0; c < 4; c++) {
      const plane = planes[c];
      for (let x = 0; x < width; x++) plane[x] = line[x * 4 + c];
      pos = encodePlane(plane, out, pos);
    }
  }
  return out.slice(0, pos);
}

function toRgbe(rgb: Float32Array, i: number, out: Uint8Array, o: number): void {
  const r = clean(rgb[i]);
  const g = clean(rgb[i + 1]);
  const b = clean(rgb[i + 2]);
  const v = Math.max(r, g, b);
  if (v < 1e-32) {
    out[o] = out[o + 1] = out[o + 2] = out[o + 3] = 0;
    return;
  }
  // v = m * 2^e with m in [0.5, 1)
  let e = Math.ceil(Math.log2(v));
  let m = v / 2 ** e;
  if (m >= 1) {
    m /= 2;
    e += 1;
  } else if (m < 0.5) {
    m *= 2;
    e -= 1;
  }
  if (e > 127) {
    out[o] = out[o + 1] = out[o + 2] = 255;
    out[o + 3] = 255;
    return;
  }
  if (e < -128) {
    out[o] = out[o + 1] = out[o + 2] = out[o + 3] = 0;
    return;
  }
  const scale = (m * 256) / v;
  out[o] = Math.min(255, Math.floor(r * scale));
  out[o + 1] = Math.min(255, Math.floor(g * scale));
  out[o + 2] = Math.min(255, Math.floor(b * scale));
  out[o + 3] = e + 128;
}

function clean(v: number): number {
  return Number.isFinite(v) && v > 0 ? v : 0;
}

/** One byte plane as run packets (count + 128, value) and literal packets (count, values...). */
function encodePlane(plane: Uint8Array, out: Uint8Array, pos: number): number {
  const n = plane.length;
  let i = 0;
  while (i < n) {
    // Find the next run of at least MIN_RUN equal bytes starting at or after i.
    let runStart = i;
    let runLength = 0;
    while (runStart < n) {
      runLength = 1;
      while (runStart + runLength < n && runLength < MAX_RUN && plane[runStart + runLength] === plane[runStart]) runLength++;
      if (runLength >= MIN_RUN) break;
      runStart += runLength;
    }
    if (runLength < MIN_RUN) runStart = n;
    // Literals before the run.
    while (i < runStart) {
      const count = Math.min(MAX_LITERAL, runStart - i);
      out[pos++] = count;
      out.set(plane.subarray(i, i + count), pos);
      pos += count;
      i += count;
    }
    if (runStart < n) {
      out[pos++] = 128 + runLength;
      out[pos++] = plane[runStart];
      i = runStart + runLength;
    }
  }
  return pos;
}
