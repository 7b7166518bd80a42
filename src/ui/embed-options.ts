import { autoPlayOf, parseBoolOption } from '../protocol/embed-query';
import { parseQualityTier, type QualityTier } from '../viewer/quality';

/**
 * Display options of the embedded viewer (viewer specification section 2), read from the query
 * string with the specification's names: autoPlay, uiColor, uiWatermark, uiLogoUrl,
 * uiThumbnailUrl, uiBackgroundType, uiBackgroundColor; and ours: quality.
 */
export interface EmbedOptions {
  /** Start loading at once (default) or show the cover with a play button first. */
  autoPlay: boolean;
  /** Accent colour of the play button and progress bar (a CSS colour). */
  uiColor: string;
  /** Show the watermark link at the bottom-left. */
  uiWatermark: boolean;
  /** A custom logo for the loading overlay; null uses the product's own. */
  uiLogoUrl: string | null;
  /** A cover thumbnail overriding the scene's thumbnailUrl. */
  uiThumbnailUrl: string | null;
  /** What the cover shows: the thumbnail ('image'), a solid colour ('color'), or nothing. */
  uiBackgroundType: 'image' | 'color' | null;
  /** The cover's solid colour for uiBackgroundType 'color'; default transparent. */
  uiBackgroundColor: string;
  /** A forced rendering quality tier ('low', 'medium', 'high'); null detects it. */
  quality: QualityTier | null;
}

export const DEFAULT_UI_COLOR = '#1f8efa';

export function parseEmbedOptions(search: string): EmbedOptions {
  const q = new URLSearchParams(search);
  const type = q.get('uiBackgroundType');
  return {
    autoPlay: autoPlayOf(search),
    uiColor: parseColor(q.get('uiColor')) ?? DEFAULT_UI_COLOR,
    uiWatermark: parseBoolOption(q.get('uiWatermark'), true),
    uiLogoUrl: parseUrl(q.get('uiLogoUrl')),
    uiThumbnailUrl: parseUrl(q.get('uiThumbnailUrl')),
    uiBackgroundType: type === 'image' || type === 'color' ? type : null,
    uiBackgroundColor: parseColor(q.get('uiBackgroundColor')) ?? 'transparent',
    quality: parseQualityTier(q.get('quality')),
  };
}

/** Hex colours with or without '#', or CSS colour names; anything else is refused (no CSS injection). */
export function parseColor(value: string | null): string | null {
  if (!value) return null;
  const v = value.trim();
  if (/^#?([0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(v)) return v.startsWith('#') ? v : `#${v}`;
  if (/^[a-z]{3,30}$/i.test(v)) return v.toLowerCase();
  return null;
}

/** http(s) URLs and same-origin paths only. */
export function parseUrl(value: string | null): string | null {
  if (!value) return null;
  const v = value.trim();
  if (v.startsWith('/') && !v.startsWith('//')) return v;
  try {
    const url = new URL(v);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}
