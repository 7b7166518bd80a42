import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestToken } from '../../../src/server/auth/tokens.ts';
import { defaultSceneObject, OBJECT_CHANGE_MEMORY, type SceneObjectChange } from '../../../src/protocol/scene-objects.ts';
import { startServer, type TestServer } from '../helpers.ts';

/** POST /v1/scenes/{id}/object-changes: small, atomic, idempotent changes of lights, cameras and groups. */
describe('scene object changes', () => {
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
      body: JSON.stringify({ name: 'Lit', viewerConfig: { scene: { sunElevation: 30 } } }),
    });
    sceneId = ((await created.json()) as { _id: string })._id;
  });
  afterAll(() => server?.close());

  const post = (token: string | null, body: unknown, id = sceneId) =>
    fetch(`${server.url}/v1/scenes/${id}/object-changes`, {
      method: 'POST',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const put = (uuid: string, object: ReturnType<typeof defaultSceneObject>): SceneObjectChange => ({ key: `object/${object.uuid}`, uuid, createdAt: 1, type: 'putObject', objectId: object.uuid, object });
  const objects = async () => (await server.store.getScene(sceneId))!.viewerConfig.objects ?? [];

  it('adds, changes and removes one object at a time; a repeated request changes nothing', async () => {
    const spot = defaultSceneObject('SpotLight', 'spot1');
    const group = defaultSceneObject('Group', 'group1');
    const first = await post(ada, { changes: [put('c1', spot), put('c2', group)] });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ sceneId, applied: ['c1', 'c2'], skipped: [] });
    expect((await objects()).map((o) => o.uuid)).toEqual(['spot1', 'group1']);
    expect((await objects())[0]).toMatchObject({ type: 'SpotLight', intensity: 25, angle: 0.5, penumbra: 0.1, decay: 2 });

    // One changed light: the group entry is the same object as before, the light replaced in place.
    const brighter = put('c3', { ...spot, intensity: 40, parent: 'group1' });
    expect((await post(ada, { changes: [brighter] })).status).toBe(200);
    expect((await objects()).map((o) => [o.uuid, o.intensity ?? null])).toEqual([['spot1', 40], ['group1', null]]);

    // The same request again (a retry after a lost answer): skipped, nothing changes.
    const again = await post(ada, { changes: [put('c1', spot)] });
    expect(await again.json()).toEqual({ sceneId, applied: [], skipped: ['c1'] });
    expect((await objects())[0].intensity).toBe(40);

    expect((await post(ada, { changes: [{ key: 'object/spot1', uuid: 'c4', createdAt: 2, type: 'removeObject', objectId: 'spot1' }] })).status).toBe(200);
    expect((await objects()).map((o) => o.uuid)).toEqual(['group1']);
    // The scene settings are untouched.
    expect((await server.store.getScene(sceneId))!.viewerConfig.scene).toEqual({ sunElevation: 30 });
  });

  it('refuses bad input whole (400 naming the field) and others (401, 403, 404)', async () => {
    const bad = { ...defaultSceneObject('SpotLight', 'spot2'), angle: 3 };
    const response = await post(ada, { changes: [put('d1', defaultSceneObject('Group', 'g2')), put('d2', bad)] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/angle/);
    expect((await objects()).some((o) => o.uuid === 'g2')).toBe(false);
    const mismatch = await post(ada, { changes: [{ ...put('d3', defaultSceneObject('Group', 'g3')), objectId: 'other' }] });
    expect(mismatch.status).toBe(400);
    expect((await post(ada, { changes: [] })).status).toBe(400);
    expect((await post(ada, { changes: [put('d4', defaultSceneObject('Group', 'g4'))], extra: 1 })).status).toBe(400);
    expect((await post(null, { changes: [put('d5', defaultSceneObject('Group', 'g5'))] })).status).toBe(401);
    expect((await post(grace, { changes: [put('d6', defaultSceneObject('Group', 'g6'))] })).status).toBe(403);
    expect((await post(ada, { changes: [put('d7', defaultSceneObject('Group', 'g7'))] }, 'nope')).status).toBe(404);
    // The viewer-config PATCH cannot overwrite the objects or the change memory.
    const patch = await fetch(`${server.url}/v1/scenes/${sceneId}/viewer-config`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ada}`, 'content-type': 'application/json' },
      body: JSON.stringify({ objects: [] }),
    });
    expect(patch.status).toBe(400);
    expect(OBJECT_CHANGE_MEMORY).toBeGreaterThan(1000);
  });
});
