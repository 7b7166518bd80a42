import type { FastifyInstance, FastifyRequest } from 'fastify';
import { normalizeHostOrigins } from '../../protocol/host-origins.ts';
import { CreateSceneRequest, SetThumbnailRequest, UpdateSceneRequest, UpdateViewerConfigRequest, type SceneSummary } from '../../protocol/scene-api.ts';
import type { SceneDoc } from '../../protocol/scene.ts';
import { derivativeAccess } from '../auth/derivative-urls.ts';
import { AuthError, assertCanReadScene, assertCanWriteScene, canReadScene, canWriteScene, isOwner, requireUser } from '../auth/permissions.ts';
import type { ServerConfig } from '../config.ts';
import { newId, type Store, type ThumbnailExtension } from '../store.ts';
import type { InstanceService } from '../instances.ts';
import { FLOATS_PER_INSTANCE } from '../../protocol/instances.ts';
import { type InstanceSet } from '../../protocol/instance-set.ts';
import { setFromMatrices } from '../instances.ts';
import type { Mutation } from '../../protocol/mutation.ts';
import { HttpError, checkId, parseBody } from './http.ts';

/**
 * Scenes (DESIGN.md 4.4): list, get, create, rename and share, viewerConfig, thumbnail.
 *
 *   GET   /v1/scenes                      { scenes: [{ id, name, modelCount, thumbnailUrl? }] } (readable ones)
 *   POST  /v1/scenes                      { name, public?, editors?, viewerConfig? } -> 201 Scene (owner: you)
 *   GET   /v1/scenes/{id}                 Scene
 *   PATCH /v1/scenes/{id}                 { name?, public?, editors?, hostOrigins?, commentsEnabled? } -> Scene (hostOrigins: the host API's allowlist, src/protocol/host-origins.ts; [] and null remove it)
 *   PATCH /v1/scenes/{id}/viewer-config   { scene?, postprocessing?, uiConfig? } -> Scene
 *   PUT   /v1/scenes/{id}/thumbnail       an image (png, jpeg, webp) or { thumbnailUrl } -> Scene
 *   POST  /v1/scenes/{id}/duplicate       -> 201 a copy owned by you ("duplicate to edit", issue 11)
 */

/** Largest thumbnail image accepted. */
export const MAX_THUMBNAIL_BYTES = 5 * 1024 * 1024;

const IMAGE_TYPES: Record<string, ThumbnailExtension> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** The image format the bytes really are (magic numbers), whatever the Content-Type claims. */
export function sniffImage(bytes: Uint8Array): ThumbnailExtension | undefined {
  const starts = (...values: number[]) => values.every((v, i) => bytes[i] === v);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpg';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'webp';
  return undefined;
}

/**
 * The scene with its hostOrigins in their one representation: a list without origins (stored
 * before [] was normalised away) is the open default, so it is not there at all.
 */
export function withHostOriginsNormalized(scene: SceneDoc): SceneDoc {
  if (scene.hostOrigins === undefined || scene.hostOrigins.length > 0) return scene;
  const { hostOrigins: _empty, ...rest } = scene;
  return rest;
}

