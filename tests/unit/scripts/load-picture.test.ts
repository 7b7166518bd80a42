import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { cellsUnder, firstPictureIndex, flagSetsFromEnv, pictureCells, pictureRows, samePicture, type LoadRun } from '../../../bench/load-run';

/** An 8-bit RGB PNG of `width` x `height` whose pixel colour is `colour(x, y)`. */
function png(width: number, height: number, colour: (x: number, y: number) => [number, number, number]): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set(colour(x, y), y * (width * 3 + 1) + 1 + x * 3);
  }
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, body, Buffer.alloc(4)]); // the decoder does not check the CRC
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const W = 80;
const H = 60;
const blank = pictureCells(png(W, H, () => [255, 255, 255]));
const overlay = pictureCells(png(W, H, (x, y) => (x > 30 && x < 50 && y > 28 && y < 32 ? [200, 200, 200] : [13, 27, 42])));
/** The model: a grey box over the dark background. */
const model = (shift = 0) => pictureCells(png(W, H, (x, y) => (x >= 20 + shift && x < 60 + shift && y >= 10 && y < 50 ? [180, 180, 180] : [13, 27, 42])));

describe('the first picture seen (bench/load-run.ts)', () => {
  it('summarises a screenshot in 8 x 8 cells of its mean colour', () => {
    const cells = pictureCells(png(16, 8, (x) => (x < 8 ? [0, 0, 0] : [30, 60, 90])));
    expect([...cells]).toEqual([0, 60]);
  });

  it('reads a screencast frame drawn at a quarter of the size as the same cells of the page, over the frame only', () => {
    // A 400 x 200 page drawn at 100 x 50: the left half black, the right grey; the frame is its left 320 x 160.
    const quarter = png(100, 50, (x) => (x < 50 ? [0, 0, 0] : [90, 90, 90]));
    const cells = pictureCells(quarter, { scale: 0.25, width: 320, height: 160 });
    expect(cells.length).toBe(40 * 20);
    expect(cells[0]).toBe(0);
    expect(cells[24]).toBe(0);
    expect(cells[25]).toBe(90);
    expect(cells[39]).toBe(90);
  });

  it('allows 1 % of the cells to change (a small animation), not more', () => {
    // 400 x 400 px: 2,500 cells, so 25 may change.
    const base = pictureCells(png(400, 400, () => [13, 27, 42]));
    const moved = (n: number) => {
      const out = base.slice();
      for (let c = 0; c < n; c++) out[c * 7] = 200;
      return out;
    };
    expect(samePicture(base, moved(25))).toBe(true);
    expect(samePicture(base, moved(26))).toBe(false);
  });

  it('tells pictures apart by the share of cells that changed, not by a pixel', () => {
    expect(samePicture(model(), model())).toBe(true);
    // The box one cell to the right: 10 of the 80 cells changed (over 1 %), different.
    expect(samePicture(model(), model(8))).toBe(false);
    const nearly = model().slice();
    nearly[0] = Math.min(255, nearly[0] + 10);
    expect(samePicture(model(), nearly), 'a change under the cell threshold').toBe(true);
    expect(samePicture(blank, overlay)).toBe(false);
  });

  it('is the first screenshot from which on every one shows the settled picture: the overlay and a half-drawn frame do not count', () => {
    expect(firstPictureIndex([])).toBe(-1);
    expect(firstPictureIndex([blank, overlay, model(), model()])).toBe(2);
    // A picture that showed and then changed again (still refining) counts from its last change.
    expect(firstPictureIndex([blank, model(8), overlay, model(), model()])).toBe(3);
    // The model alone never changed: the first screenshot.
    expect(firstPictureIndex([model(), model()])).toBe(0);
  });

  it("leaves out the cells under the page's controls: a toolbar that arrives after the model is not a later picture", () => {
    // The model, then the same with a toolbar at the top left (16 x 24 px: 2 x 3 cells of 80, over 1 %).
    const withToolbar = pictureCells(
      png(W, H, (x, y) => (x < 16 && y < 24 ? [240, 240, 240] : x >= 20 && x < 60 && y >= 10 && y < 50 ? [180, 180, 180] : [13, 27, 42])),
    );
    const toolbar = cellsUnder([{ x: 0, y: 0, width: 16, height: 24 }], W, H);
    expect([...toolbar].filter(Boolean)).toHaveLength(6);
    expect(toolbar[0]).toBe(1);
    expect(toolbar[2]).toBe(0);
    const shots = [blank, overlay, model(), withToolbar, withToolbar];
    expect(firstPictureIndex(shots), 'without the mask the toolbar counts').toBe(3);
    expect(firstPictureIndex(shots, toolbar)).toBe(2);
    // The overlay is not under a control: it still does not count as the picture (the model shown
    // before it does not either: the overlay came back over it).
    expect(firstPictureIndex([blank, model(), overlay, withToolbar], toolbar)).toBe(3);
  });

  it('reads the flag sets from BENCH_LOAD_FLAGS and refuses unknown ones', () => {
    expect(flagSetsFromEnv('tests,default')).toEqual(['tests', 'default']);
    expect(flagSetsFromEnv(' default ')).toEqual(['default']);
    expect(() => flagSetsFromEnv('tests,gpu')).toThrow(/BENCH_LOAD_FLAGS/);
    expect(() => flagSetsFromEnv('')).toThrow(/BENCH_LOAD_FLAGS/);
  });
});

