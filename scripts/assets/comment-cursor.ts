/**
 * The comment tool's cursor (editor specification section 2: /assets/images/comment-cursor-4.png),
 * drawn by our code: a 32 x 32 speech bubble, white with a dark outline and a blue '+', its tail at
 * the bottom left, which is the hot spot (the point a click pins). Antialiased by 4 x 4
 * supersampling of signed distances; encoded as an RGBA PNG by src/protocol/png.ts.
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
