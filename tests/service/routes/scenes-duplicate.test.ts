import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { importModel } from '../../../src/server/import.ts';
import { MODELS_DIR, startServer, type TestServer } from '../helpers.ts';

/** POST /v1/scenes/{id}/duplicate: "duplicate to edit" of an ownerless seeded scene. */
describe('duplicate to edit', () => {
  let server: TestServer;
  let sceneId: string;
  let modelId: string;
  let ada: string;
  let grace: string;

  beforeAll(async () => {
    server = await startServer();
    const imported = await importModel(server.store, { path: join(MODELS_DIR, 'BoxAnimated.glb') }, { name: 'Seeded' });
    sceneId = imported.scene._id;
    modelId = imported.model._id;
    await server.store.applyMutations(modelId, [{ key: 'k', uuid: 'seed-1', createdAt: 1, type: 'updateNode', nodeId: '0', properties: { name: 'Renamed' } }]);
    ada = (await signTestToken(server.dataDir, { firstName: 'Ada', lastName: 'Lovelace' })).token;
    grace = (await signTestToken(server.dataDir, { firstName: 'Grace', lastName: 'Hopper' })).token;
  });
  afterAll(() => server?.close());

  const post = (path: string, token: string | null, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  it('gives a signed-in person a copy they own, with its own models and the saved edits; others still get 403', async () => {
    expect((await post(`/v1/scenes/${sceneId}/duplicate`, null)).status).toBe(401);
    // Nobody may change the seeded scene's model.
    const edit = { mutations: [{ key: 'k', uuid: 'a-1', createdAt: 2, type: 'updateNode', nodeId: '0', properties: { visible: false } }] };
    expect((await post(`/v1/models/${modelId}/apply-mutations`, ada, edit)).status).toBe(403);

    const response = await post(`/v1/scenes/${sceneId}/duplicate`, ada);
    expect(response.status).toBe(201);
    const copy = (await response.json()) as { _id: string; name: string; ownerId: string; models: { _id: string; latestVersionKey: string }[] };
    expect(copy.name).toBe('Seeded (copy)');
    expect(copy.models).toHaveLength(1);
    expect(copy.models[0]._id).not.toBe(modelId);
    const original = await server.store.getModel(modelId);
    expect(copy.models[0].latestVersionKey).toBe(original!.latestVersionKey);
    const log = await server.store.listMutations(copy.models[0]._id);
    expect(log!.mutations.map((m) => m.uuid)).toEqual(['seed-1']);

    // The owner edits the copy; the original's log is untouched; another person gets 403.
    expect((await post(`/v1/models/${copy.models[0]._id}/apply-mutations`, ada, edit)).status).toBe(200);
    expect((await server.store.listMutations(modelId))!.mutations).toHaveLength(1);
    expect((await post(`/v1/models/${copy.models[0]._id}/apply-mutations`, grace, edit)).status).toBe(403);
  });

  it("a private scene's copy stays private: only its new owner reads it", async () => {
    const owner = (await signTestToken(server.dataDir, { firstName: 'Owen', lastName: 'Private' })).token;
    const adaId = JSON.parse(Buffer.from(ada.split('.')[1], 'base64url').toString()).sub as string;
    const created = await post('/v1/scenes', owner, { name: 'Secret', public: false, editors: [adaId] });
    expect(created.status).toBe(201);
    const secret = (await created.json()) as { _id: string };
    const response = await post(`/v1/scenes/${secret._id}/duplicate`, ada);
    expect(response.status).toBe(201);
    const copy = (await response.json()) as { _id: string; public?: boolean };
    expect(copy.public).toBe(false);
    expect((await fetch(`${server.url}/v1/scenes/${copy._id}`)).status).not.toBe(200);
    const listed = (await (await fetch(`${server.url}/v1/scenes`)).json()) as { scenes: { id: string }[] };
    expect(listed.scenes.map((s) => s.id)).not.toContain(copy._id);
    const asAda = await fetch(`${server.url}/v1/scenes/${copy._id}`, { headers: { authorization: `Bearer ${ada}` } });
    expect(asAda.status).toBe(200);
  });

  it('answers 404 for an unknown scene', async () => {
    expect((await post('/v1/scenes/nope/duplicate', ada)).status).toBe(404);
  });
});
