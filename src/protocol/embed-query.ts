/**
 * The embedded viewer's page, /embed/{sceneId} (the id URI-encoded), as the app's entry
 * (src/ui/main.tsx) and index.html's boot script read it.
 */
export const EMBED_PATH = /^\/embed\/([^/]+)\/?$/;

/**
 * How the embed's boolean query options read (viewer specification section 2: autoPlay,
 * uiWatermark): '', 1, true, yes and on are true; 0, false, no and off false (trimmed, any case);
 * absent or anything else is the option's default. The embed's options (src/ui/embed-options.ts)
 * and index.html's boot script (src/viewer/early-boot.ts) read autoPlay with it.
 */
export function parseBoolOption(value: string | null, fallback: boolean): boolean {
  if (value === null) return fallback;
  const v = value.trim().toLowerCase();
  if (v === '' || v === '1' || v === 'true' || v === 'yes' || v === 'on') return true;
  if (v === '0' || v === 'false' || v === 'no' || v === 'off') return false;
  return fallback;
}

/** The embed's autoPlay option (default on) from a page's query string. */
export function autoPlayOf(search: string): boolean {
  return parseBoolOption(new URLSearchParams(search).get('autoPlay'), true);
}
