import { describe, expect, it } from 'vitest';
import { limitedSize, scaleOptions } from '../../../src/scene/texture-size';

describe('limitedSize', () => {
  it('halves a texture until its larger side fits the limit, keeping its proportions', () => {
    expect(limitedSize(2048, 2048, 1024)).toEqual({ width: 1024, height: 1024 });
    expect(limitedSize(4096, 1024, 1024)).toEqual({ width: 1024, height: 256 });
    expect(limitedSize(3000, 1500, 1024)).toEqual({ width: 750, height: 375 });
    expect(limitedSize(8192, 2, 1024)).toEqual({ width: 1024, height: 1 });
  });

  it('leaves a texture that fits as it is', () => {
    expect(limitedSize(1024, 1024, 1024)).toEqual({ width: 1024, height: 1024 });
    expect(limitedSize(1000, 600, 1024)).toEqual({ width: 1000, height: 600 });
    expect(limitedSize(1, 1, 1024)).toEqual({ width: 1, height: 1 });
  });
});

describe('scaleOptions', () => {
  it('scales to the size with mipmap filtering and no premultiplied alpha (as GLTFLoader decodes)', () => {
    expect(scaleOptions({ width: 750, height: 375 })).toEqual({ resizeWidth: 750, resizeHeight: 375, resizeQuality: 'medium', premultiplyAlpha: 'none' });
  });
});
