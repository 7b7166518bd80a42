import type { ModelRecord } from '../engine/world';
import { MAX_TEXTURE_BYTES, TEXTURE_CONTENT_TYPES, type UploadTextureResponse } from '../protocol/textures';
import { decodeImage, registerUploadedTexture, type DecodeImage } from '../scene/uploaded-textures';
import { path, type ServiceClient } from '../service/client';

/** Sends an upload's body; answers the status and the body's text. */
export type SendUpload = (
  url: string,
  body: Blob,
  headers: Record<string, string>,
  onProgress?: (fraction: number) => void,
) => Promise<{ status: number; text: string }>;

export interface TextureUploadOptions {
  /** The model service's client: the upload's URL and the refusal's reason. */
  service: ServiceClient;
  getToken: () => Promise<string>;
  /** Sends the upload (default: XMLHttpRequest, for its upload progress). */
  sendUpload?: SendUpload;
  /** Decodes the image (default: createImageBitmap as glTF images are). */
  decodeImage?: DecodeImage;
}

/**
 * Uploads an image (PNG, JPEG or WebP, at most 16 MB) as a texture of the model
 * (POST /v1/models/{modelId}/textures) and registers it in the model's textures; resolves with its
 * textureId. Rejects with a sentence saying why (type, size, decoding, sign-in, the server).
 */
export async function uploadTexture(
  options: TextureUploadOptions,
  record: ModelRecord,
  modelId: string,
  file: Blob,
  onProgress?: (fraction: number) => void,
): Promise<string> {
  const type = file.type.toLowerCase();
  if (!(type in TEXTURE_CONTENT_TYPES)) throw new Error(`A texture must be a PNG, JPEG or WebP image, not ${type ? `'${type}'` : 'a file of unknown type'}.`);
  if (file.size > MAX_TEXTURE_BYTES)
    throw new Error(`The image is ${(file.size / 1048576).toFixed(1)} MB; a texture may be at most ${MAX_TEXTURE_BYTES / 1048576} MB.`);
  // Decoded before it is sent: an image this browser cannot show is not uploaded.
  let image: Awaited<ReturnType<DecodeImage>>;
  try {
    image = await (options.decodeImage ?? decodeImage)(file);
  } catch (error) {
    throw new Error(`The image could not be decoded (${error instanceof Error ? error.message : String(error)}); it was not uploaded.`);
  }
  let token: string;
  try {
    token = await options.getToken();
  } catch (error) {
    throw new Error(`Sign in to upload textures (${error instanceof Error ? error.message : String(error)}).`);
  }
  const textures = path`/v1/models/${modelId}/textures`;
  const url = options.service.url(textures);
  const answer = await (options.sendUpload ?? xhrUpload)(url, file, { 'content-type': type, authorization: `Bearer ${token}` }, onProgress);
  let body: unknown;
  try {
    body = answer.text ? JSON.parse(answer.text) : undefined;
  } catch {
    body = undefined;
  }
  if (answer.status !== 201 && answer.status !== 200) {
    throw new Error(`The texture upload was refused: ${options.service.errorOf('POST', textures, answer.status, body).reason ?? `HTTP ${answer.status}`}.`);
  }
  const { textureId } = (body ?? {}) as Partial<UploadTextureResponse>;
  if (typeof textureId !== 'string' || !textureId.startsWith('u-')) throw new Error(`The texture upload answered without a textureId (${url}).`);
  registerUploadedTexture(record, textureId, image);
  return textureId;
}

/** XMLHttpRequest, for its upload progress (fetch has none). A network failure rejects. */
const xhrUpload: SendUpload = (url, body, headers, onProgress) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => reject(new Error(`The texture upload failed: the model service (${url}) could not be reached.`));
    xhr.onabort = () => reject(new Error('The texture upload was cancelled.'));
    xhr.send(body);
  });
