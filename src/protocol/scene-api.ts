import { z } from 'zod';
import { HostOrigins } from './host-origins.ts';
import { ViewerConfig } from './scene.ts';

/**
 * Request bodies of the scene endpoints (DESIGN.md 4.4). The responses are SceneDoc (scene.ts)
 * and, for the list, SceneList.
 */

const MAX_EDITORS = 100;

const name = z
  .string({ error: (issue) => (issue.input === undefined ? 'name undefined.' : 'name must be a string') })
  .trim()
  .min(1, { error: 'name must not be empty' })
  .max(200, { error: 'name must be at most 200 characters' });

const editors = z
  .array(z.string({ error: 'editors must be user ids (strings)' }).min(1, { error: 'editors must not contain an empty id' }).max(256), {
    error: 'editors must be a list of user ids',
  })
  .max(MAX_EDITORS, { error: `editors: at most ${MAX_EDITORS}` });

const isPublic = z.boolean({ error: 'public must be true or false' });

/** POST /v1/scenes: the signed-in user becomes the owner. */
export const CreateSceneRequest = z.strictObject(
  {
    name,
    public: isPublic.optional(),
    editors: editors.optional(),
    viewerConfig: ViewerConfig.optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')}` : 'the body must be a JSON object') },
);
export type CreateSceneRequest = z.infer<typeof CreateSceneRequest>;

/** PATCH /v1/scenes/{id}: name by owner and editors; public, editors, hostOrigins and commentsEnabled by the owner only (null or [] removes hostOrigins: the open default). */
export const UpdateSceneRequest = z.strictObject(
  {
    name: name.optional(),
    public: isPublic.optional(),
    editors: editors.optional(),
    hostOrigins: HostOrigins.nullable().optional(),
    commentsEnabled: z.boolean({ error: 'commentsEnabled must be true or false' }).optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')}` : 'the body must be a JSON object') },
);
export type UpdateSceneRequest = z.infer<typeof UpdateSceneRequest>;

/** PATCH /v1/scenes/{id}/viewer-config: each part present (scene, postprocessing, uiConfig) replaces the stored one. */
export const UpdateViewerConfigRequest = z.strictObject(ViewerConfig.pick({ scene: true, postprocessing: true, uiConfig: true }).shape, {
  error: (issue) =>
    issue.code === 'unrecognized_keys'
      ? `unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')} (viewerConfig has scene, postprocessing, uiConfig; objects change through object-changes)`
      : 'the body must be a JSON object { scene?, postprocessing?, uiConfig? }',
});
export type UpdateViewerConfigRequest = z.infer<typeof UpdateViewerConfigRequest>;

/** A thumbnail URL: an absolute http(s) URL or a path on this server; null removes it. */
export const ThumbnailUrl = z
  .string({ error: 'thumbnailUrl must be a string or null' })
  .max(2000, { error: 'thumbnailUrl must be at most 2000 characters' })
  .refine(
    (value) => {
      if (value.startsWith('/') && !value.startsWith('//')) return true;
      try {
        return ['http:', 'https:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { error: "thumbnailUrl must be an http(s) URL or a path starting with '/'" },
  )
  .nullable();

/** PUT /v1/scenes/{id}/thumbnail with a JSON body (an image body uploads the image instead). */
export const SetThumbnailRequest = z.strictObject(
  { thumbnailUrl: ThumbnailUrl },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.map((k) => `'${k}'`).join(', ')}` : 'the body must be { "thumbnailUrl": string | null } or an image') },
);

/** GET /v1/scenes */
export const SceneSummary = z.object({
  id: z.string(),
  name: z.string(),
  modelCount: z.number().int().nonnegative(),
  thumbnailUrl: z.string().optional(),
});
export type SceneSummary = z.infer<typeof SceneSummary>;
export const SceneList = z.object({ scenes: z.array(SceneSummary) });
export type SceneList = z.infer<typeof SceneList>;
