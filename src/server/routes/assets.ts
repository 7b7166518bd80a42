import { createReadStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { ASSET_PAGE_DEFAULT, ASSET_PAGE_MAX, AssetDoc, MAX_THUMBNAIL_BYTES, THUMBNAIL_TYPES, type AssetList, type AssetListItem, type AssetUploadResult } from '../../protocol/upload.ts';
import type { ServerConfig } from '../config.ts';
import { isValidId, newId, type Store } from '../store.ts';
import { AuthError, requireUser } from '../auth/permissions.ts';
import { UploadHttpError, answerUpload, receiveUpload, setUpUploadScope, type UploadService } from './uploads.ts';
import { declaredLength } from '../request-body.ts';

/**
 * The asset CDN (viewer specification section 7): reusable models for instanced asset groups.
 *
 * - `GET {assetCdn}/assets/{assetId}/model.3dxa`: the asset's container (the model container
 *   format, DESIGN.md 4.1), immutable under its id: ETag, `Cache-Control: immutable`, 304.
 *   Mounted at the path of ASSET_CDN_URL when that is a path (default /cdn); when it is another
 *   host, that host serves the files (copied from DATA_DIR/assets) and this server still answers
 *   under /cdn.
 * - `GET /v1/assets/{assetId}`: the asset's document.
 * - `GET /v1/assets[?limit=N&cursor=C]`: the signed-in user's assets, newest first, a page at a
 *   time (AssetList: each with its URL and thumbnail URL, and the cursor of the next page).
 * - `PUT /v1/assets/{assetId}/thumbnail`: the asset's picture for lists, PNG or WebP of at most
 *   MAX_THUMBNAIL_BYTES, by its owner only; `GET` serves it (ETag, revalidated). The asset
 *   library renders it in the browser once, after upload (src/viewer/asset-thumbnail.ts).
 * - `POST /v1/assets`: upload (signed-in users; the same forms as POST /v1/models, with an optional
 *   `name` field): validated, optimised, written as `DATA_DIR/assets/{assetId}/model.3dxa` with
 *   `asset.json` beside it. 201 with the document, its URL and the validator's report.
 */

export const ASSET_FILE_NAME = 'model.3dxa';
export const ASSET_GENERATOR = 'parametricos asset upload';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Where the asset CDN routes live on this server: the path of ASSET_CDN_URL, or /cdn. */
export function assetCdnPrefix(config: ServerConfig): string {
  const cdn = config.endpoints.assetCdn;
  return cdn.startsWith('/') ? cdn.replace(/\/+$/, '') : '/cdn';
}

/** The public URL of an asset's container. */
export function assetUrl(config: ServerConfig, assetId: string): string {
  return `${config.endpoints.assetCdn.replace(/\/+$/, '')}/assets/${assetId}/${ASSET_FILE_NAME}`;
}

function assetDir(config: ServerConfig, assetId: string): string {
  if (!isValidId(assetId)) throw new UploadHttpError(400, `Invalid asset id '${assetId}': use 1-64 characters of A-Z a-z 0-9 _ -`);
  return join(config.dataDir, 'assets', assetId);
}

async function writeAtomic(file: string, data: Uint8Array | string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Stores an asset container and its document (container first: a document always has its file). */
export async function writeAsset(config: ServerConfig, doc: AssetDoc, container: Uint8Array): Promise<AssetDoc> {
  const checked = AssetDoc.parse(doc);
  const dir = assetDir(config, checked._id);
  await mkdir(dir, { recursive: true });
  await writeAtomic(join(dir, ASSET_FILE_NAME), container);
  await writeAtomic(join(dir, 'asset.json'), `${JSON.stringify(checked, null, 2)}\n`);
  return checked;
}

/** Every stored asset's document (a folder scan: fine for thousands; an index would serve more). */
export async function listAssets(config: ServerConfig): Promise<AssetDoc[]> {
  const root = join(config.dataDir, 'assets');
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const docs = await Promise.all(names.filter(isValidId).map((name) => readAsset(config, name).catch(() => undefined)));
  return docs.filter((d): d is AssetDoc => d !== undefined);
}

export async function readAsset(config: ServerConfig, assetId: string): Promise<AssetDoc | undefined> {
  let text: string;
  try {
    text = await readFile(join(assetDir(config, assetId), 'asset.json'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return AssetDoc.parse(JSON.parse(text));
}

const THUMBNAIL_FILES: Record<(typeof THUMBNAIL_TYPES)[number], string> = { 'image/png': 'thumbnail.png', 'image/webp': 'thumbnail.webp' };

/** What the first bytes say the picture is: PNG's signature, or RIFF....WEBP. */
function sniffImage(bytes: Uint8Array): (typeof THUMBNAIL_TYPES)[number] | undefined {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'image/png';
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** Reads a request body up to `limit` bytes; 413 beyond. */
async function readBody(stream: Readable, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      stream.resume();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

const ListQuery = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int({ error: 'limit must be a whole number' })
    .min(1, { error: 'limit must be at least 1' })
    .max(ASSET_PAGE_MAX, { error: `limit must be at most ${ASSET_PAGE_MAX}` })
    .default(ASSET_PAGE_DEFAULT),
  cursor: z.string().max(300).optional(),
});

/** A page's cursor: the sort key (createdAt, id) of the page's last asset, opaque to clients. */
function encodeCursor(doc: AssetDoc): string {
  return Buffer.from(JSON.stringify([doc.createdAt, doc._id])).toString('base64url');
}
function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') return [value[0], value[1]];
  } catch {
    // answered below
  }
  throw new UploadHttpError(400, 'cursor is not one this server gave: pass the nextCursor of the previous page');
}
/** Newest first; equal times by id, descending. Negative when a comes first. */
function byNewest(a: { createdAt: string; _id: string }, b: { createdAt: string; _id: string }): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a._id < b._id ? 1 : a._id > b._id ? -1 : 0;
}

/** Sends a container file with the derivative CDN's caching: ETag from size and mtime, immutable, 304. */
export async function sendContainerFile(request: FastifyRequest, reply: FastifyReply, file: string, missing: string): Promise<FastifyReply> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new UploadHttpError(404, missing);
    throw error;
  }
  if (!info.isFile()) throw new UploadHttpError(404, missing);
  const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  // Public and immutable: any page may read it, wherever ASSET_CDN_URL puts it.
  reply.header('etag', etag).header('cache-control', IMMUTABLE).header('last-modified', info.mtime.toUTCString()).header('access-control-allow-origin', '*');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    return reply.code(304).send();
  }
  reply.type('application/octet-stream').header('content-length', info.size);
  return reply.send(createReadStream(file));
}

