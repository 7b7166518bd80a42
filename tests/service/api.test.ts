import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyMutationsResponse, MAX_MUTATIONS_PER_BATCH, MutationLogResponse } from '../../src/protocol/mutation.ts';
import { SceneDoc } from '../../src/protocol/scene.ts';
import { signTestToken } from '../../src/server/auth/tokens.ts';
import { importModel } from '../../src/server/import.ts';
import { backendEnv, unavailable, useBackends } from './backends.ts';
import { MODELS_DIR, solidPng, startServer, type TestServer } from './helpers.ts';

/**
 * The model service over real HTTP, against SQLite and against PostgreSQL: every endpoint, the
 * permissions (401/403), bad input (400/404/409/413/415 with a reason), idempotent and concurrent
 * saving.
 */

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

async function call(server: TestServer, method: string, path: string, options: { token?: string; json?: unknown; body?: string | Uint8Array; type?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined = options.body === undefined || typeof options.body === "string" ? options.body : Buffer.from(options.body);
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (options.type) headers['content-type'] = options.type;
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

function expectError(reply: Reply, status: number, message: string | RegExp): void {
  expect({ status: reply.status, body: reply.body }).toEqual({ status, body: { error: expect.stringMatching(message) } });
}

let uuidCounter = 0;
function mutation(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  uuidCounter += 1;
  return {
    key: 'node-1/visible',
    uuid: `m-${process.pid}-${uuidCounter}`,
    createdAt: Date.now(),
    type: 'updateNode',
    nodeId: 'node-1',
    properties: { visible: false },
    ...overrides,
  };
}

const backends = useBackends();

describe.each(backends)('model service on %s', (backend) => {
  let server: TestServer;
  let owner: { token: string; id: string };
  let editor: { token: string; id: string };
  let stranger: { token: string; id: string };
  let publicScene: string;
  let privateScene: string;
  let publicModel: string;
  let privateModel: string;

  beforeAll(async () => {
    if (unavailable(backend)) return;
    server = await startServer({ env: await backendEnv(backend) });
    const sign = async (firstName: string, lastName: string) => {
      const { token, user } = await signTestToken(server.dataDir, { firstName, lastName });
      return { token, id: user.id };
    };
    [owner, editor, stranger] = await Promise.all([sign('Ada', 'Lovelace'), sign('Grace', 'Hopper'), sign('Alan', 'Turing')]);

    const pub = await importModel(server.store, { path: join(MODELS_DIR, 'BoxAnimated.glb') }, { name: 'Public boxes' });
    publicScene = pub.scene._id;
    publicModel = pub.model._id;
    await server.store.updateScene(publicScene, (s) => ({ ...s, ownerId: owner.id, editors: [editor.id] }));
    const priv = await importModel(server.store, { path: join(MODELS_DIR, 'Duck.glb') }, { name: 'Private duck' });
    privateScene = priv.scene._id;
    privateModel = priv.model._id;
    await server.store.updateScene(privateScene, (s) => ({ ...s, ownerId: owner.id, editors: [editor.id], public: false }));
  });
  afterAll(async () => {
    await server?.close();
  });

  describe.skipIf(unavailable(backend))('scenes', () => {
    it('lists the scenes each person may read, in the Home page shape', async () => {
      const anonymous = await call(server, 'GET', '/v1/scenes');
      expect(anonymous.status).toBe(200);
      expect(anonymous.body).toEqual({ scenes: [{ id: publicScene, name: 'Public boxes', modelCount: 1 }] });
      expect(anonymous.body.scenes.map((s: { id: string }) => s.id)).not.toContain(privateScene);
      expect((await call(server, 'GET', '/v1/scenes', { token: stranger.token })).body.scenes.map((s: { id: string }) => s.id)).not.toContain(privateScene);
      for (const who of [owner, editor]) {
        const ids = (await call(server, 'GET', '/v1/scenes', { token: who.token })).body.scenes.map((s: { id: string }) => s.id);
        expect(ids).toEqual(expect.arrayContaining([publicScene, privateScene]));
      }
    });

    it('answers a public scene to anyone and a private one to its owner and editors only', async () => {
      const pub = await call(server, 'GET', `/v1/scenes/${publicScene}`);
      expect(pub.status).toBe(200);
      expect(SceneDoc.parse(pub.body)).toMatchObject({ _id: publicScene, ownerId: owner.id });
      expectError(await call(server, 'GET', `/v1/scenes/${privateScene}`), 401, /Sign in required/);
      expectError(await call(server, 'GET', `/v1/scenes/${privateScene}`, { token: stranger.token }), 403, /private/);
      for (const who of [owner, editor]) {
        const res = await call(server, 'GET', `/v1/scenes/${privateScene}`, { token: who.token });
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toContain('private');
      }
      expectError(await call(server, 'GET', '/v1/scenes/nope'), 404, "Scene 'nope' not found");
      expectError(await call(server, 'GET', '/v1/scenes/bad.id'), 400, /Invalid scene id/);
    });

    it('creates a scene owned by the signed-in person', async () => {
      expectError(await call(server, 'POST', '/v1/scenes', { json: { name: 'Mine' } }), 401, /Sign in required/);
      const created = await call(server, 'POST', '/v1/scenes', {
        token: stranger.token,
        json: { name: '  Mine  ', public: false, editors: [owner.id, owner.id], viewerConfig: { scene: { fogEnabled: true } } },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Mine', ownerId: stranger.id, editors: [owner.id], public: false, models: [], viewerConfig: { scene: { fogEnabled: true } } });
      expect(created.headers.get('location')).toBe(`/v1/scenes/${created.body._id}`);
      expect((await call(server, 'GET', `/v1/scenes/${created.body._id}`, { token: owner.token })).status).toBe(200);
      expect((await call(server, 'GET', `/v1/scenes/${created.body._id}`, { token: editor.token })).status).toBe(403);
    });

    it('refuses bad scene bodies with a reason and stores nothing', async () => {
      const post = (options: Parameters<typeof call>[3]) => call(server, 'POST', '/v1/scenes', { token: owner.token, ...options });
      expectError(await post({ json: {} }), 400, /name undefined/);
      expectError(await post({ json: { name: '' } }), 400, /name must not be empty/);
      expectError(await post({ json: { name: 5 } }), 400, /name must be a string/);
      expectError(await post({ json: { name: 'x', owner: 'me' } }), 400, /unknown field 'owner'/);
      expectError(await post({ json: { name: 'x', public: 'yes' } }), 400, /public must be true or false/);
      expectError(await post({ json: { name: 'x', viewerConfig: { uiConfig: { rtcVideoEnabled: 'no' } } } }), 400, /viewerConfig\.uiConfig\.rtcVideoEnabled/);
      expectError(await post({ json: [1, 2] }), 400, /JSON object/);
      expectError(await post({ body: '{"name": "x",', type: 'application/json' }), 400, /Malformed JSON body: .*JSON/);
      expectError(await post({ body: '', type: 'application/json' }), 400, /empty/);
      expectError(await post({ body: 'name=x', type: 'text/plain' }), 415, /Unsupported Content-Type 'text\/plain'/);
      expectError(await post({ body: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), type: 'application/json' }), 413, /larger than the limit/);
      expectError(await post({ body: '{"name":"x","__proto__":{"admin":true}}', type: 'application/json' }), 400, /must not have "__proto__"/);
      expectError(await post({ body: '{"name":"x","viewerConfig":{"scene":{"constructor":{"prototype":{"admin":true}}}}}', type: 'application/json' }), 400, /constructor\.prototype/);
      expect((await post({ body: '{"name":"constructor __proto__"}', type: 'application/json' })).status).toBe(201);
      const names = (await call(server, 'GET', '/v1/scenes', { token: owner.token })).body.scenes.map((s: { name: string }) => s.name);
      expect(names.filter((n: string) => n === 'x')).toEqual([]);
    });

    it('renames for owner and editors; only the owner shares', async () => {
      const path = `/v1/scenes/${publicScene}`;
      expectError(await call(server, 'PATCH', path, { json: { name: 'X' } }), 401, /Sign in required/);
      expectError(await call(server, 'PATCH', path, { token: stranger.token, json: { name: 'X' } }), 403, /only its owner and editors/);
      const renamed = await call(server, 'PATCH', path, { token: editor.token, json: { name: 'Boxes' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.name).toBe('Boxes');
      expectError(await call(server, 'PATCH', path, { token: editor.token, json: { editors: [] } }), 403, /Only the owner/);
      const shared = await call(server, 'PATCH', path, { token: owner.token, json: { editors: [editor.id, stranger.id] } });
      expect(shared.body.editors).toEqual([editor.id, stranger.id]);
      expect((await call(server, 'PATCH', path, { token: stranger.token, json: { name: 'Boxes!' } })).status).toBe(200);
      await call(server, 'PATCH', path, { token: owner.token, json: { name: 'Public boxes', editors: [editor.id] } });
      expectError(await call(server, 'PATCH', path, { token: stranger.token, json: { name: 'again' } }), 403, /only its owner and editors/);
      expectError(await call(server, 'PATCH', '/v1/scenes/nope', { token: owner.token, json: { name: 'x' } }), 404, /not found/);
    });

    it('lets only the owner set the host API allowlist (hostOrigins), and null removes it', async () => {
      const path = `/v1/scenes/${publicScene}`;
      expectError(await call(server, 'PATCH', path, { token: editor.token, json: { hostOrigins: ['https://a.example'] } }), 403, /Only the owner.*hostOrigins/);
      expectError(await call(server, 'PATCH', path, { token: owner.token, json: { hostOrigins: ['https://a.example/page'] } }), 400, /hostOrigins\[0\].*host origin must be/);
      const set = await call(server, 'PATCH', path, { token: owner.token, json: { hostOrigins: ['https://a.example', 'https://a.example', '*'] } });
      expect(set.status).toBe(200);
      expect(set.body.hostOrigins).toEqual(['https://a.example', '*']);
      expect((await call(server, 'GET', path)).body.hostOrigins).toEqual(['https://a.example', '*']);
      const removed = await call(server, 'PATCH', path, { token: owner.token, json: { hostOrigins: null } });
      expect(removed.body).not.toHaveProperty('hostOrigins');
    });

    it('updates viewerConfig part by part', async () => {
      const path = `/v1/scenes/${publicScene}/viewer-config`;
      const first = await call(server, 'PATCH', path, { token: editor.token, json: { scene: { sunAzimuth: 45, fogEnabled: true }, postprocessing: { ssao: { quality: 2 } } } });
      expect(first.status).toBe(200);
      const second = await call(server, 'PATCH', path, { token: owner.token, json: { uiConfig: { rtcVideoEnabled: false } } });
      expect(second.body.viewerConfig).toEqual({
        scene: { sunAzimuth: 45, fogEnabled: true },
        postprocessing: { ssao: { quality: 2 } },
        uiConfig: { rtcVideoEnabled: false, rtcAvatarsEnabled: true },
      });
      expect((await call(server, 'GET', `/v1/scenes/${publicScene}`)).body.viewerConfig).toEqual(second.body.viewerConfig);
      expectError(await call(server, 'PATCH', path, { token: owner.token, json: { uiConfig: { rtcVideoEnabled: 1 } } }), 400, /uiConfig\.rtcVideoEnabled/);
      expectError(await call(server, 'PATCH', path, { token: owner.token, json: { scene: 'dark' } }), 400, /scene/);
      expectError(await call(server, 'PATCH', path, { token: owner.token, json: { camera: {} } }), 400, /unknown field 'camera'/);
      expectError(await call(server, 'PATCH', path, { token: stranger.token, json: { scene: {} } }), 403, /only its owner and editors/);
      expectError(await call(server, 'PATCH', path, { json: { scene: {} } }), 401, /Sign in required/);
    });

    it('stores a thumbnail image or URL and serves the image from the CDN', async () => {
      const path = `/v1/scenes/${publicScene}/thumbnail`;
      const png = solidPng(8, 8, [200, 30, 30]);
      const uploaded = await call(server, 'PUT', path, { token: owner.token, body: png, type: 'image/png' });
      expect(uploaded.status).toBe(200);
      const url: string = uploaded.body.thumbnailUrl;
      expect(url).toMatch(new RegExp(`^/cdn/thumbnails/${publicScene}/[0-9a-f]{32}\\.png$`));
      const image = await fetch(`${server.url}${url}`);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(image.headers.get('cache-control')).toContain('immutable');
      expect(Buffer.compare(Buffer.from(await image.arrayBuffer()), Buffer.from(png))).toBe(0);
      expect((await call(server, 'GET', '/v1/scenes')).body.scenes.find((s: { id: string }) => s.id === publicScene).thumbnailUrl).toBe(url);

      expectError(await call(server, 'PUT', path, { token: owner.token, body: new Uint8Array([1, 2, 3, 4]), type: 'image/png' }), 400, /not a PNG, JPEG or WebP/);
      expectError(await call(server, 'PUT', path, { token: owner.token, body: png, type: 'image/jpeg' }), 400, /is a PNG image but was sent as image\/jpeg/);
      expectError(await call(server, 'PUT', path, { token: owner.token, body: new Uint8Array(6 * 1024 * 1024), type: 'image/png' }), 413, /larger than the limit/);
      expectError(await call(server, 'PUT', path, { token: stranger.token, body: png, type: 'image/png' }), 403, /only its owner and editors/);
      expectError(await call(server, 'PUT', path, { token: owner.token, json: { thumbnailUrl: 'javascript:alert(1)' } }), 400, /thumbnailUrl must be an http\(s\) URL/);

      const linked = await call(server, 'PUT', path, { token: editor.token, json: { thumbnailUrl: 'https://cdn.example.com/t.png' } });
      expect(linked.body.thumbnailUrl).toBe('https://cdn.example.com/t.png');
      const removed = await call(server, 'PUT', path, { token: editor.token, json: { thumbnailUrl: null } });
      expect(removed.status).toBe(200);
      expect(removed.body.thumbnailUrl).toBeUndefined();
      expectError(await call(server, 'GET', '/cdn/thumbnails/../../etc/passwd'), 404, /Not found/);
      expectError(await call(server, 'GET', `/cdn/thumbnails/${publicScene}/${'0'.repeat(32)}.png`), 404, /No thumbnail/);
    });
  });

  describe.skipIf(unavailable(backend))('models', () => {
    it('answers a model to whoever may read one of its scenes', async () => {
      const pub = await call(server, 'GET', `/v1/models/${publicModel}`);
      expect(pub.status).toBe(200);
      expect(pub.body).toMatchObject({ _id: publicModel, outputFormat: 'glb', sourceFileName: 'BoxAnimated.glb' });
      expectError(await call(server, 'GET', `/v1/models/${privateModel}`), 401, /private scene/);
      expectError(await call(server, 'GET', `/v1/models/${privateModel}`, { token: stranger.token }), 403, /private/);
      expect((await call(server, 'GET', `/v1/models/${privateModel}`, { token: editor.token })).status).toBe(200);
      expectError(await call(server, 'GET', '/v1/models/nope'), 404, "Model 'nope' not found");
    });

    it('lets anyone read a model that no scene lists, and no one change it', async () => {
      await server.store.putModel({ _id: 'orphan', latestVersionKey: 'orphan/v1', outputFormat: 'glb', sourceFileName: 'orphan.glb' });
      expect((await call(server, 'GET', '/v1/models/orphan')).status).toBe(200);
      expect((await call(server, 'GET', '/v1/models/orphan/mutations')).body).toEqual({ modelId: 'orphan', mutations: [], lastSeq: 0 });
      expectError(await call(server, 'POST', '/v1/models/orphan/apply-mutations', { token: owner.token, json: { mutations: [mutation()] } }), 403, /only the owner and editors/);
    });
  });

  describe.skipIf(unavailable(backend))('mutations', () => {
    const apply = (modelId: string, mutations: unknown, token?: string) =>
      call(server, 'POST', `/v1/models/${modelId}/apply-mutations`, { token, json: { mutations } });
    const log = async (modelId: string, token?: string) => MutationLogResponse.parse((await call(server, 'GET', `/v1/models/${modelId}/mutations`, { token })).body);

    it('saves a batch in order for owners and editors; anyone may read the log of a public model', async () => {
      const batch = [
        mutation({ properties: { visible: false, castShadow: true, unknownProperty: 1 } }),
        mutation({ type: 'createMaterial', materialId: 'mat-new', name: 'Red paint', properties: { color: '#ff0000', roughness: 0.4 }, nodeId: undefined }),
        mutation({ type: 'updateMaterial', materialId: '0', properties: { opacity: 0.5, map: { textureId: 't1', wrapS: 1000, rotation: 0.5 } }, nodeId: undefined }),
        mutation({ properties: { matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1], parent: null } }),
      ];
      const saved = await apply(publicModel, batch, owner.token);
      expect(saved.status).toBe(200);
      const answer = ApplyMutationsResponse.parse(saved.body);
      expect(answer.modelId).toBe(publicModel);
      expect(answer.saved.map((s) => s.uuid)).toEqual(batch.map((m) => m.uuid));
      const seqs = answer.saved.map((s) => s.seq);
      expect(seqs).toEqual(seqs.map((_, i) => seqs[0] + i));
      expect((await apply(publicModel, [mutation()], editor.token)).status).toBe(200);

      const saveLog = await log(publicModel);
      expect(saveLog.lastSeq).toBe(seqs[3] + 1);
      const stored = saveLog.mutations.filter((m) => batch.some((b) => b.uuid === m.uuid));
      expect(stored.map((m) => m.uuid)).toEqual(batch.map((m) => m.uuid));
      expect(stored[0].properties).toEqual({ visible: false, castShadow: true }); // unknown property dropped
      expect(stored[1]).toMatchObject({ type: 'createMaterial', materialId: 'mat-new', name: 'Red paint', properties: { color: '#ff0000', roughness: 0.4 } });
      expect(stored[2].properties).toEqual({ opacity: 0.5, map: { textureId: 't1', wrapS: 1000, rotation: 0.5 } });
      expect(saveLog.mutations.map((m) => m.seq)).toEqual([...saveLog.mutations.map((m) => m.seq)].sort((a, b) => a - b));

      const page = (await call(server, 'GET', `/v1/models/${publicModel}/mutations?after=${seqs[0]}&limit=2`)).body;
      expect(page.mutations.map((m: { seq: number }) => m.seq)).toEqual([seqs[1], seqs[2]]);
      expect(page.lastSeq).toBe(saveLog.lastSeq);
      expectError(await call(server, 'GET', `/v1/models/${publicModel}/mutations?after=-1`), 400, /after must not be negative/);
      expectError(await call(server, 'GET', `/v1/models/${publicModel}/mutations?limit=abc`), 400, /limit must be a number/);
    });

    it('answers 401 without a token, 403 to others, 404 for unknown models', async () => {
      const before = (await log(publicModel)).lastSeq;
      expectError(await apply(publicModel, [mutation()]), 401, /Sign in required/);
      expectError(await apply(publicModel, [mutation()], stranger.token), 403, /only the owner and editors of a scene that lists it/);
      expectError(await apply('nope', [mutation()], owner.token), 404, "Model 'nope' not found");
      expectError(await apply('bad.id', [mutation()], owner.token), 400, /Invalid model id/);
      expectError(await call(server, 'GET', `/v1/models/${privateModel}/mutations`), 401, /Sign in required/);
      expectError(await call(server, 'GET', `/v1/models/${privateModel}/mutations`, { token: stranger.token }), 403, /private/);
      expect((await call(server, 'GET', `/v1/models/${privateModel}/mutations`, { token: editor.token })).status).toBe(200);
      expect((await log(publicModel)).lastSeq).toBe(before);
    });

    it('refuses an invalid batch with a 400 naming the field, storing none of it', async () => {
      const before = (await log(publicModel)).lastSeq;
      const cases: [unknown, RegExp][] = [
        [[mutation(), mutation({ type: 'updateMaterial', materialId: 'm', properties: { opacity: 'half' }, nodeId: undefined })], /mutations\[1\]\.properties\.opacity: opacity must be a number/],
        [[mutation({ nodeId: undefined })], /mutations\[0\]\.nodeId: nodeId undefined\./],
        [[mutation({ type: 'updateMaterial', nodeId: undefined })], /mutations\[0\]\.materialId: materialId undefined\./],
        [[mutation({ type: 'deleteNode' })], /mutations\[0\]\.type: type must be one of updateNode, updateMaterial, createMaterial/],
        [[mutation({ properties: { matrix: [1, 2, 3] } })], /mutations\[0\]\.properties\.matrix: matrix must have exactly 16 numbers/],
        [[mutation({ properties: { visible: 'yes' } })], /mutations\[0\]\.properties\.visible: visible must be true or false/],
        [[mutation({ uuid: 'a b' })], /mutations\[0\]\.uuid/],
        [[mutation({ createdAt: 'yesterday' })], /mutations\[0\]\.createdAt/],
        [[mutation({ type: 'createMaterial', materialId: 'x', nodeId: undefined })], /mutations\[0\]\.name/],
        [[null], /mutations\[0\]: each mutation must be an object/],
        ['all of them', /mutations: mutations must be a list/],
      ];
      for (const [mutations, message] of cases) expectError(await apply(publicModel, mutations, owner.token), 400, message);
      const post = (options: Parameters<typeof call>[3]) => call(server, 'POST', `/v1/models/${publicModel}/apply-mutations`, { token: owner.token, ...options });
      expectError(await post({ json: {} }), 400, /mutations undefined/);
      expectError(await post({ json: 'mutations' }), 400, /JSON object/);
      expectError(await post({ body: '{"mutations": [', type: 'application/json' }), 400, /Malformed JSON body/);
      expectError(await post({ body: 'x', type: 'text/plain' }), 415, /Unsupported Content-Type/);
      expectError(await post({ json: { mutations: Array.from({ length: MAX_MUTATIONS_PER_BATCH + 1 }, () => mutation()) } }), 400, /at most 1000 mutations/);
      const huge = JSON.stringify({ mutations: [mutation({ key: 'k'.repeat(9 * 1024 * 1024) })] });
      expectError(await post({ body: huge, type: 'application/json' }), 413, /larger than the limit of 8388608 bytes/);
      expectError(await post({ json: { mutations: [mutation({ key: 'a\u0000b' })] } }), 400, /NUL character/);
      expect((await log(publicModel)).lastSeq).toBe(before);
    });

    it('is idempotent: a repeated batch changes nothing and gets the same answer; a changed one is a conflict', async () => {
      const batch = Array.from({ length: 5 }, (_, i) => mutation({ key: `node-${i}/visible`, nodeId: `node-${i}` }));
      const first = await apply(privateModel, batch, editor.token);
      const lastSeq = (await log(privateModel, editor.token)).lastSeq;
      const second = await apply(privateModel, batch, owner.token);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      const after = await log(privateModel, editor.token);
      expect(after.lastSeq).toBe(lastSeq);
      expect(after.mutations.filter((m) => batch.some((b) => b.uuid === m.uuid))).toHaveLength(5);

      const changed = [mutation(), { ...batch[2], properties: { visible: true } }];
      expectError(await apply(privateModel, changed, owner.token), 409, /mutations\[1\]\.uuid: .* already saved .* with different content/);
      expect((await log(privateModel, editor.token)).lastSeq).toBe(lastSeq);
    });

    it('keeps the order and loses nothing when two clients on two servers save to one model at once', async () => {
      // A second server on the same database (and DATA_DIR, whose key signs the tokens).
      const other = await startServer({ env: { DATA_DIR: server.dataDir, ...(server.config.databaseUrl ? { DATABASE_URL: server.config.databaseUrl } : {}) } });
      try {
        const before = (await log(publicModel)).lastSeq;
        const clients = ['left', 'right'].map((name, c) => ({
          name,
          target: c === 0 ? server : other,
          token: c === 0 ? owner.token : editor.token,
          batches: Array.from({ length: 15 }, (_, b) => Array.from({ length: 40 }, (_, i) => mutation({ key: `${name}/${b}/${i}`, uuid: `${name}-${b}-${i}-${backend}` }))),
        }));
        await Promise.all(
          clients.map(async (client) => {
            for (const batch of client.batches) {
              const res = await call(client.target, 'POST', `/v1/models/${publicModel}/apply-mutations`, { token: client.token, json: { mutations: batch } });
              expect(res.status).toBe(200);
            }
          }),
        );
        const after = await log(publicModel);
        const added = after.mutations.filter((m) => m.seq > before);
        expect(added.map((m) => m.seq)).toEqual(Array.from({ length: 1200 }, (_, i) => before + 1 + i));
        for (const client of clients) {
          expect(added.filter((m) => m.key.startsWith(`${client.name}/`)).map((m) => m.uuid)).toEqual(client.batches.flat().map((m) => m.uuid));
        }
      } finally {
        await other.close();
      }
    });
  });
});

