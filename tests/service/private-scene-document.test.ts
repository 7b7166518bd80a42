import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientConfig } from '../../src/protocol/config.ts';
import { fetchScene } from '../../src/scene/load-scene.ts';
import { ServiceError } from '../../src/service/client.ts';
import { signTestToken } from '../../src/server/auth/tokens.ts';
import { startServer, type TestServer } from './helpers.ts';

/**
 * The viewer's scene document request against the real model service (issue 34, item 5): the
 * page's token goes with it through the service client, so a private scene opens for its owner
 * (and stays closed to others), and a token the service refuses does not keep a public scene shut.
 */

let server: TestServer;
let owner: string;
let stranger: string;
let config: ClientConfig;

async function scene(name: string, isPublic: boolean): Promise<string> {
  const res = await fetch(`${server.url}/v1/scenes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, public: isPublic }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { _id: string })._id;
}

beforeAll(async () => {
  server = await startServer();
  owner = (await signTestToken(server.dataDir, { firstName: 'Ada', lastName: 'Lovelace' })).token;
  stranger = (await signTestToken(server.dataDir, { firstName: 'Eve', lastName: 'Other' })).token;
  const served = ClientConfig.parse(await (await fetch(`${server.url}/v1/config`)).json());
  // Node's fetch needs an absolute address; with a trailing slash, which the client trims.
  config = { ...served, endpoints: { ...served.endpoints, modelService: `${server.url}/` } };
});
afterAll(() => server?.close());

describe("the scene document with the page's token", () => {
  it('opens a private scene for its owner, not without a token nor for another person', async () => {
    const id = await scene('Private', false);
    expect((await fetchScene(config, id, undefined, () => owner)).name).toBe('Private');
    const anonymous = await fetchScene(config, id, undefined, () => null).catch((error: unknown) => error);
    expect(anonymous).toBeInstanceOf(ServiceError);
    expect([401, 403, 404]).toContain((anonymous as ServiceError).status);
    const refused = await fetchScene(config, id, undefined, () => stranger).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect([403, 404]).toContain((refused as ServiceError).status);
  });

  it('opens a public scene with or without a token, and with one the service refuses', async () => {
    const id = await scene('Public', true);
    expect((await fetchScene(config, id, undefined, () => null)).name).toBe('Public');
    expect((await fetchScene(config, id, undefined, () => stranger)).name).toBe('Public');
    expect((await fetchScene(config, id, undefined, () => 'not.a.token')).name).toBe('Public');
  });
});
