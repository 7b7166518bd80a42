import { z } from 'zod';
import { HostOrigins } from './host-origins.ts';
import { SceneObject } from './scene-objects.ts';

/**
 * Scene and model documents as the model service returns them (viewer specification section 3,
 * DESIGN.md section 4.4). Every document from outside passes one of these schemas before use.
 */

/** A model version key is a relative path below the derivative CDN: safe segments only. */
export const VersionKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/, 'latestVersionKey must be path segments of [A-Za-z0-9_-]');

/** A URL query of plain characters (no '#', '/' or '?'): appended to the derivative URL as it is. */
export const DerivativeQuery = z
  .string()
  .min(1)
  .max(2048)
  .regex(/^[A-Za-z0-9._~%=&-]+$/, 'derivativeQuery must be a URL query of A-Z a-z 0-9 . _ ~ % = & -');

export const ModelDoc = z.object({
  _id: z.string().min(1),
  latestVersionKey: VersionKey,
  /** Only 'glb' is loaded; other formats are listed but skipped. */
  outputFormat: z.string(),
  /** Becomes the model's scene name. */
  sourceFileName: z.string(),
  /**
   * Not in the specification (an extension, issue 33 item 10): the query, without '?', that the
   * derivative URL needs, `exp={unix s}&sig={signature}`. The model service gives it, in its
   * answers only (never stored), for a model that only private scenes list; the viewer appends it
   * to `{modelDerivativeCdn}/{latestVersionKey}/model_file.binz`. Absent: the plain URL.
   */
  derivativeQuery: DerivativeQuery.optional(),
});
export type ModelDoc = z.infer<typeof ModelDoc>;

export const UiConfig = z.object({
  rtcVideoEnabled: z.boolean().default(true),
  rtcAvatarsEnabled: z.boolean().default(true),
});
export type UiConfig = z.infer<typeof UiConfig>;

export const ViewerConfig = z.object({
  /** Scene settings (editor specification section 3); applied per present field. */
  scene: z.record(z.string(), z.unknown()).optional(),
  /** Saved render config (viewer specification section 3). */
  postprocessing: z.record(z.string(), z.unknown()).optional(),
  uiConfig: UiConfig.optional(),
  /** The lights, cameras and groups the editor added (scene-objects.ts), changed by POST /v1/scenes/{id}/object-changes. */
  objects: z.array(SceneObject).optional(),
  /** The uuids of the last object changes applied (a repeated change is skipped). */
  objectChanges: z.array(z.string()).optional(),
});
export type ViewerConfig = z.infer<typeof ViewerConfig>;

export const SceneDoc = z.object({
  _id: z.string().min(1),
  name: z.string(),
  thumbnailUrl: z.string().nullable().optional(),
  viewerConfig: ViewerConfig.default({}),
  models: z.array(ModelDoc),
  /** The user id (token subject) of the scene's owner; absent for seeded public scenes. */
  ownerId: z.string().optional(),
  /** User ids that may change the scene and save mutations besides the owner. */
  editors: z.array(z.string()).optional(),
  /** Anyone may read a public scene (default); a private one only its owner and editors. */
  public: z.boolean().optional(),
  /**
   * Pages that may drive the embedded viewer through the host API (src/protocol/host-api.ts):
   * absent, any page may read and hear events but none of another origin may change anything;
   * ['*'] opens everything; a list opens everything to those origins and nothing to the others.
   * Only the owner changes it (PATCH /v1/scenes/{id}).
   */
  hostOrigins: HostOrigins.optional(),
  /** Whether signed-in readers may comment (issue 16; absent: yes). Only the owner changes it (PATCH /v1/scenes/{id}). */
  commentsEnabled: z.boolean().optional(),
});
export type SceneDoc = z.infer<typeof SceneDoc>;

/** uiConfig with the specification's defaults (both true when absent). */
export function resolveUiConfig(config: ViewerConfig): UiConfig {
  return UiConfig.parse(config.uiConfig ?? {});
}
