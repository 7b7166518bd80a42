import { describe, expect, it } from 'vitest';
import { SCREENSHOT_FILE_NAME } from '../../../src/protocol/constants';
import { MAX_SCREENSHOT_PIXELS, mimeTypeOf, planScreenshot, screenshotFileName, tileLayout, type Tile } from '../../../src/viewer/screenshot';

/** Every pixel of the picture is covered by exactly one tile. */
function coverage(tiles: Tile[], width: number, height: number): Uint8Array {
  const hits = new Uint8Array(width * height);
  for (const t of tiles) for (let y = t.y; y < t.y + t.height; y++) for (let x = t.x; x < t.x + t.width; x++) hits[y * width + x]++;
  return hits;
}

describe('tile layout', () => {
  it('one tile when the picture fits', () => {
    expect(tileLayout(1280, 720, 4096)).toEqual([{ x: 0, y: 0, width: 1280, height: 720 }]);
    expect(tileLayout(4096, 4096, 4096)).toHaveLength(1);
  });

  it('even tiles row by row from the top left, none larger than the limit', () => {
    const tiles = tileLayout(5000, 3000, 2048);
    // 3 columns x 2 rows; widths 1667/1666/1667 rather than 2048/2048/904.
    expect(tiles).toHaveLength(6);
    expect(tiles[0]).toEqual({ x: 0, y: 0, width: 1667, height: 1500 });
    expect(tiles[1].x).toBe(1667);
    expect(tiles[3]).toEqual({ x: 0, y: 1500, width: 1667, height: 1500 });
    for (const t of tiles) {
      expect(t.width).toBeLessThanOrEqual(2048);
      expect(t.height).toBeLessThanOrEqual(2048);
      expect(Math.max(...tiles.map((u) => u.width)) - Math.min(...tiles.map((u) => u.width))).toBeLessThanOrEqual(1);
    }
  });

  it('covers every pixel exactly once, for awkward sizes too', () => {
    for (const [w, h, max] of [
      [1001, 777, 256],
      [17, 3, 4],
      [512, 512, 511],
      [3, 9000, 4096],
    ]) {
      const tiles = tileLayout(w, h, max);
      const hits = coverage(tiles, w, h);
      expect(hits.every((n) => n === 1), `${w}x${h}/${max}`).toBe(true);
      expect(tiles.length).toBe(Math.ceil(w / max) * Math.ceil(h / max));
    }
  });

  it('refuses sizes that are not whole positive pixels', () => {
    expect(() => tileLayout(0, 10, 10)).toThrow('Screenshot width must be a whole number of pixels of at least 1, got 0.');
    expect(() => tileLayout(10, 2.5, 10)).toThrow('height');
    expect(() => tileLayout(10, 10, 0)).toThrow('The tile size must be at least 1 pixel');
  });
});

describe('screenshot plan', () => {
  it('PNG at the canvas size by default', () => {
    const plan = planScreenshot(1280, 720, {}, 4096);
    expect(plan).toMatchObject({ width: 1280, height: 720, format: 'png', mimeType: 'image/png', quality: undefined });
    expect(plan.tiles).toHaveLength(1);
  });

  it('scale multiplies the canvas; above the GPU limit it tiles', () => {
    const plan = planScreenshot(1280, 720, { scale: 4 }, 4096);
    expect([plan.width, plan.height]).toEqual([5120, 2880]);
    expect(plan.tiles).toHaveLength(2);
    const small = planScreenshot(300, 200, { scale: 2, maxTileSize: 256 }, 4096);
    expect([small.width, small.height]).toEqual([600, 400]);
    expect(small.tiles).toHaveLength(6);
  });

  it('width and height win over scale; one of them keeps the aspect', () => {
    expect(planScreenshot(1280, 720, { width: 1920, height: 1920, scale: 3 }, 4096)).toMatchObject({ width: 1920, height: 1920 });
    expect(planScreenshot(1280, 720, { width: 1920 }, 4096)).toMatchObject({ width: 1920, height: 1080 });
    expect(planScreenshot(1280, 720, { height: 360 }, 4096)).toMatchObject({ width: 640, height: 360 });
  });

  it('lossy formats default to quality 0.8', () => {
    expect(planScreenshot(100, 100, { format: 'jpeg' }, 4096)).toMatchObject({ mimeType: 'image/jpeg', quality: 0.8 });
    expect(planScreenshot(100, 100, { format: 'webp', quality: 0.5 }, 4096)).toMatchObject({ mimeType: 'image/webp', quality: 0.5 });
    expect(mimeTypeOf('png')).toBe('image/png');
  });

  it('bad options get clear errors', () => {
    expect(() => planScreenshot(100, 100, { format: 'gif' as never }, 4096)).toThrow(`Unknown screenshot format "gif": expected 'png', 'jpeg' or 'webp'.`);
    expect(() => planScreenshot(100, 100, { format: 'jpeg', quality: 1.5 }, 4096)).toThrow('Screenshot quality must be between 0 and 1, got 1.5.');
    expect(() => planScreenshot(100, 100, { scale: 0 }, 4096)).toThrow('Screenshot scale must be more than 0 and at most 8, got 0.');
    expect(() => planScreenshot(100, 100, { scale: 9 }, 4096)).toThrow('at most 8');
    expect(() => planScreenshot(100, 100, { width: -5 }, 4096)).toThrow('Screenshot width must be a whole number');
    expect(() => planScreenshot(8000, 8000, { scale: 2 }, 4096)).toThrow(`larger than the ${MAX_SCREENSHOT_PIXELS} pixels allowed`);
  });

  it("the download is 'high-res-screenshot.png'; lossy formats keep the name with their extension", () => {
    expect(screenshotFileName()).toBe(SCREENSHOT_FILE_NAME);
    expect(screenshotFileName('png')).toBe('high-res-screenshot.png');
    expect(screenshotFileName('jpeg')).toBe('high-res-screenshot.jpg');
    expect(screenshotFileName('webp')).toBe('high-res-screenshot.webp');
  });
});
