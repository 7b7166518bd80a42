import type { FastifyInstance } from 'fastify';
import { derivativeAccess } from '../auth/derivative-urls.ts';
import { assertCanReadModel } from '../auth/permissions.ts';
import type { ServerConfig } from '../config.ts';
import type { Store } from '../store.ts';
import { HttpError, checkId } from './http.ts';

/**
 * Models (DESIGN.md 4.4): `GET /v1/models/{id}` -> Model. Uploads (`POST /v1/models`) live in
 * uploads.ts; the mutation log in mutations.ts.
 */
export default async function modelRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store }): Promise<void> {
  const { store } = opts;
  const access = derivativeAccess(store, opts.config.dataDir);

  app.get<{ Params: { id: string } }>('/v1/models/:id', async (request, reply) => {
    const { id } = request.params;
    checkId('model', id);
    const model = await store.getModel(id);
    if (!model) throw new HttpError(404, `Model '${id}' not found`);
    const scenes = await store.scenesWithModel(id);
    assertCanReadModel(request, id, scenes);
    reply.header('cache-control', scenes.some((s) => s.public === false) ? 'private, no-cache' : 'no-cache');
    // A model only private scenes list comes with its container's signed query (derivative-urls.ts).
    return access.modelForReader(model);
  });
}
