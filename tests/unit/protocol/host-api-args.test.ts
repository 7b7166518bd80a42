import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { args, clip, finite, id, measurementProblem, planeNormal, side, vec3, httpUrl } from '../../../src/protocol/host-api-args';
import { MAX_FRAME_SIDE } from '../../../src/protocol/host-api-envelope';

const message = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? null : result.error.issues[0]!.message;
};

describe('argument pieces', () => {
  it('checks measurement geometry: lengths, angles, areas on one plane', () => {
    expect(
      measurementProblem('length', [
        [0, 0, 0],
        [0, 0, 1],
      ]),
    ).toBeNull();
    expect(
      measurementProblem('angle', [
        [1, 0, 0],
        [0, 0, 0],
        [0, 1, 0],
      ]),
    ).toBeNull();
    // A tilted square, with a point off its plane by less than the tolerance.
    const tilted = [
      [0, 0, 0],
      [1, 1, 0],
      [1, 1, 1],
      [0, 0, 1.0004],
    ];
    expect(measurementProblem('area', tilted)).toBeNull();
    expect(measurementProblem('area', [...tilted.slice(0, 3), [0, 0.01, 1]])).toMatchObject({ index: 3 });
    expect(
      measurementProblem('angle', [
        [0, 0, 0],
        [1, 0, 0],
      ]),
    ).toEqual({ index: null, message: 'a angle measurement needs 3 points, got 2' });
  });

  it('name the argument at fault in their messages', () => {
    expect(message(finite('x'), 'a')).toBe('x must be a number');
    expect(message(finite('x'), Number.NaN)).toBe('x must be a number');
    expect(message(finite('x'), Number.POSITIVE_INFINITY)).toBe('x must be a number');
    expect(message(id('nodeId'), undefined)).toBe('nodeId undefined.');
    expect(message(id('nodeId'), '')).toBe('nodeId must not be empty');
    expect(message(vec3('position'), [1, 2])).toBe('position must be [x, y, z]');
    expect(message(vec3('position'), [1, 'b', 3])).toBe('position[1] must be a number');
    expect(message(side('width'), 1.5)).toBe('width must be a whole number of pixels');
    expect(message(side('width'), MAX_FRAME_SIDE + 1)).toBe(`width must be at most ${MAX_FRAME_SIDE}`);
    expect(message(planeNormal, [0, 0, 0])).toBe('normal must not be [0, 0, 0]: it gives the side of the plane that stays');
    expect(message(httpUrl('url'), 'ftp://x.org/a')).toBe('url must be an http(s) URL');
    expect(message(httpUrl('url'), 'https://x.org/a')).toBeNull();
  });

  it('take only the arguments they name, and say which ones they do not know', () => {
    const schema = args({ a: finite('a').optional() });
    expect(message(schema, { a: 1 })).toBeNull();
    expect(message(schema, [])).toBe('the arguments must be an object { name: value }');
    expect(message(schema, { b: 1, c: 2 })).toBe("unknown argument 'b', 'c'");
    expect(message(schema, Object.fromEntries(['b', 'c', 'd', 'e', 'f', 'g', 'h'].map((k) => [k, 1])))).toBe(
      "unknown argument 'b', 'c', 'd', 'e', 'f' (and 2 more)",
    );
  });

  it('clip a quoted value to 60 characters', () => {
    expect(clip('short')).toBe('short');
    expect(clip('x'.repeat(61))).toBe(`${'x'.repeat(60)}…`);
    expect(clip('abcdef', 3)).toBe('abc…');
  });
});
