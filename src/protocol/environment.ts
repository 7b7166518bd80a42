import { z } from 'zod';

/**
 * Environment maps (viewer specification section 3, "Environment entry"): a catalog of entries
 * with id, name, path and format, all read from /assets/environments/{path}.
 */

/** Where the catalog and every environment image live. */
export const ENVIRONMENT_BASE = '/assets/environments/';
/** The catalog our build generates (scripts/generate-assets.ts). */
export const ENVIRONMENT_CATALOG_URL = `${ENVIRONMENT_BASE}catalog.json`;
/** The default studio's face size when it is prefiltered at build time (the low tier's). */
export const STUDIO_PREFILTERED_SIZE = 128;
/** The default studio prefiltered at build time (scripts/assets/studio-prefiltered.ts; format: src/engine/prefiltered-cube.ts). */
export const STUDIO_PREFILTERED_URL = `${ENVIRONMENT_BASE}studio-${STUDIO_PREFILTERED_SIZE}.pmrem`;
/** How long the viewer waits for that file (56 kB) before it prefilters the studio itself. */
export const STUDIO_FETCH_TIMEOUT_MS = 10_000;

/** 'hdrjpeg': an SDR JPEG with a gain map (Ultra HDR, ISO 21496-1); 'hdr': Radiance RGBE. */
export const EnvironmentFormat = z.enum(['hdrjpeg', 'hdr']);
export type EnvironmentFormat = z.infer<typeof EnvironmentFormat>;

/** A relative path below the base: safe segments only, no '..', no scheme, no leading slash. */
export const EnvironmentPath = z
  .string()
  .min(1)
  .max(300)
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9_.-]*(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/, 'an environment path is path segments of [A-Za-z0-9_.-] below /assets/environments/')
  .refine((p) => !p.split('/').includes('..'), 'an environment path must not leave /assets/environments/');

export const EnvironmentEntry = z.object({
  id: z.string().min(1).max(200),
  name: z.string(),
  path: EnvironmentPath,
  format: EnvironmentFormat,
});
export type EnvironmentEntry = z.infer<typeof EnvironmentEntry>;

/** The catalog file: a list of entries with unique ids. */
export const EnvironmentCatalog = z.array(EnvironmentEntry).superRefine((entries, ctx) => {
  const seen = new Set<string>();
  for (const [i, entry] of entries.entries()) {
    if (seen.has(entry.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate environment id '${entry.id}'` });
    seen.add(entry.id);
  }
});
export type EnvironmentCatalog = z.infer<typeof EnvironmentCatalog>;

/** The URL of an entry's image. */
export function environmentUrl(entry: Pick<EnvironmentEntry, 'path'>): string {
  return ENVIRONMENT_BASE + entry.path;
}
