import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { FLOATS_PER_INSTANCE, INSTANCE_SET_MIME } from '../../../src/protocol/instances.ts';
import { decodeInstanceSet } from '../../../src/protocol/instance-set.ts';
import { defaultSceneObject, type SceneObjectChange } from '../../../src/protocol/scene-objects.ts';
import { startServer, type TestServer } from '../helpers.ts';

const at = (x: number) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, 0, 0, 1];

/** The instances of instanced asset groups over HTTP, and their group objects' changes. */
describe('instanced asset group routes', () => {
  let server: TestServer;
  let ada: string;
  let grace: string;
  let sceneId: string;

  beforeAll(async () => {
    server = await startServer();
    ada = (await signTestToken(server.dataDir, { firstName: 'Ada', lastName: 'Lovelace' })).token;
    grace = (await signTestToken(server.dataDir, { firstName: 'Grace', lastName: 'Hopper' })).token;
    const created = await fetch(`${server.url}/v1/scenes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ada}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Forest' }),
    });
    sceneId = ((await created.json()) as { _id: string })._id;
  });
  afterAll(() => server?.close());

  const json = (token: string | null, path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const get = (token: string | null, groupId: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/v1/scenes/${sceneId}/groups/${groupId}/instances`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
  const putGroup = (uuid: string, groupId: string, matrices?: number[][]): SceneObjectChange => {
    const object = { ...defaultSceneObject('InstancedAssetGroup', groupId, 'Trees'), assetId: 'tree', ...(matrices ? { matrices } : {}) };
    return { key: `object/${groupId}`, uuid, createdAt: 1, type: 'putObject', objectId: groupId, object };
  };

  it('keeps inline matrices out of the scene document and serves them as a binary set', async () => {
    expect((await json(ada, `/v1/scenes/${sceneId}/object-changes`, { changes: [putGroup('o1', 'trees', [at(0), at(1), at(2)])] })).status).toBe(200);
    const object = (await server.store.getScene(sceneId))!.viewerConfig.objects!.find((o) => o.uuid === 'trees')!;
    expect(object.matrices).toBeUndefined();
    expect(object).toMatchObject({ type: 'InstancedAssetGroup', assetId: 'tree', instanceCount: 3, instanceRevision: 1 });
    const response = await get(ada, 'trees');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(INSTANCE_SET_MIME);
    const set = decodeInstanceSet(new Uint8Array(await response.arrayBuffer()));
    expect([...set.ids]).toEqual([0, 1, 2]);
    expect(set.matrices[2 * FLOATS_PER_INSTANCE + 9]).toBe(2);
    // Unchanged: 304 on the ETag.
    expect((await get(ada, 'trees', { 'if-none-match': response.headers.get('etag')! })).status).toBe(304);
  });

  it('gzips a set of 16 KB or more for a client that accepts it, with a tag of its own', async () => {
    const many = Array.from({ length: 400 }, (_, i) => at(i * 0.25));
    expect((await json(ada, `/v1/scenes/${sceneId}/object-changes`, { changes: [putGroup('g1', 'big', many)] })).status).toBe(200);
    // The bytes on the wire (node:http does not decode them), as each client asks.
    const raw = (encoding: string, ifNoneMatch?: string) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((done, fail) => {
        const headers: Record<string, string> = { authorization: `Bearer ${ada}`, 'accept-encoding': encoding, ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}) };
        httpGet(`${server.url}/v1/scenes/${sceneId}/groups/big/instances`, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
        }).on('error', fail);
      });
    const zipped = await raw('gzip, deflate, br');
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    const plain = await raw('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBe(24 + 400 * 52);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
    // The same set either way.
    expect(Buffer.compare(gunzipSync(zipped.body), plain.body)).toBe(0);
    expect(decodeInstanceSet(new Uint8Array(plain.body)).matrices[399 * FLOATS_PER_INSTANCE + 9]).toBe(99.75);
    // A tag per representation, each revalidated on its own.
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    expect((await raw('gzip', zipped.headers.etag)).status).toBe(304);
    expect((await raw('identity', plain.headers.etag)).status).toBe(304);
    expect((await raw('identity', zipped.headers.etag)).status).toBe(200);
    // gzip refused (q=0) or not offered: the set as it is.
    expect((await raw('gzip;q=0, br')).headers['content-encoding']).toBeUndefined();
    expect((await raw('*')).headers['content-encoding']).toBe('gzip');
    // A small set is not worth compressing.
    const small = await get(ada, 'trees', { 'accept-encoding': 'gzip' });
    expect(small.headers.get('content-encoding')).toBeNull();
  });

  it('moves one instance with a request of a few hundred bytes, and a rename of the group keeps its instances', async () => {
    const body = { changes: [{ uuid: 'm1', createdAt: 1, groupId: 'trees', type: 'setInstances', ids: [1], matrices: [1, 0, 0, 0, 1, 0, 0, 0, 1, 9, 0, 0] }] };
    expect(JSON.stringify(body).length).toBeLessThan(300);
    const moved = await json(ada, `/v1/scenes/${sceneId}/instance-changes`, body);
    expect(moved.status).toBe(200);
    expect(await moved.json()).toEqual({ sceneId, applied: ['m1'], skipped: [], groups: { trees: { revision: 2, nextId: 3, count: 3 } } });
    // The group renamed without matrices: the instances stay as they are.
    const renamed = putGroup('o2', 'trees');
    (renamed as { object: { name: string } }).object.name = 'Oaks';
    expect((await json(ada, `/v1/scenes/${sceneId}/object-changes`, { changes: [renamed] })).status).toBe(200);
    const set = decodeInstanceSet(new Uint8Array(await (await get(ada, 'trees')).arrayBuffer()));
    expect(set.matrices[1 * FLOATS_PER_INSTANCE + 9]).toBe(9);
    // The first put, repeated (a retry): skipped, the moved instance is not put back.
    expect((await json(ada, `/v1/scenes/${sceneId}/object-changes`, { changes: [putGroup('o1', 'trees', [at(0), at(1), at(2)])] })).status).toBe(200);
    expect(decodeInstanceSet(new Uint8Array(await (await get(ada, 'trees')).arrayBuffer())).matrices[1 * FLOATS_PER_INSTANCE + 9]).toBe(9);
  });

  it("answers 'No instance found with id ...', unknown groups, bad bodies and strangers clearly", async () => {
    const missing = await json(ada, `/v1/scenes/${sceneId}/instance-changes`, { changes: [{ uuid: 'r1', createdAt: 1, groupId: 'trees', type: 'removeInstances', ids: [77] }] });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'changes[0]: No instance found with id 77' });
    const group = await json(ada, `/v1/scenes/${sceneId}/instance-changes`, { changes: [{ uuid: 'r2', createdAt: 1, groupId: 'nope', type: 'removeInstances', ids: [1] }] });
    expect(group.status).toBe(404);
    expect(((await group.json()) as { error: string }).error).toMatch(/Instanced group 'nope' not found/);
    const bad = await json(ada, `/v1/scenes/${sceneId}/instance-changes`, { changes: [{ uuid: 'r3', createdAt: 1, groupId: 'trees', type: 'setInstances', ids: [1], matrices: [1] }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/12 numbers per id/);
    expect((await json(grace, `/v1/scenes/${sceneId}/instance-changes`, { changes: [{ uuid: 'r4', createdAt: 1, groupId: 'trees', type: 'removeInstances', ids: [1] }] })).status).toBe(403);
    expect((await json(null, `/v1/scenes/${sceneId}/instance-changes`, { changes: [{ uuid: 'r5', createdAt: 1, groupId: 'trees', type: 'removeInstances', ids: [1] }] })).status).toBe(401);
    // Whoever reads the scene reads its instances: all of a public scene, a private one's only its people.
    expect((await get(grace, 'trees')).status).toBe(200);
    expect((await get(null, 'trees')).status).toBe(200);
    await server.store.updateScene(sceneId, (scene) => ({ ...scene, public: false }));
    expect((await get(grace, 'trees')).status).toBe(403);
    expect((await get(null, 'trees')).status).toBe(401);
    expect((await get(ada, 'trees')).status).toBe(200);
    await server.store.updateScene(sceneId, (scene) => ({ ...scene, public: true }));
    expect((await get(ada, 'nope')).status).toBe(404);
  });

  it('a duplicated scene gets its own copy of each group\'s instances', async () => {
    const copy = (await (await json(grace, `/v1/scenes/${sceneId}/duplicate`, undefined)).json()) as { _id: string };
    const copied = await fetch(`${server.url}/v1/scenes/${copy._id}/groups/trees/instances`, { headers: { authorization: `Bearer ${grace}` } });
    expect(copied.status).toBe(200);
    const set = decodeInstanceSet(new Uint8Array(await copied.arrayBuffer()));
    expect([...set.ids]).toEqual([0, 1, 2]);
    expect(set.matrices[1 * FLOATS_PER_INSTANCE + 9]).toBe(9);
    // Grace's edits of her copy never reach the original.
    const edit = await json(grace, `/v1/scenes/${copy._id}/instance-changes`, { changes: [{ uuid: 'g1', createdAt: 1, groupId: 'trees', type: 'removeInstances', ids: [0] }] });
    expect(edit.status).toBe(200);
    expect(decodeInstanceSet(new Uint8Array(await (await get(ada, 'trees')).arrayBuffer())).ids).toHaveLength(3);
  });

  it('a batch the scene refuses changes no instances; a new scene may carry a group\'s inline matrices', async () => {
    const before = decodeInstanceSet(new Uint8Array(await (await get(ada, 'trees')).arrayBuffer()));
    const many = Array.from({ length: 1000 }, (_, i) => {
      const object = defaultSceneObject('Group', `g${i}`);
      return { key: `object/g${i}`, uuid: `many${i}`, createdAt: 1, type: 'putObject', objectId: object.uuid, object } as SceneObjectChange;
    });
    // The scene holds 'trees' and one more object; with 999 new ones it would pass the limit of 1000.
    expect((await json(ada, `/v1/scenes/${sceneId}/object-changes`, { changes: [{ ...many[999]!, uuid: 'extra' }] })).status).toBe(200);
    const refused = await json(ada, `/v1/scenes/${sceneId}/object-changes`, { changes: [putGroup('o50', 'trees', [at(7)]), ...many.slice(0, 999)] });
    expect(refused.status).toBe(400);
    const after = decodeInstanceSet(new Uint8Array(await (await get(ada, 'trees')).arrayBuffer()));
    expect(after.ids).toEqual(before.ids);
    expect(after.revision).toBe(before.revision);

    const created = await json(ada, '/v1/scenes', { name: 'Made with a group', viewerConfig: { objects: [{ ...defaultSceneObject('InstancedAssetGroup', 'bushes', 'Bushes'), assetId: 'bush', matrices: [at(1), at(2)] }] } });
    expect(created.status).toBe(201);
    const doc = (await created.json()) as { _id: string; viewerConfig: { objects: { matrices?: unknown; instanceCount?: number }[] } };
    expect(doc.viewerConfig.objects[0]!.matrices).toBeUndefined();
    expect(doc.viewerConfig.objects[0]!.instanceCount).toBe(2);
    const served = await fetch(`${server.url}/v1/scenes/${doc._id}/groups/bushes/instances`);
    expect(decodeInstanceSet(new Uint8Array(await served.arrayBuffer())).ids).toEqual(new Uint32Array([0, 1]));
  });

  it('a removed group is not served, and keeps its set so that putting it back (an undo) restores its instances', async () => {
    expect((await json(ada, `/v1/scenes/${sceneId}/object-changes`, { changes: [{ key: 'object/trees', uuid: 'o9', createdAt: 2, type: 'removeObject', objectId: 'trees' }] })).status).toBe(200);
    expect((await get(ada, 'trees')).status).toBe(404);
    // Instance edits saved after the group's removal still reach its kept set.
    const late = await json(ada, `/v1/scenes/${sceneId}/instance-changes`, { changes: [{ uuid: 'late1', createdAt: 3, groupId: 'trees', type: 'setInstances', ids: [1], matrices: [1, 0, 0, 0, 1, 0, 0, 0, 1, 9, 0, 0] }] });
    expect(late.status).toBe(200);
    const back = putGroup('o10', 'trees');
    expect((await json(ada, `/v1/scenes/${sceneId}/object-changes`, { changes: [back] })).status).toBe(200);
    const set = decodeInstanceSet(new Uint8Array(await (await get(ada, 'trees')).arrayBuffer()));
    expect([...set.ids].sort()).toEqual([0, 1, 2]);
    expect(set.matrices[1 * FLOATS_PER_INSTANCE + 9]).toBe(9);
  });
});
