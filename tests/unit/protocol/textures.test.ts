import { describe, expect, it } from 'vitest';
import { COLOR_TEXTURE_MAPS, isUploadedTextureId, textureUrl, TEXTURE_CONTENT_TYPES } from '../../../src/protocol/textures';
import { TEXTURE_MAP_PROPERTIES } from '../../../src/protocol/mutation';

describe('uploaded texture protocol', () => {
  it("ids are 'u-' and 24 lowercase hex digits", () => {
    expect(isUploadedTextureId(`u-${'0a'.repeat(12)}`)).toBe(true);
    for (const id of ['0', 'u-', `u-${'A'.repeat(24)}`, `u-${'a'.repeat(23)}`, `u-${'a'.repeat(25)}`, `x-${'a'.repeat(24)}`, `u-${'a'.repeat(23)}/`]) expect(isUploadedTextureId(id)).toBe(false);
  });
  it('URLs are below the model service, with or without its trailing slash', () => {
    expect(textureUrl('https://m.example/', 'abc', 'u-1')).toBe('https://m.example/v1/models/abc/textures/u-1');
    expect(textureUrl('', 'a b', 'u-1')).toBe('/v1/models/a%20b/textures/u-1');
  });
  it('colour maps are texture map properties; the accepted types are PNG, JPEG and WebP', () => {
    for (const key of COLOR_TEXTURE_MAPS) expect(TEXTURE_MAP_PROPERTIES).toContain(key);
    expect(Object.keys(TEXTURE_CONTENT_TYPES)).toEqual(['image/png', 'image/jpeg', 'image/webp']);
  });
});