export default async function sceneRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store; instances: InstanceService }): Promise<void> {
  const { store } = opts;
  // Every answer that gives a reader a private scene gives its models' signed derivative queries
  // (src/server/auth/derivative-urls.ts): its containers are not served without them.
  const access = derivativeAccess(store, opts.config.dataDir);
  const forReader = (scene: SceneDoc) => access.sceneForReader(scene);
  // Bodies here are JSON (or, for thumbnails, images): anything else is 415, not a string.
  app.removeContentTypeParser('text/plain');

  async function sceneFor(request: FastifyRequest<{ Params: { id: string } }>): Promise<SceneDoc> {
    const { id } = request.params;
    checkId('scene', id);
    const scene = await store.getScene(id);
    if (!scene) throw new HttpError(404, `Scene '${id}' not found`);
    return scene;
  }

  /**
   * Applies a change for the request's user: checked before (401/403 without touching the store)
   * and again on the scene as the transaction reads it, so a permission revoked meanwhile holds.
   */
  async function change(request: FastifyRequest<{ Params: { id: string } }>, edit: (scene: SceneDoc) => SceneDoc, ownerOnly = false): Promise<SceneDoc> {
    const scene = await sceneFor(request);
    const user = assertCanWriteScene(request, scene);
    const allowed = (current: SceneDoc) => (ownerOnly ? isOwner(user, current) : canWriteScene(user, current));
    const denied = (current: SceneDoc) =>
      new AuthError(403, ownerOnly ? `Only the owner of scene '${current._id}' may change who can read or edit it, which pages may drive it (hostOrigins), or whether it takes comments (commentsEnabled)` : `You may not change scene '${current._id}': only its owner and editors may`);
    if (!allowed(scene)) throw denied(scene);
    const updated = await store.updateScene(scene._id, (current) => {
      if (!allowed(current)) throw denied(current);
      return withHostOriginsNormalized(edit(current));
    });
    if (!updated) throw new HttpError(404, `Scene '${scene._id}' not found`);
    return updated;
  }

  app.get('/v1/scenes', async (request, reply) => {
    reply.header('cache-control', 'no-cache');
    const scenes = (await store.listScenes()).filter((scene) => canReadScene(request.user, scene));
    const list: SceneSummary[] = scenes.map((scene) => ({
      id: scene._id,
      name: scene.name,
      modelCount: scene.models.length,
      ...(scene.thumbnailUrl ? { thumbnailUrl: scene.thumbnailUrl } : {}),
    }));
    return { scenes: list };
  });

  app.post('/v1/scenes', async (request, reply) => {
    const user = requireUser(request);
    const body = parseBody(CreateSceneRequest, request.body);
    // Instanced groups' inline matrices go to the instance store, never into the document; every
    // group starts with a set (empty without matrices), as one made through object-changes does.
    const sets = new Map<string, Omit<InstanceSet, 'revision'>>();
    const viewerConfig = body.viewerConfig && {
      ...body.viewerConfig,
      ...(body.viewerConfig.objects
        ? {
            objects: body.viewerConfig.objects.map((object) => {
              if (object.type !== 'InstancedAssetGroup') return object;
              const { matrices, ...rest } = object;
              sets.set(object.uuid, setFromMatrices(matrices ?? []));
              return { ...rest, instanceCount: matrices?.length ?? 0 };
            }),
          }
        : {}),
    };
    let scene = await store.createScene({
      name: body.name,
      ownerId: user.id,
      ...(body.public !== undefined ? { public: body.public } : {}),
      ...(body.editors !== undefined ? { editors: [...new Set(body.editors)] } : {}),
      ...(viewerConfig !== undefined ? { viewerConfig } : {}),
    });
    for (const [groupId, set] of sets) await opts.instances.replace(scene._id, groupId, set);
    if (sets.size > 0) scene = (await store.getScene(scene._id)) ?? scene;
    reply.code(201).header('location', `/v1/scenes/${scene._id}`).header('cache-control', 'no-store');
    return forReader(scene);
  });

  app.get<{ Params: { id: string } }>('/v1/scenes/:id', async (request, reply) => {
    const scene = await sceneFor(request);
    assertCanReadScene(request, scene);
    // A private scene must not sit in a shared cache.
    reply.header('cache-control', scene.public === false ? 'private, no-cache' : 'no-cache');
    return forReader(withHostOriginsNormalized(scene));
  });

  app.patch<{ Params: { id: string } }>('/v1/scenes/:id', async (request, reply) => {
    requireUser(request);
    const body = parseBody(UpdateSceneRequest, request.body);
    const sharing = body.public !== undefined || body.editors !== undefined || body.hostOrigins !== undefined || body.commentsEnabled !== undefined;
    const updated = await change(
      request,
      (scene) => {
        const next = { ...scene };
        if (body.name !== undefined) next.name = body.name;
        if (body.public !== undefined) next.public = body.public;
        if (body.editors !== undefined) next.editors = [...new Set(body.editors)];
        if (body.hostOrigins !== undefined) {
          // [] is null: the open default, stored as no hostOrigins (src/protocol/host-origins.ts).
          const origins = normalizeHostOrigins(body.hostOrigins);
          if (origins) next.hostOrigins = origins;
          else delete next.hostOrigins;
        }
        if (body.commentsEnabled !== undefined) next.commentsEnabled = body.commentsEnabled;
        return next;
      },
      sharing,
    );
    // Who may fetch its containers unsigned changed: what this process remembers of it goes (other
    // processes sharing the database hold theirs for at most ACCESS_CACHE_MS).
    if (body.public !== undefined) access.forget();
    reply.header('cache-control', 'no-store');
    return forReader(updated);
  });

  app.patch<{ Params: { id: string } }>('/v1/scenes/:id/viewer-config', async (request, reply) => {
    requireUser(request);
    const body = parseBody(UpdateViewerConfigRequest, request.body);
    const updated = await change(request, (scene) => {
      const viewerConfig = { ...scene.viewerConfig };
      if (body.scene !== undefined) viewerConfig.scene = body.scene;
      if (body.postprocessing !== undefined) viewerConfig.postprocessing = body.postprocessing;
      if (body.uiConfig !== undefined) viewerConfig.uiConfig = body.uiConfig;
      return { ...scene, viewerConfig };
    });
    reply.header('cache-control', 'no-store');
    return forReader(updated);
  });

  /**
   * "Duplicate to edit": any signed-in reader gets a copy of the scene that they own. Each model is
   * copied as a new model document on the same derivative container (no bytes are copied), with
   * the original's saved edits copied into its own log (same uuids: logs are per model), so the
   * copy looks exactly like the original and its edits never reach the original's models.
   */
  app.post<{ Params: { id: string } }>('/v1/scenes/:id/duplicate', async (request, reply) => {
    const user = requireUser(request);
    const source = await sceneFor(request);
    assertCanReadScene(request, source);
    const copy = await store.createScene({
      name: `${source.name} (copy)`.slice(0, 200),
      ownerId: user.id,
      // A copy is as visible as its original: a private scene's copy stays private. The original's
      // host-page allowlist is its owner's decision and is not copied.
      public: source.public !== false,
      viewerConfig: source.viewerConfig,
      ...(source.thumbnailUrl ? { thumbnailUrl: source.thumbnailUrl } : {}),
    });
    for (const model of source.models) {
      const modelCopy = await store.putModel({ ...model, _id: newId() });
      let after = 0;
      for (;;) {
        const log = await store.listMutations(model._id, { after, limit: 1000 });
        if (!log || log.mutations.length === 0) break;
        const mutations = log.mutations.map(({ seq: _seq, savedAt: _savedAt, ...mutation }) => mutation as Mutation);
        await store.applyMutations(modelCopy._id, mutations, { userId: user.id, validated: true });
        after = log.mutations[log.mutations.length - 1].seq;
        if (after >= log.lastSeq) break;
      }
      await store.appendModel(copy._id, modelCopy);
    }
    // Instanced asset groups: the copy gets each group's current set (ids kept) as its base.
    for (const group of source.viewerConfig.objects ?? []) {
      if (group.type !== 'InstancedAssetGroup') continue;
      const set = await opts.instances.current(source._id, group.uuid);
      if (set) await opts.instances.replace(copy._id, group.uuid, { ...set.snapshot(), ids: set.ids.slice(0, set.count), matrices: set.matrices.slice(0, set.count * FLOATS_PER_INSTANCE) });
    }
    const stored = (await store.getScene(copy._id)) ?? copy;
    reply.code(201).header('location', `/v1/scenes/${stored._id}`).header('cache-control', 'no-store');
    return forReader(stored);
  });

  // Thumbnail images arrive as raw bytes.
  app.register(async (images) => {
    images.addContentTypeParser(Object.keys(IMAGE_TYPES), { parseAs: 'buffer', bodyLimit: MAX_THUMBNAIL_BYTES }, (_request, body, done) => done(null, body));

    images.put<{ Params: { id: string } }>('/v1/scenes/:id/thumbnail', { bodyLimit: MAX_THUMBNAIL_BYTES }, async (request, reply) => {
      const scene = await sceneFor(request);
      assertCanWriteScene(request, scene);
      let url: string | null;
      if (Buffer.isBuffer(request.body)) {
        const bytes = new Uint8Array(request.body);
        const declared = IMAGE_TYPES[(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()];
        const actual = sniffImage(bytes);
        if (!actual) throw new HttpError(400, 'The thumbnail is not a PNG, JPEG or WebP image');
        if (actual !== declared) throw new HttpError(400, `The thumbnail is a ${actual.toUpperCase()} image but was sent as ${request.headers['content-type']}`);
        const key = await store.writeThumbnail(scene._id, bytes, actual);
        url = `/cdn/thumbnails/${key}`;
      } else {
        url = parseBody(SetThumbnailRequest, request.body).thumbnailUrl;
      }
      const updated = await change(request, (current) => {
        const next = { ...current };
        if (url === null) delete next.thumbnailUrl;
        else next.thumbnailUrl = url;
        return next;
      });
      reply.header('cache-control', 'no-store');
      return forReader(updated);
    });
  });
}
