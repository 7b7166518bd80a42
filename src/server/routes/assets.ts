import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AssetDoc, type AssetUploadResult } from '../../protocol/upload.ts';
import type { ServerConfig } from '../config.ts';
import { isValidId, newId, type Store } from '../store.ts';
import { requireUser } from '../auth/permissions.ts';
import { UploadHttpError, answerUpload, receiveUpload, setUpUploadScope, type UploadService } from './uploads.ts';

/**
 * The asset CDN (viewer specification section 7): reusable models for instanced asset groups.
 *
 * - `GET {assetCdn}/assets/{assetId}/model.3dxa`: the asset's container (the model container
 *   format, DESIGN.md 4.1), immutable under its id: ETag, `Cache-Control: immutable`, 304.
 *   Mounted at the path of ASSET_CDN_URL when that is a path (default /cdn); when it is another
 *   host, that host serves the files (copied from DATA_DIR/assets) and this server still answers
 *   under /cdn.
 * - `GET /v1/assets/{assetId}`: the asset's document.
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
      options: { maxBytes: limit, optimize: true, generator: ASSET_GENERATOR },
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
