/**
 * Uploaded textures (issue 11, editor "texture upload"): images a person uploads for a model's
 * texture maps, stored content-addressed by the model service.
 *
 *   POST {modelService}/v1/models/{modelId}/textures              raw PNG, JPEG or WebP body
 *        -> 201 { textureId: 'u-' + 24 hex of its SHA-256, url }   (owner or editor of a scene listing the model)
 *   GET  {modelService}/v1/models/{modelId}/textures/{textureId}  the image (immutable, ETag)
 *
 * A texture map mutation names such a texture by its textureId like one of the model's own
 * textures; a viewer loads it from its URL before it applies the log (src/scene/uploaded-textures.ts).
 */

/** Largest texture image accepted (413 above). */
export const MAX_TEXTURE_BYTES = 16 * 1024 * 1024;

/** The id prefix of uploaded textures (the model's own textures have numeric ids or uuids). */
export const UPLOADED_TEXTURE_PREFIX = 'u-';

/** Content types accepted, with the file extension a texture of that type is stored under. */
export const TEXTURE_CONTENT_TYPES = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' } as const;
export type TextureContentType = keyof typeof TEXTURE_CONTENT_TYPES;
export type TextureExtension = (typeof TEXTURE_CONTENT_TYPES)[TextureContentType];

const UPLOADED_TEXTURE_ID = /^u-[0-9a-f]{24}$/;

/** True for an uploaded texture's id ('u-' and 24 lowercase hex digits). */
export function isUploadedTextureId(id: string): boolean {
  return UPLOADED_TEXTURE_ID.test(id);
}

/** The answer of the upload. */
export interface UploadTextureResponse {
  textureId: string;
  /** Where the image is served: `/v1/models/{modelId}/textures/{textureId}` on the model service. */
  url: string;
}

/** The path of an uploaded texture below the model service. */
export function texturePath(modelId: string, textureId: string): string {
  return `/v1/models/${encodeURIComponent(modelId)}/textures/${encodeURIComponent(textureId)}`;
}

/** The absolute or root-relative URL of an uploaded texture. */
export function textureUrl(modelService: string, modelId: string, textureId: string): string {
  return `${modelService.replace(/\/+$/, '')}${texturePath(modelId, textureId)}`;
}

/**
 * The maps that hold colours (sRGB, as glTF's baseColor, emissive, sheenColor and specularColor
 * textures); every other map holds data and is sampled linearly.
 */
export const COLOR_TEXTURE_MAPS: ReadonlySet<string> = new Set(['map', 'emissiveMap', 'sheenColorMap', 'specularColorMap']);
