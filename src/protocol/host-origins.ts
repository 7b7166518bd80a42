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
 * the embedded viewer. Absent: any page may read and hear events (the specification's open
 * behaviour) but only the viewer's own origin may change anything; ['*']: any page may do anything;
 * a list: those origins (and the viewer's own) may do anything, any other gets nothing.
 */
export const HostOrigins = z.array(HostOrigin, { error: 'hostOrigins must be a list of origins' }).max(MAX_HOST_ORIGINS, {
  error: `hostOrigins: at most ${MAX_HOST_ORIGINS}`,
});
export type HostOrigins = z.infer<typeof HostOrigins>;

