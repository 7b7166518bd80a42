import { z } from 'zod';

/** Most host origins a scene may list. */
export const MAX_HOST_ORIGINS = 50;

/** An origin as `location.origin` gives it ('https://example.com', 'http://localhost:8080'), or '*'. */
export const HostOrigin = z
  .string({ error: 'a host origin must be a string' })
  .max(300, { error: 'a host origin must be at most 300 characters' })
  .refine(
    (value) => {
      if (value === '*') return true;
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
      } catch {
        return false;
      }
    },
    { error: "a host origin must be '*' or an origin such as 'https://example.com' (scheme, host and port; no path, no trailing slash)" },
  );

/**
 * A scene's `hostOrigins` (set by its owner with PATCH /v1/scenes/{id}): the pages that may drive
 * the embedded viewer.
 *
 * - Absent (the open default): any page may read and hear events (the specification's open
 *   behaviour) but only the viewer's own origin may change anything.
 * - `[]` means the same as absent: there is one representation, so the service never stores it
 *   (a PATCH with `[]` removes the field, as `null` does, and answers the scene without it), the
 *   viewer treats a list without origins as absent, and the editor's Host pages panel shows an
 *   empty list as the open default. To let no page of another origin in, list only the viewer's own
 *   origin.
 * - `['*']`: any page may do anything.
 * - A list: those origins (and the viewer's own) may do anything, any other page gets nothing.
 */
export const HostOrigins = z.array(HostOrigin, { error: 'hostOrigins must be a list of origins' }).max(MAX_HOST_ORIGINS, {
  error: `hostOrigins: at most ${MAX_HOST_ORIGINS}`,
});
export type HostOrigins = z.infer<typeof HostOrigins>;

/**
 * The one representation of a scene's hostOrigins: undefined (the open default) for none, null or
 * an empty list; otherwise the list without repeats, in its order.
 */
export function normalizeHostOrigins(list: readonly string[] | null | undefined): string[] | undefined {
  if (!list || list.length === 0) return undefined;
  return [...new Set(list)];
}

export type Access = 'none' | 'read' | 'all';

/**
 * What a page of `origin` may do with a viewer at `selfOrigin` whose scene lists `origins`: the
 * viewer's rule (src/api/host-api.ts), and what the editor's Host pages panel describes.
 */
export function accessFor(origins: readonly string[] | undefined, origin: string, selfOrigin: string): Access {
  if (origin === selfOrigin && origin !== 'null') return 'all';
  // An empty list is the open default, as absent (see HostOrigins).
  if (origins === undefined || origins.length === 0) return 'read';
  if (origins.includes('*') || origins.includes(origin)) return 'all';
  return 'none';
}