export default async function assets(app: FastifyInstance, opts: { config: ServerConfig; store: Store; uploads: UploadService }): Promise<void> {
  const { config } = opts;
  const limit = config.maxAssetBytes;
  await setUpUploadScope(app, opts.uploads);
  const prefix = assetCdnPrefix(config);

  app.get<{ Params: { assetId: string } }>(`${prefix}/assets/:assetId/${ASSET_FILE_NAME}`, async (request, reply) => {
    const { assetId } = request.params;
    return sendContainerFile(request, reply, join(assetDir(config, assetId), ASSET_FILE_NAME), `No asset '${assetId}'`);
  });

  const thumbnailUrl = (doc: AssetDoc) => (doc.thumbnail ? `/v1/assets/${doc._id}/thumbnail?v=${encodeURIComponent(doc.thumbnail.updatedAt)}` : null);
  const listItem = (doc: AssetDoc): AssetListItem => ({ ...doc, url: assetUrl(config, doc._id), thumbnailUrl: thumbnailUrl(doc) });

  app.get('/v1/assets', async (request, reply) => {
    const user = requireUser(request);
    const query = ListQuery.safeParse(request.query ?? {});
    if (!query.success) throw new UploadHttpError(400, query.error.issues.map((i) => i.message).join('; '));
    const { limit, cursor } = query.data;
    const mine = (await listAssets(config)).filter((doc) => doc.ownerId === user.id).sort(byNewest);
    let start = 0;
    if (cursor !== undefined) {
      const [createdAt, _id] = decodeCursor(cursor);
      // The first asset after the cursor's key (the cursor's asset may have been removed since).
      start = mine.findIndex((doc) => byNewest({ createdAt, _id }, doc) < 0);
      if (start < 0) start = mine.length;
    }
    const page = mine.slice(start, start + limit);
    const more = start + limit < mine.length;
    const body: AssetList = { assets: page.map(listItem), nextCursor: more ? encodeCursor(page[page.length - 1]!) : null };
    return reply.header('cache-control', 'no-store').send(body);
  });

  app.get<{ Params: { assetId: string } }>('/v1/assets/:assetId/thumbnail', async (request, reply) => {
    const { assetId } = request.params;
    const doc = await readAsset(config, assetId);
    if (!doc) throw new UploadHttpError(404, `Asset '${assetId}' not found`);
    if (!doc.thumbnail) throw new UploadHttpError(404, `Asset '${assetId}' has no thumbnail yet`);
    const file = join(assetDir(config, assetId), THUMBNAIL_FILES[doc.thumbnail.type]);
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UploadHttpError(404, `Asset '${assetId}' has no thumbnail yet`);
      throw error;
    }
    const etag = `"${bytes.length.toString(16)}-${Buffer.from(doc.thumbnail.updatedAt).toString('hex').slice(-24)}"`;
    reply.header('etag', etag).header('cache-control', 'public, max-age=0, must-revalidate');
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send();
    return reply.type(doc.thumbnail.type).send(bytes);
  });

  // The thumbnail upload reads its own body (any content type is taken here and checked below).
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.put<{ Params: { assetId: string } }>('/v1/assets/:assetId/thumbnail', async (request, reply) => {
      const user = requireUser(request);
      const { assetId } = request.params;
      const doc = await readAsset(config, assetId);
      if (!doc) throw new UploadHttpError(404, `Asset '${assetId}' not found`);
      if (doc.ownerId !== user.id) throw new AuthError(403, `You may not change asset '${assetId}': only its owner may set its thumbnail`);
      const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!(THUMBNAIL_TYPES as readonly string[]).includes(type)) {
        (request.body as Readable | undefined)?.resume();
        throw new UploadHttpError(415, `A thumbnail must be ${THUMBNAIL_TYPES.join(' or ')}, not '${type || 'no content type'}'`);
      }
      const tooLarge = () => new UploadHttpError(413, `A thumbnail must be at most ${MAX_THUMBNAIL_BYTES} bytes`);
      if ((declaredLength(request) ?? 0) > MAX_THUMBNAIL_BYTES) {
        reply.header('connection', 'close');
        throw tooLarge();
      }
      const bytes = request.body ? await readBody(request.body as Readable, MAX_THUMBNAIL_BYTES, tooLarge) : new Uint8Array();
      const sniffed = sniffImage(bytes);
      if (sniffed !== type) throw new UploadHttpError(400, `The thumbnail is not a ${type === 'image/png' ? 'PNG' : 'WebP'} picture${sniffed ? ` (it is ${sniffed})` : ''}`);
      const dir = assetDir(config, assetId);
      const file = THUMBNAIL_FILES[type];
      await writeAtomic(join(dir, file), bytes);
      const updated = AssetDoc.parse({ ...doc, thumbnail: { type, byteLength: bytes.length, updatedAt: new Date().toISOString() } });
      await writeAtomic(join(dir, 'asset.json'), `${JSON.stringify(updated, null, 2)}\n`);
      // A picture of the other type is stale now.
      for (const other of THUMBNAIL_TYPES) if (other !== type) await rm(join(dir, THUMBNAIL_FILES[other]), { force: true });
      return reply.send(listItem(updated));
    });
  });

  app.get<{ Params: { assetId: string } }>('/v1/assets/:assetId', async (request, reply) => {
    const { assetId } = request.params;
    const doc = await readAsset(config, assetId);
    if (!doc) throw new UploadHttpError(404, `Asset '${assetId}' not found`);
    reply.header('cache-control', 'no-cache');
    return { ...doc, url: assetUrl(config, doc._id) };
  });

  app.post('/v1/assets', { bodyLimit: limit, config: { upload: true } }, async (request, reply) => {
    const user = requireUser(request);
    const upload = await receiveUpload(request, opts.uploads);
    const assetId = newId();
    return answerUpload(opts.uploads, request, reply, upload, {
      options: { maxBytes: limit, optimize: true, levels: true, generator: ASSET_GENERATOR },
      store: async ({ container, validation, optimization }) => {
        const doc = await writeAsset(
          config,
          {
            _id: assetId,
            name: upload.fields.name?.trim() || upload.fileName.replace(/\.(glb|gltf)$/i, '') || upload.fileName,
            sourceFileName: upload.fileName,
            path: `assets/${assetId}/${ASSET_FILE_NAME}`,
            byteLength: container.byteLength,
            ownerId: user.id,
            createdAt: new Date().toISOString(),
          },
          container,
        );
        const result: AssetUploadResult = { ...doc, url: assetUrl(config, assetId), validation: validation!, optimization };
        return result;
      },
      created: (result) => ({ location: `/v1/assets/${assetId}`, body: result }),
    });
  });
}
