import type { FastifyInstance } from 'fastify';
import { ApplyObjectChangesRequest, applyObjectChanges, type ApplyObjectChangesResponse, type SceneObjectChange } from '../../protocol/scene-objects.ts';
import { AuthError, assertCanWriteScene, canWriteScene, requireUser } from '../auth/permissions.ts';
import type { ServerConfig } from '../config.ts';
import type { Store } from '../store.ts';
import { setFromMatrices, type InstanceService } from '../instances.ts';
import { HttpError, checkId, parseBody } from './http.ts';

/**
 * Scene objects (lights, cameras, groups; src/protocol/scene-objects.ts), next to the scene routes:
 *
 *   POST /v1/scenes/{id}/object-changes  { changes: [...] } -> { sceneId, applied, skipped }
 *     Owner or editor of the scene (canWriteScene, checked before and inside the transaction).
 *     The batch is validated whole (400 naming the field), then applied in order in one
 *     transaction; idempotent by change uuid (a repeated change is skipped). Each change puts or
 *     removes one object: one changed light never rewrites the others. An instanced asset
 *     group's inline matrices go to the instance store (routes/instances.ts), not the document.
 */
export default async function sceneObjectRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store; instances: InstanceService }): Promise<void> {
  const { store, instances } = opts;
  app.removeContentTypeParser('text/plain');

  app.post<{ Params: { id: string } }>('/v1/scenes/:id/object-changes', async (request, reply) => {
    const user = requireUser(request);
    const { id } = request.params;
    checkId('scene', id);
    const scene = await store.getScene(id);
    if (!scene) throw new HttpError(404, `Scene '${id}' not found`);
    assertCanWriteScene(request, scene);
    const parsed = parseBody(ApplyObjectChangesRequest, request.body).changes;
    // Instanced asset groups keep their instances in the instance store, never in the document:
    // inline matrices (the spec's shape) replace the group's set before the scene records the
    // change, and a new group without them starts empty. A change the scene has seen is skipped
    // here too, so a repeated request never puts back instances edited since.
    const seen = new Set(scene.viewerConfig.objectChanges ?? []);
    // The batch is checked against the scene as it is before any group's instances are replaced:
    // a batch the scene would refuse (too many objects) must not have changed instances already.
    const stripped = parsed.map((change) => (change.type === 'putObject' && change.object.matrices ? { ...change, object: { ...change.object, matrices: undefined } } : change));
    try {
      applyObjectChanges(scene.viewerConfig.objects ?? [], scene.viewerConfig.objectChanges ?? [], stripped);
    } catch (error) {
      throw new HttpError(400, (error as Error).message);
    }
    const changes: SceneObjectChange[] = [];
    for (const change of parsed) {
      if (change.type === 'putObject' && change.object.type === 'InstancedAssetGroup') {
        const { matrices, ...object } = change.object;
        if (!seen.has(change.uuid)) {
          if (matrices) {
            const set = setFromMatrices(matrices);
            const revision = await instances.replace(id, object.uuid, set);
            object.instanceCount = set.ids.length;
            object.instanceRevision = revision;
          } else if (!(await store.instanceGroupRevision(id, object.uuid))) {
            object.instanceRevision = await instances.replace(id, object.uuid, setFromMatrices([]));
            object.instanceCount = 0;
          }
        }
        changes.push({ ...change, object });
      } else {
        // A removed group's set stays (an undo puts the group back with its instances); the
        // instances of a group the scene does not list are not served.
        changes.push(change);
      }
    }
    let applied: string[] = [];
    let skipped: string[] = [];
    const updated = await store.updateScene(id, (current) => {
      if (!canWriteScene(user, current)) throw new AuthError(403, `You may not change scene '${current._id}': only its owner and editors may`);
      let result: ReturnType<typeof applyObjectChanges>;
      try {
        result = applyObjectChanges(current.viewerConfig.objects ?? [], current.viewerConfig.objectChanges ?? [], changes);
      } catch (error) {
        throw new HttpError(400, (error as Error).message);
      }
      applied = result.applied;
      skipped = result.skipped;
      if (applied.length === 0) return current;
      return { ...current, viewerConfig: { ...current.viewerConfig, objects: result.objects, objectChanges: result.seen } };
    });
    if (!updated) throw new HttpError(404, `Scene '${id}' not found`);
    reply.header('cache-control', 'no-store');
    const response: ApplyObjectChangesResponse = { sceneId: id, applied, skipped };
    return response;
  });
}
