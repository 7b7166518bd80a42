import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.ts';
import { DERIVATIVE_FILE_NAME, isValidThumbnailKey, isValidVersionKey, type Store } from '../store.ts';
import { HttpError } from './http.ts';

/**
 * Files under DATA_DIR served as a CDN would: immutable under their keys, with ETag and 304.
 *   GET /cdn/derivatives/{versionKey}/model_file.binz   derivative containers (viewer spec section 7)
 *   GET /cdn/thumbnails/{sceneId}/{hash}.{png|jpg|webp}  scene thumbnails (content-addressed)
 */

/** Containers never change under a version key, thumbnails never under their hash: a year. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

const THUMBNAIL_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

export async function sendFile(request: FastifyRequest, reply: FastifyReply, file: string, type: string, missing: string, cacheControl = IMMUTABLE): Promise<FastifyReply> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new HttpError(404, missing);
    throw error;
  }
  if (!info.isFile()) throw new HttpError(404, missing);
  const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  reply.header('etag', etag).header('cache-control', cacheControl).header('last-modified', info.mtime.toUTCString());
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    return reply.code(304).send();
  }
  reply.type(type).header('content-length', info.size);
  return reply.send(createReadStream(file));
}

export default async function cdnRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store }): Promise<void> {
  const { store } = opts;

  app.get<{ Params: { '*': string } }>('/cdn/derivatives/*', async (request, reply) => {
    const rest = request.params['*'];
    const suffix = `/${DERIVATIVE_FILE_NAME}`;
    const versionKey = rest.endsWith(suffix) ? rest.slice(0, -suffix.length) : '';
    if (!isValidVersionKey(versionKey)) {
      throw new HttpError(400, `Invalid derivative path '${rest}': expected {versionKey}/${DERIVATIVE_FILE_NAME}`);
    }
    return sendFile(request, reply, store.derivativePath(versionKey), 'application/octet-stream', `No model file for version '${versionKey}'`);
  });

  app.get<{ Params: { '*': string } }>('/cdn/thumbnails/*', async (request, reply) => {
    const key = request.params['*'];
    if (!isValidThumbnailKey(key)) throw new HttpError(400, `Invalid thumbnail path '${key}': expected {sceneId}/{hash}.png|jpg|webp`);
    const ext = key.slice(key.lastIndexOf('.') + 1);
    return sendFile(request, reply, store.thumbnailPath(key), THUMBNAIL_TYPES[ext], `No thumbnail '${key}'`);
  });
}
