import { unzlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { COMMENT_CURSOR_SIZE, renderCommentCursor } from '../../../../scripts/assets/comment-cursor';
import { crc32, encodePng } from '../../../../src/protocol/png';
import { generateAssets } from '../../../../scripts/generate-assets';
import { COMMENT_CURSOR_HOTSPOT, COMMENT_CURSOR_URL } from '../../../../src/protocol/comments';

/** Reads back what encodePng wrote: chunks with checked CRCs, the unfiltered rows. */
function decode(png: Uint8Array): { width: number; height: number; rgba: Uint8Array } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let offset = 8;
  let width = 0;
  let height = 0;
  let idat = new Uint8Array(0);
  while (offset < png.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(...png.subarray(offset + 4, offset + 8));
    const data = png.subarray(offset + 8, offset + 8 + length);
    expect(view.getUint32(offset + 8 + length)).toBe(crc32(png.subarray(offset + 4, offset + 8 + length)));
    if (type === 'IHDR') {
      width = new DataView(data.buffer, data.byteOffset).getUint32(0);
      height = new DataView(data.buffer, data.byteOffset).getUint32(4);
      expect([data[8], data[9]]).toEqual([8, 6]);
    }
    if (type === 'IDAT') idat = data.slice();
    offset += 12 + length;
  }
  const raw = unzlibSync(idat);
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 4 + 1)]).toBe(0);
    rgba.set(raw.subarray(y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1)), y * width * 4);
  }
  return { width, height, rgba };
}

describe('the comment cursor', () => {
  it('is a 32 x 32 PNG made by our code, served at the specification\'s path', () => {
    const asset = generateAssets({ only: [], waterNormalsSize: 8, studioPrefilteredSize: 64 }).find((a) => a.path === COMMENT_CURSOR_URL);
    expect(asset?.contentType).toBe('image/png');
    const image = decode(asset!.bytes);
    expect([image.width, image.height]).toEqual([COMMENT_CURSOR_SIZE, COMMENT_CURSOR_SIZE]);
    expect(image.rgba).toEqual(renderCommentCursor());
  });

  it('is a bubble: the hot spot (its tail) and the middle are drawn, the top right corner is clear', () => {
    const rgba = renderCommentCursor();
    const alpha = (x: number, y: number) => rgba[(y * COMMENT_CURSOR_SIZE + x) * 4 + 3];
    const [hx, hy] = COMMENT_CURSOR_HOTSPOT;
    expect(alpha(hx, hy)).toBeGreaterThan(0);
    expect(alpha(17, 13)).toBe(255);
    // The plus is blue, the fill beside it white.
    expect([...rgba.subarray((13 * 32 + 17) * 4, (13 * 32 + 17) * 4 + 3)]).toEqual([37, 99, 235]);
    expect([...rgba.subarray((13 * 32 + 9) * 4, (13 * 32 + 9) * 4 + 3)]).toEqual([255, 255, 255]);
    expect(alpha(31, 31)).toBe(0);
    expect(alpha(0, 0)).toBe(0);
  });

  it('refuses pixels of the wrong size', () => {
    expect(() => encodePng(2, 2, new Uint8Array(3))).toThrow(/expected 16/);
  });
});
