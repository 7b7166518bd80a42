import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApplyMutationsRequest, type ApplyMutationsResponse, type MutationLogResponse } from '../../protocol/mutation.ts';
import { assertCanReadModel, assertCanWriteModel, requireUser } from '../auth/permissions.ts';
import type { ServerConfig } from '../config.ts';
import type { Store } from '../store.ts';
import { HttpError, checkId, parseBody } from './http.ts';

/**
 * The mutation log of a model (editor specification section 7 "Save"; DESIGN.md 3 and 4.4).
 *
 *   POST /v1/models/{id}/apply-mutations  { mutations: [...] } -> { modelId, saved: [{ uuid, seq }] }
 *     Owner or editor of a scene that lists the model. The batch is validated whole (400 naming
 *     the field), then stored in one transaction, in order; idempotent by uuid.
 *   GET  /v1/models/{id}/mutations[?after=SEQ&limit=N] -> { modelId, mutations, lastSeq }
 *     Whoever may read the model; the log in order, each mutation with its seq and savedAt.
 */

/** A batch of MAX_MUTATIONS_PER_BATCH large material mutations fits; anything larger is 413. */
export const MUTATIONS_BODY_LIMIT = 8 * 1024 * 1024;
const MAX_PAGE = 100_000;

const LogQuery = z.object({
  after: z.coerce.number({ error: 'after must be a number' }).int({ error: 'after must be an integer' }).min(0, { error: 'after must not be negative' }).optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int({ error: 'limit must be an integer' })
    .min(1, { error: 'limit must be at least 1' })
    .max(MAX_PAGE, { error: `limit must be at most ${MAX_PAGE}` })
    .optional(),
});

export default async function mutationRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store }): Promise<void> {
  const { store } = opts;
  // Bodies here are JSON (or, for thumbnails, images): anything else is 415, not a string.
  app.removeContentTypeParser('text/plain');

  async function modelFor(request: FastifyRequest<{ Params: { id: string } }>) {
    const { id } = request.params;
    checkId('model', id);
    const scenes = await store.scenesWithModel(id);
    // A model that no scene lists may still exist (readable by anyone, changeable by no one).
    if (scenes.length === 0 && !(await store.getModel(id))) throw new HttpError(404, `Model '${id}' not found`);
    return { id, scenes };
  }

  app.post<{ Params: { id: string } }>('/v1/models/:id/apply-mutations', { bodyLimit: MUTATIONS_BODY_LIMIT }, async (request, reply) => {
    requireUser(request);
    const { id, scenes } = await modelFor(request);
    const user = assertCanWriteModel(request, id, scenes);
    const { mutations } = parseBody(ApplyMutationsRequest, request.body);
    const saved = await store.applyMutations(id, mutations, { userId: user.id, validated: true });
    if (!saved) throw new HttpError(404, `Model '${id}' not found`);
    reply.header('cache-control', 'no-store');
    const response: ApplyMutationsResponse = { modelId: id, saved };
    return response;
  });

  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>('/v1/models/:id/mutations', async (request, reply) => {
    const query = LogQuery.safeParse(request.query);
    if (!query.success) throw new HttpError(400, `Invalid query: ${query.error.issues.map((i) => i.message).join('; ')}`);
    const { id, scenes } = await modelFor(request);
    assertCanReadModel(request, id, scenes);
    const log = await store.listMutations(id, query.data);
    if (!log) throw new HttpError(404, `Model '${id}' not found`);
    reply.header('cache-control', 'no-cache');
    const response: MutationLogResponse = { modelId: id, mutations: log.mutations, lastSeq: log.lastSeq };
    return response;
  });
}
