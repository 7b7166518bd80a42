import type { FastifyInstance } from 'fastify';
import { ApplyInstanceChangesRequest, INSTANCE_SET_MIME, type ApplyInstanceChangesResponse } from '../../protocol/instances.ts';
import { assertCanReadScene, assertCanWriteScene, requireUser } from '../auth/permissions.ts';
import type { ServerConfig } from '../config.ts';
import type { InstanceService } from '../instances.ts';
import type { Store } from '../store.ts';
import { HttpError, checkId, parseBody } from './http.ts';

/**
 * The instances of instanced asset groups (src/protocol/instances.ts, src/server/instances.ts):
 *
 *   GET  /v1/scenes/{id}/groups/{groupId}/instances  -> the binary instance set; ETag by revision,
 *        304 on If-None-Match; whoever may read the scene.
 *   POST /v1/scenes/{id}/instance-changes { changes } -> { sceneId, applied, skipped, groups }
 *        Owner or editor. Validated whole (400 naming the field), checked against the current
 *        sets in order (404 'No instance found with id N', 409 for an id that exists), applied per
 *        group in one transaction each; idempotent by change uuid.
 */

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
    const etag = `"${groupId}-r${set.revision}"`;
    // Private: a scene that is not public must not land in a shared cache; revalidated each time.
    reply.header('cache-control', 'private, no-cache').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(INSTANCE_SET_MIME).send(Buffer.from(set.bytes.buffer, set.bytes.byteOffset, set.bytes.byteLength));
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
