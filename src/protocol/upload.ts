import { z } from 'zod';
import { ModelDoc } from './scene.ts';

/**
 * Answers of the upload endpoints (POST /v1/models, POST /v1/assets): the findings of Khronos's
 * glTF-Validator on the uploaded file and what the optimisation did. Shared by the server, which
 * writes them, and the home page, which shows them.
 */

export const VALIDATION_SEVERITIES = ['error', 'warning', 'info', 'hint'] as const;
export const ValidationSeverity = z.enum(VALIDATION_SEVERITIES);
export type ValidationSeverity = z.infer<typeof ValidationSeverity>;

/** One validator message, as the validator wrote it (code, message, JSON pointer). */
export const ValidationMessage = z.object({
  severity: ValidationSeverity,
  code: z.string(),
  message: z.string(),
  /** JSON pointer into the glTF (e.g. /meshes/0/primitives/0), or '' for the file itself. */
  pointer: z.string().optional(),
  /** Byte offset, for problems in the binary layout. */
  offset: z.number().optional(),
  /** An error the optimisation repairs (the stored model no longer has it); it does not refuse the upload. */
  repaired: z.boolean().optional(),
});
export type ValidationMessage = z.infer<typeof ValidationMessage>;

export const ValidationReport = z.object({
  validatorVersion: z.string(),
  /** Counts over all messages, including those left out of `messages`. */
  errors: z.number().int(),
  warnings: z.number().int(),
  infos: z.number().int(),
  hints: z.number().int(),
  /** Errors that the optimisation repairs (counted in `errors` too). */
  repaired: z.number().int(),
  /** Errors first, then warnings, infos, hints; at most a few hundred. */
  messages: z.array(ValidationMessage),
  /** True when `messages` leaves some out. */
  truncated: z.boolean(),
});
export type ValidationReport = z.infer<typeof ValidationReport>;

/** What the optimisation did to one model. */
export const OptimizationSummary = z.object({
  /** Size of the GLB before optimisation (a .gltf packed into a GLB). */
  inputBytes: z.number().int(),
  /** Size of the optimised GLB that goes into the container. */
  outputBytes: z.number().int(),
  nodesBefore: z.number().int(),
  nodesAfter: z.number().int(),
  /** Nodes with EXT_mesh_gpu_instancing made by the optimisation, and the source nodes they replace. */
  instancedNodes: z.number().int(),
  instances: z.number().int(),
  /** Extensions of the stored model that need a decoder in the viewer. */
  compression: z.array(z.string()),
  /** Validator errors of the input that the optimisation repaired, by code. */
  repairs: z.array(z.string()),
  /**
   * An asset's levels of detail (src/protocol/asset-levels.ts): triangles of the full asset then of
   * each simplified level, each level's error (asset units), and whether an impostor was made.
   */
  levels: z.object({ triangles: z.array(z.number().int()), errors: z.array(z.number()), impostor: z.boolean(), skipped: z.string().optional() }).optional(),
  milliseconds: z.number(),
});
export type OptimizationSummary = z.infer<typeof OptimizationSummary>;

/** 201 answer of POST /v1/models: the Model document plus the upload's report. */
export const ModelUploadResult = ModelDoc.extend({
  /** The scene the model was appended to, when the upload named one. */
  sceneId: z.string().optional(),
  validation: ValidationReport,
  optimization: OptimizationSummary.optional(),
});
export type ModelUploadResult = z.infer<typeof ModelUploadResult>;

/** Every 4xx/5xx answer: `{ error }`, plus the validator's report when the file was refused for its content. */
export const UploadError = z.object({
  error: z.string(),
  validation: ValidationReport.optional(),
});
export type UploadError = z.infer<typeof UploadError>;

/** An asset of the asset CDN (DESIGN.md 3: instanced asset groups load these). */
export const AssetDoc = z.object({
  _id: z.string().min(1),
  name: z.string(),
  sourceFileName: z.string(),
  /** Path of the container below the asset CDN: `assets/{assetId}/model.3dxa`. */
  path: z.string(),
  byteLength: z.number().int(),
  ownerId: z.string().optional(),
  createdAt: z.string(),
  /** The asset's picture for lists, when one was stored (PUT /v1/assets/{id}/thumbnail). */
  thumbnail: z
    .object({
      type: z.enum(['image/png', 'image/webp']),
      byteLength: z.number().int(),
      updatedAt: z.string(),
    })
    .optional(),
});
export type AssetDoc = z.infer<typeof AssetDoc>;

/** Thumbnails: PNG or WebP, at most this many bytes (a 256 x 256 picture is 10-60 KB). */
export const THUMBNAIL_TYPES = ['image/png', 'image/webp'] as const;
export const MAX_THUMBNAIL_BYTES = 256 * 1024;
/** The side of the square thumbnails the asset library renders. */
export const THUMBNAIL_SIZE = 256;

/** One asset in GET /v1/assets: its document, its container URL and its thumbnail's URL (null: none yet). */
export const AssetListItem = AssetDoc.extend({
  url: z.string(),
  thumbnailUrl: z.string().nullable(),
});
export type AssetListItem = z.infer<typeof AssetListItem>;

/** At most this many assets a page of GET /v1/assets (?limit=, default ASSET_PAGE_DEFAULT). */
export const ASSET_PAGE_MAX = 100;
export const ASSET_PAGE_DEFAULT = 50;

/** GET /v1/assets[?limit=N&cursor=C]: the signed-in user's assets, newest first. */
export const AssetList = z.object({
  assets: z.array(AssetListItem),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AssetList = z.infer<typeof AssetList>;

export const AssetUploadResult = AssetDoc.extend({
  /** Absolute or relative URL of the container (the configured asset CDN + path). */
  url: z.string(),
  validation: ValidationReport,
  optimization: OptimizationSummary.optional(),
});
export type AssetUploadResult = z.infer<typeof AssetUploadResult>;

/**
 * An upload's progress (GET /v1/uploads/{uploadId}, and the 202 answer of an upload sent with
 * `Prefer: respond-async`): received and 'queued' for a worker (`position` 1 is next), then
 * 'processing' (validation, optimisation), 'storing', and 'done' with the 201 answer's body in
 * `result`, or 'failed' with the error answer's `status`, `error` and `validation`.
 */
export const UPLOAD_STATES = ['queued', 'processing', 'storing', 'done', 'failed'] as const;
export const UploadStatus = z.object({
  uploadId: z.string(),
  fileName: z.string(),
  state: z.enum(UPLOAD_STATES),
  position: z.number().int().positive().optional(),
  status: z.number().int().optional(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  validation: ValidationReport.optional(),
});
export type UploadStatus = z.infer<typeof UploadStatus>;
