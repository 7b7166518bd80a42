import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { INSTANCE_SET_MIME } from '../../protocol/instances.ts';
import { ApplyInstanceChangesRequest, type ApplyInstanceChangesResponse } from '../../protocol/instance-changes.ts';
import { assertCanReadScene, assertCanWriteScene, requireUser } from '../auth/permissions.ts';
import type { ServerConfig } from '../config.ts';
import type { InstanceService } from '../instances.ts';
import type { Store } from '../store.ts';
import { HttpError, checkId, parseBody } from './http.ts';

/**
 * The instances of instanced asset groups (src/protocol/instances.ts, src/server/instances.ts):
 *
 *   GET  /v1/scenes/{id}/groups/{groupId}/instances  -> the binary instance set; ETag by revision,
 *        304 on If-None-Match; whoever may read the scene. Gzipped for a client that accepts it
 *        (sets of SET_GZIP_MIN_BYTES or more): a set of floats halves (52 -> 25.5 MB for the demo
 *        city of 1,000,000), compressed off the event loop once per revision the service keeps in
 *        memory (a set its cache let go is compressed again when next read).
 *   POST /v1/scenes/{id}/instance-changes { changes } -> { sceneId, applied, skipped, groups }
 *        Owner or editor. Validated whole (400 naming the field), checked against the current
 *        sets in order (404 'No instance found with id N', 409 for an id that exists), applied per
 *        group in one transaction each; idempotent by change uuid.
 */

/** Sets smaller than this are sent as they are: compressing them saves nothing worth a round of zlib. */
export const SET_GZIP_MIN_BYTES = 16 * 1024;

const gzip = promisify(gzipCallback);
/**
 * The gzipped bytes of an encoded set, computed once: the service hands out the same encoded array
 * until the group's next change, so the entry lives exactly as long as that revision is current.
 * Level 1: the demo city's 52 MB compress in under a second (level 6 takes 3.5x as long for a
 * bigger result), in zlib's thread pool.
 */
const gzipped = new WeakMap<Uint8Array, Promise<Buffer>>();
function gzippedSet(bytes: Uint8Array): Promise<Buffer> {
  let done = gzipped.get(bytes);
  if (!done) {
    done = gzip(bytes, { level: 1 });
    gzipped.set(bytes, done);
    // A failure is not remembered: the next request tries again.
    done.catch(() => gzipped.delete(bytes));
  }
  return done;
}

/** Whether an Accept-Encoding header accepts gzip (by name or '*', with a q-value above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star: boolean | null = null;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const accepted = !q || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') star = accepted;
  }
  return star === true;
}

/** Room for MAX_INSTANCES_PER_REQUEST moved instances written out as JSON numbers. */
export const INSTANCE_CHANGES_BODY_LIMIT = 24 * 1024 * 1024;

export default async function instanceRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store; instances: InstanceService }): Promise<void> {
  const { store, instances } = opts;

  app.get<{ Params: { id: string; groupId: string } }>('/v1/scenes/:id/groups/:groupId/instances', async (request, reply) => {
    const { id, groupId } = request.params;
    checkId('scene', id);
    checkId('group', groupId);
    const scene = await store.getScene(id);
    if (!scene) throw new HttpError(404, `Scene '${id}' not found`);
    assertCanReadScene(request, scene);
    if (!(scene.viewerConfig.objects ?? []).some((o) => o.uuid === groupId && o.type === 'InstancedAssetGroup')) throw new HttpError(404, `Instanced group '${groupId}' not found in scene '${id}'`);
    const set = await instances.read(id, groupId);
    if (!set) throw new HttpError(404, `Instanced group '${groupId}' not found in scene '${id}'`);
    const compress = set.bytes.byteLength >= SET_GZIP_MIN_BYTES && acceptsGzip(request.headers['accept-encoding']);
    // One tag per representation (the gzipped bytes are not the set's bytes).
    const etag = `"${groupId}-r${set.revision}${compress ? '-gzip' : ''}"`;
    // Private: a scene that is not public must not land in a shared cache; revalidated each time.
    reply.header('cache-control', 'private, no-cache').header('etag', etag).header('vary', 'accept-encoding');
    if (
      request.headers['if-none-match']
        ?.split(',')
        .map((tag) => tag.trim())
        .includes(etag)
    ) {
      return reply.code(304).send();
    }
    reply.type(INSTANCE_SET_MIME);
    if (compress) {
      // Compressed before the header is set: a failure answers a plain 500, not one marked gzip.
      const body = await gzippedSet(set.bytes);
      return reply.header('content-encoding', 'gzip').send(body);
    }
    return reply.send(Buffer.from(set.bytes.buffer, set.bytes.byteOffset, set.bytes.byteLength));
  });

  app.post<{ Params: { id: string } }>('/v1/scenes/:id/instance-changes', { bodyLimit: INSTANCE_CHANGES_BODY_LIMIT }, async (request, reply) => {
    const user = requireUser(request);
    const { id } = request.params;
    checkId('scene', id);
    const scene = await store.getScene(id);
    if (!scene) throw new HttpError(404, `Scene '${id}' not found`);
    assertCanWriteScene(request, scene);
    const { changes } = parseBody(ApplyInstanceChangesRequest, request.body);
    // A group the scene lists, or one it removed whose set is kept (an editor's instance edits
    // saved after the group's removal still reach the set an undo would bring back).
    const groupIds = new Set((scene.viewerConfig.objects ?? []).filter((o) => o.type === 'InstancedAssetGroup').map((o) => o.uuid));
    for (const [index, change] of changes.entries()) {
      if (groupIds.has(change.groupId)) continue;
      if (await store.instanceGroupRevision(id, change.groupId)) {
        groupIds.add(change.groupId);
        continue;
      }
      throw new HttpError(404, `changes[${index}]: Instanced group '${change.groupId}' not found in scene '${id}'`);
    }
    const result = await instances.apply(id, changes, user.id);
    reply.header('cache-control', 'no-store');
    const response: ApplyInstanceChangesResponse = { sceneId: id, ...result };
    return response;
  });
}
