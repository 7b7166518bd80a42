import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_TEXTURE_BYTES, TEXTURE_CONTENT_TYPES, isUploadedTextureId, texturePath, type UploadTextureResponse } from '../../protocol/textures.ts';
import { assertCanReadModel, assertCanWriteModel, requireUser } from '../auth/permissions.ts';
import type { ServerConfig } from '../config.ts';
import type { Store } from '../store.ts';
import { IMMUTABLE, sendFile } from './cdn.ts';
import { HttpError, checkId } from './http.ts';
import { sniffImage } from './scenes.ts';
import type { UploadService } from './uploads.ts';
import { declaredLength } from '../request-body.ts';

/**
 * Uploaded textures of a model (issue 11, the editor's texture upload; src/protocol/textures.ts).
 *
 *   POST /v1/models/{id}/textures               raw image body (image/png | image/jpeg | image/webp, at most
 *        16 MB) -> 201 { textureId, url }      Owner or editor of a scene that lists the model. The bytes
 *        must be the type the Content-Type names (400 naming both). Content-addressed: the same image
 *        gives the same textureId, stored once.
 *   GET  /v1/models/{id}/textures/{textureId}  the image with its type, ETag, immutable for a year;
 *        whoever may read the model.
 */

/** Cache-Control of the textures of models that only private scenes list. */
const PRIVATE_IMMUTABLE = 'private, max-age=31536000, immutable';

const ACCEPTED = Object.keys(TEXTURE_CONTENT_TYPES).join(', ');

export default async function textureRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store; uploads: UploadService }): Promise<void> {
  const { store } = opts;
  const { quotas } = opts.uploads;

  async function scenesOf(modelId: string) {
    checkId('model', modelId);
    const scenes = await store.scenesWithModel(modelId);
    if (scenes.length === 0 && !(await store.getModel(modelId))) throw new HttpError(404, `Model '${modelId}' not found`);
    return scenes;
  }

  // Only images here: anything else is 415 naming what is accepted.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(Object.keys(TEXTURE_CONTENT_TYPES), { parseAs: 'buffer', bodyLimit: MAX_TEXTURE_BYTES }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', (request, _payload, done) =>
    done(new HttpError(415, `A texture must be sent as ${ACCEPTED}, not '${request.headers['content-type'] ?? ''}'`), undefined),
  );

  app.post<{ Params: { id: string } }>(
    '/v1/models/:id/textures',
    {
      bodyLimit: MAX_TEXTURE_BYTES,
      // Who may upload is known from the headers: refuse before reading up to 16 MB of body.
      preParsing: async (request: FastifyRequest<{ Params: { id: string } }>) => {
        const user = requireUser(request);
        assertCanWriteModel(request, request.params.id, await scenesOf(request.params.id));
        // The uploader's quotas (upload/quotas.ts): bytes this hour, and room in their store.
        quotas.checkHour(user.id, declaredLength(request) ?? 0);
        await quotas.checkStored(user.id, 1);
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (!Buffer.isBuffer(request.body) || request.body.length === 0) {
        throw new HttpError(400, `The request needs an image body (${ACCEPTED})`);
      }
      const bytes = new Uint8Array(request.body.buffer, request.body.byteOffset, request.body.byteLength);
      const user = requireUser(request);
      quotas.count(user.id, bytes.byteLength);
      await quotas.checkStored(user.id, bytes.byteLength, { fresh: true });
      const declaredType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      const declared = TEXTURE_CONTENT_TYPES[declaredType as keyof typeof TEXTURE_CONTENT_TYPES];
      const actual = sniffImage(bytes);
      if (!actual) throw new HttpError(400, `The texture is not a PNG, JPEG or WebP image (sent as ${declaredType})`);
      if (actual !== declared) {
        const actualType = Object.entries(TEXTURE_CONTENT_TYPES).find(([, ext]) => ext === actual)![0];
        throw new HttpError(400, `The texture's bytes are ${actualType} but it was sent as ${declaredType}`);
      }
      const textureId = await store.writeTexture(id, bytes, actual);
      const url = texturePath(id, textureId);
      const response: UploadTextureResponse = { textureId, url };
      reply.code(201).header('location', url).header('cache-control', 'no-store');
      return response;
    },
  );

  app.get<{ Params: { id: string; textureId: string } }>('/v1/models/:id/textures/:textureId', async (request, reply) => {
    const { id, textureId } = request.params;
    if (!isUploadedTextureId(textureId)) throw new HttpError(400, `Invalid texture id '${textureId}': expected u- and 24 hex digits`);
    const scenes = await scenesOf(id);
    assertCanReadModel(request, id, scenes);
    // A texture of a model only private scenes list must not sit in shared caches.
    const shared = scenes.length === 0 || scenes.some((scene) => scene.public !== false);
    const found = await store.findTexture(id, textureId);
    if (!found) throw new HttpError(404, `Model '${id}' has no uploaded texture '${textureId}'`);
    return sendFile(request, reply, found.file, found.contentType, `Model '${id}' has no uploaded texture '${textureId}'`, shared ? IMMUTABLE : PRIVATE_IMMUTABLE);
  });
}
