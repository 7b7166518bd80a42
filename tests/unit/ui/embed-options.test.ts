import { describe, expect, it } from 'vitest';
import { DEFAULT_UI_COLOR, parseColor, parseEmbedOptions, parseUrl } from '../../../src/ui/embed-options';
import { progressFraction } from '../../../src/ui/embed-state';

describe('parseEmbedOptions', () => {
  it('has the documented defaults', () => {
    const o = parseEmbedOptions('');
    expect(o.autoPlay).toBe(true);
    expect(o.uiColor).toBe(DEFAULT_UI_COLOR);
    expect(o.uiWatermark).toBe(true);
    expect(o.uiLogoUrl).toBeNull();
    expect(o.uiThumbnailUrl).toBeNull();
    expect(o.uiBackgroundType).toBeNull();
    expect(o.uiBackgroundColor).toBe('transparent');
  });

  it('reads every option by its specification name', () => {
    const o = parseEmbedOptions(
      '?autoPlay=false&uiColor=ff8800&uiWatermark=0&uiLogoUrl=/logo.png&uiThumbnailUrl=https://cdn.example/t.jpg&uiBackgroundType=color&uiBackgroundColor=%23123456',
    );
    expect(o).toMatchObject({
      autoPlay: false,
      uiColor: '#ff8800',
      uiWatermark: false,
      uiLogoUrl: '/logo.png',
      uiThumbnailUrl: 'https://cdn.example/t.jpg',
      uiBackgroundType: 'color',
      uiBackgroundColor: '#123456',
    });
    expect(parseEmbedOptions('?uiBackgroundType=image').uiBackgroundType).toBe('image');
    expect(parseEmbedOptions('?uiBackgroundType=video').uiBackgroundType).toBeNull();
  });

  it('accepts the usual spellings of booleans and keeps the default for nonsense', () => {
    for (const v of ['1', 'true', 'yes', 'on', '']) expect(parseEmbedOptions(`?autoPlay=${v}`).autoPlay).toBe(true);
    for (const v of ['0', 'false', 'no', 'off']) expect(parseEmbedOptions(`?autoPlay=${v}`).autoPlay).toBe(false);
    expect(parseEmbedOptions('?uiWatermark=maybe').uiWatermark).toBe(true);
  });
});

describe('parseColor', () => {
  it('accepts hex with or without # and colour names', () => {
    expect(parseColor('abc')).toBe('#abc');
    expect(parseColor('#A1B2C3')).toBe('#A1B2C3');
    expect(parseColor('11223344')).toBe('#11223344');
    expect(parseColor('Red')).toBe('red');
  });
  it('refuses anything that could inject CSS', () => {
    expect(parseColor('red;background:url(x)')).toBeNull();
    expect(parseColor('rgb(1,2,3)')).toBeNull();
    expect(parseColor('#12345')).toBeNull();
    expect(parseColor(null)).toBeNull();
  });
});

describe('parseUrl', () => {
  it('allows http(s) and same-origin paths only', () => {
    expect(parseUrl('/assets/a.png')).toBe('/assets/a.png');
    expect(parseUrl('https://x.example/a.png')).toBe('https://x.example/a.png');
    expect(parseUrl('javascript:alert(1)')).toBeNull();
    expect(parseUrl('data:image/png;base64,AAAA')).toBeNull();
    expect(parseUrl('//evil.example/a.png')).toBeNull();
    expect(parseUrl('not a url')).toBeNull();
  });
});

describe('progressFraction', () => {
  it('follows bytes when the total is known, models otherwise', () => {
    expect(progressFraction({ loaded: 0, total: 0, modelsDone: 0, modelsTotal: 0 })).toBe(0);
    expect(progressFraction({ loaded: 50, total: 100, modelsDone: 0, modelsTotal: 2 })).toBeCloseTo(0.45);
    expect(progressFraction({ loaded: 100, total: 100, modelsDone: 2, modelsTotal: 2 })).toBeCloseTo(1);
    expect(progressFraction({ loaded: 10, total: 0, modelsDone: 1, modelsTotal: 4 })).toBeCloseTo(0.25);
    expect(progressFraction({ loaded: 200, total: 100, modelsDone: 0, modelsTotal: 1 })).toBeLessThanOrEqual(1);
  });
});
