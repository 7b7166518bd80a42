import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { startServer, type TestServer } from '../helpers.ts';

/**
 * A scene's hostOrigins have one representation (src/protocol/host-origins.ts): no origins is the
 * open default, stored as no field, whether it was sent as null or as [] (issue 33, item 6).
 */
describe('hostOrigins: [] is the open default, as null', () => {
  let server: TestServer;
  let owner: string;

  beforeAll(async () => {
    server = await startServer();
    owner = (await signTestToken(server.dataDir, { firstName: 'Ada', lastName: 'Lovelace' })).token;
  });
  afterAll(() => server?.close());

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${owner}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('PATCH with [] removes the list: answered, served and stored without hostOrigins', async () => {
    const created = await call('POST', '/v1/scenes', { name: 'Host pages' });
    expect(created.status).toBe(201);
    const path = `/v1/scenes/${created.body._id as string}`;
    expect((await call('PATCH', path, { hostOrigins: ['https://shop.example'] })).body.hostOrigins).toEqual(['https://shop.example']);

    const emptied = await call('PATCH', path, { hostOrigins: [] });
    expect(emptied.status).toBe(200);
    expect(emptied.body).not.toHaveProperty('hostOrigins');
    expect((await call('GET', path)).body).not.toHaveProperty('hostOrigins');
    expect((await server.store.getScene(created.body._id as string))!).not.toHaveProperty('hostOrigins');
  });

  it('a scene stored with [] before is served without it, and loses it on its next change', async () => {
    const created = await call('POST', '/v1/scenes', { name: 'Stored empty' });
    const id = created.body._id as string;
    await server.store.updateScene(id, (scene) => ({ ...scene, hostOrigins: [] }));
    expect((await server.store.getScene(id))!.hostOrigins).toEqual([]);

    expect((await call('GET', `/v1/scenes/${id}`)).body).not.toHaveProperty('hostOrigins');
    const renamed = await call('PATCH', `/v1/scenes/${id}`, { name: 'Renamed' });
    expect(renamed.body).toMatchObject({ name: 'Renamed' });
    expect(renamed.body).not.toHaveProperty('hostOrigins');
    expect((await server.store.getScene(id))!).not.toHaveProperty('hostOrigins');
  });
});
