import { describe, expect, it } from 'vitest';
import { LOW_TEXTURE_LIMIT } from '../../../src/protocol/constants';
import { parseQualityTier, QUALITY_TIERS, tierTextureLimit } from '../../../src/viewer/quality-tier';
import { settingsForTier } from '../../../src/viewer/quality';

describe('a forced tier', () => {
  it('is read trimmed, in any case; anything else is none', () => {
    for (const [value, tier] of [
      ['low', 'low'],
      [' Medium ', 'medium'],
      ['HIGH', 'high'],
      ['\tlow\n', 'low'],
      ['ultra', null],
      ['lowx', null],
      ['low medium', null],
      ['', null],
      [null, null],
      [undefined, null],
    ] as const) {
      expect(parseQualityTier(value), JSON.stringify(value)).toBe(tier);
    }
  });

  it("texture limit: the low tier's LOW_TEXTURE_LIMIT, none above it, as each tier's settings say", () => {
    expect(QUALITY_TIERS.map(tierTextureLimit)).toEqual([LOW_TEXTURE_LIMIT, null, null]);
    for (const tier of QUALITY_TIERS) expect(settingsForTier(tier, 2).textureLimit).toBe(tierTextureLimit(tier));
  });
});
