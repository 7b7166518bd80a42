import { createReadStream, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerConfig } from '../config.ts';
import { DERIVATIVE_FILE_NAME, isValidThumbnailKey, isValidVersionKey, type Store } from '../store.ts';
import { checkDerivativeQuery, derivativeAccess, refusal } from '../auth/derivative-urls.ts';
import { HttpError } from './http.ts';

/**
 * Files under DATA_DIR served as a CDN would: immutable under their keys, with ETag and 304.
 *   GET /cdn/derivatives/{versionKey}/model_file.binz   derivative containers (viewer spec section 7):
 *       a public scene's at the plain URL (IMMUTABLE); one only private scenes list only with the
 *       signed query of its scene document (?exp=&sig=, src/server/auth/derivative-urls.ts;
 *       `private, max-age` until it expires), else 403 with the reason and no file
 *   GET /cdn/thumbnails/{sceneId}/{hash}.{png|jpg|webp}  scene thumbnails (content-addressed)
 */

/** Containers never change under a version key, thumbnails never under their hash: a year. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

const THUMBNAIL_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

/** The file's stat, or a 404 with `missing` when there is no such file. */
async function fileInfo(file: string, missing: string): Promise<Stats> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new HttpError(404, missing);
    throw error;
  }
  if (!info.isFile()) throw new HttpError(404, missing);
  return info;
}

export async function sendFile(request: FastifyRequest, reply: FastifyReply, file: string, type: string, missing: string, cacheControl = IMMUTABLE): Promise<FastifyReply> {
  const info = await fileInfo(file, missing);
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
  const access = derivativeAccess(store, opts.config.dataDir);

  app.get<{ Params: { '*': string } }>('/cdn/derivatives/*', async (request, reply) => {
    const rest = request.params['*'];
    const suffix = `/${DERIVATIVE_FILE_NAME}`;
    const versionKey = rest.endsWith(suffix) ? rest.slice(0, -suffix.length) : '';
    if (!isValidVersionKey(versionKey)) {
      throw new HttpError(400, `Invalid derivative path '${rest}': expected {versionKey}/${DERIVATIVE_FILE_NAME}`);
    }
    const missing = `No model file for version '${versionKey}'`;
    const file = store.derivativePath(versionKey);
    // A signed URL (the derivativeQuery of a private scene's model): served to whoever has it,
    // cached by the browser alone until it expires.
    const nowS = Date.now() / 1000;
    const signed = checkDerivativeQuery(await access.key(), versionKey, request.query, nowS);
    if (signed.state === 'valid') return sendFile(request, reply, file, 'application/octet-stream', missing, `private, max-age=${Math.max(0, Math.floor(signed.exp - nowS))}`);
    // A public scene's container: its plain URL, cached by anyone for a year. An answer remembered
    // as private is asked again before a refusal (a scene made public a moment ago).
    let visibility = await access.visibility(versionKey);
    if (visibility !== 'public') visibility = await access.visibility(versionKey, { fresh: true });
    if (visibility === 'public') return sendFile(request, reply, file, 'application/octet-stream', missing);
    // Nothing about a refusal may sit in a cache: the scene may become public.
    reply.header('cache-control', 'no-store');
    if (visibility === 'unlisted') {
      // No scene lists it (an old version, a scene's upload not finished): nobody gets a signed URL for it.
      await fileInfo(file, missing);
      throw new HttpError(403, `No scene lists model file '${versionKey}': it is served only at the signed URL a scene document gives`);
    }
    throw new HttpError(403, refusal(signed));
  });

  app.get<{ Params: { '*': string } }>('/cdn/thumbnails/*', async (request, reply) => {
    const key = request.params['*'];
    if (!isValidThumbnailKey(key)) throw new HttpError(400, `Invalid thumbnail path '${key}': expected {sceneId}/{hash}.png|jpg|webp`);
    const ext = key.slice(key.lastIndexOf('.') + 1);
    return sendFile(request, reply, store.thumbnailPath(key), THUMBNAIL_TYPES[ext], `No thumbnail '${key}'`);
  });
}