function run(firstMs: number | null, api: { ms: number; error: string | null } | null = null, settled = true): LoadRun {
  return {
    ms: 100,
    messages: {},
    marks: [],
    longTasks: [],
    frameStart: 0,
    scripts: [],
    tier: 'low',
    cpu: null,
    startup: { waitedMs: 0, quiet: true },
    flags: 'tests',
    picture: firstMs === null ? null : { firstMs, uncertaintyMs: 200, shots: 5, settled },
    apiAnswer: api,
  };
}

describe('the picture rows', () => {
  it('put the goal on the picture: ours against plain, medians', () => {
    const rows = pictureRows(
      'load: x',
      [run(1300, { ms: 20, error: null }), run(1100, { ms: 30, error: null }), run(5000, { ms: 25, error: null })],
      [run(1000), run(1000), run(900)],
      { ratio: 1.2 },
    );
    const picture = rows.find((r) => r.name.includes('first picture seen'))!;
    expect(picture).toMatchObject({ value: 1300, baseline: 1000, ratio: 1.3, goal: '<= 1.2x', pass: false });
    const api = rows.find((r) => r.name.includes('host-API'))!;
    expect(api).toMatchObject({ value: 25 });
    expect(api.pass).toBeUndefined();
  });

  it('fail a goal when a picture never settled, an answer was an error or never came', () => {
    const rows = pictureRows('load: x', [run(900, { ms: 20, error: 'Unknown function' }), run(900, null, false)], [run(1000), run(1000)], {
      ratio: 1.2,
      apiMs: 2000,
    });
    const picture = rows.find((r) => r.name.includes('first picture seen'))!;
    expect(picture.name).toContain('1 runs never at rest');
    expect(picture.pass).toBe(false);
    const api = rows.find((r) => r.name.includes('host-API'))!;
    expect(api.name).toContain('1 runs without an answer');
    expect(api.name).toContain('Unknown function');
    expect(api.pass).toBe(false);
  });

  it('time ours alone against a goal in seconds where there is no plain page to compare', () => {
    const rows = pictureRows('instances load: 100,000', [run(2500), run(3500), run(2800)], [], { pictureMs: 3000 });
    expect(rows.find((r) => r.name.includes('first picture seen'))).toMatchObject({ value: 2800, goal: '<= 3 s', pass: true });
  });

  it('fail the goal in seconds when ours is late or never at rest; a plain run never at rest does not fail it', () => {
    const late = pictureRows('instances load: 1,000,000', [run(12_000), run(11_000), run(13_000)], [run(60_000, null, false)], { pictureMs: 10_000 });
    const ratio = late.find((r) => r.name.includes('vs plain'))!;
    expect(ratio).toMatchObject({ value: 12_000, baseline: 60_000, ratio: 0.2 });
    expect(ratio.goal).toBeUndefined();
    const absolute = late.find((r) => r.name.includes('first picture seen (screenshots of the frame), ours'))!;
    expect(absolute).toMatchObject({ value: 12_000, goal: '<= 10 s', pass: false });
    const inTime = pictureRows('instances load: 1,000,000', [run(8_000), run(9_000), run(7_000)], [run(60_000, null, false)], { pictureMs: 10_000 });
    expect(inTime.find((r) => r.name.includes(', ours'))).toMatchObject({ value: 8_000, pass: true });
    const restless = pictureRows('instances load: 1,000,000', [run(8_000, null, false), run(9_000), run(7_000)], [], { pictureMs: 10_000 });
    expect(restless.find((r) => r.name.includes(', ours'))).toMatchObject({ pass: false });
  });

  it('say so when no run took a screenshot', () => {
    const rows = pictureRows('load: x', [run(null)], [run(1000)]);
    expect(rows.find((r) => r.name.includes('no screenshot'))).toMatchObject({ pass: false });
  });
});
