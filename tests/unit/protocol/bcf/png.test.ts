import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { isPng, pngSize } from '../../../../src/protocol/bcf/png';
import { tinyPng } from '../../../support/bcf-fixtures';

describe('snapshots', () => {
  it('reads a PNG size and refuses what is not a PNG', () => {
    expect(pngSize(tinyPng(640, 360))).toEqual({ width: 640, height: 360 });
    expect(pngSize(strToU8('GIF89a.................'))).toBeUndefined();
  });

  it('knows a PNG by its signature and a whole IHDR', () => {
    expect(isPng(tinyPng())).toBe(true);
    expect(isPng(tinyPng().subarray(0, 23))).toBe(false);
    expect(pngSize(tinyPng(0, 5))).toBeUndefined();
  });
});
