import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SceneDoc } from '../../src/protocol/scene.ts';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { importModel } from '../../src/server/import.ts';
import { INDEX_HTML, MODELS_DIR, rawRequest, startServer, type TestServer } from './helpers.ts';
import { indexPageHtml } from '../../src/server/index-page.ts';

describe('app', () => {
  let server: TestServer;
  let sceneId: string;
  let modelId: string;
  let versionKey: string;
  const original = () => readFile(join(MODELS_DIR, 'BoxAnimated.glb'));

  beforeAll(async () => {
    server = await startServer();
    const { scene, model } = await importModel(server.store, { path: join(MODELS_DIR, 'BoxAnimated.glb') }, { name: 'Boxes' });
    sceneId = scene._id;
    modelId = model._id;
    versionKey = model.latestVersionKey;
  });
  afterAll(() => server.close());

  describe('REST', () => {
    it('lists scenes', async () => {
      await importModel(server.store, { path: join(MODELS_DIR, 'Duck.glb') }, { sceneId, name: 'Boxes' });
      const res = await fetch(`${server.url}/v1/scenes`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ scenes: [{ id: sceneId, name: 'Boxes', modelCount: 2 }] });
    });

    it('answers a scene and a model', async () => {
      const res = await fetch(`${server.url}/v1/scenes/${sceneId}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const scene = SceneDoc.parse(await res.json());
      expect(scene).toMatchObject({ _id: sceneId, name: 'Boxes' });
      expect(scene.models[0]).toMatchObject({ _id: modelId, latestVersionKey: versionKey, outputFormat: 'glb', sourceFileName: 'BoxAnimated.glb' });

      const modelRes = await fetch(`${server.url}/v1/models/${modelId}`);
      expect(modelRes.status).toBe(200);
      expect(await modelRes.json()).toEqual(scene.models[0]);
    });

    it('answers 404 for unknown ids and 400 for bad ids, as JSON', async () => {
      for (const [path, status, message] of [
        ['/v1/scenes/nope', 404, "Scene 'nope' not found"],
        ['/v1/models/nope', 404, "Model 'nope' not found"],
        ['/v1/scenes/bad.id', 400, "Invalid scene id 'bad.id'"],
        ['/v1/models/%2e%2e%2fetc', 400, "Invalid model id '../etc'"],
        ['/v1/nothing', 404, 'Not found: GET /v1/nothing'],
      ] as const) {
        const res = await fetch(`${server.url}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status });
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const body = await res.json();
        expect(Object.keys(body)).toEqual(['error']);
        expect(body.error).toContain(message);
      }
    });

    it('answers JSON for a malformed URL and a wrong method', async () => {
      const bad = await rawRequest(server.port, '/v1/scenes/%E0%A4%A');
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body.toString())).toEqual({ error: expect.any(String) });
      const post = await fetch(`${server.url}/v1/scenes/${sceneId}`, { method: 'DELETE' });
      expect(post.status).toBe(404);
      expect(await post.json()).toEqual({ error: `Not found: DELETE /v1/scenes/${sceneId}` });
    });
  });

  describe('derivative CDN', () => {
    it('serves the container, which decodes to the imported file', async () => {
      const res = await fetch(`${server.url}/cdn/derivatives/${versionKey}/model_file.binz`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('cache-control')).toContain('immutable');
      expect(res.headers.get('etag')).toMatch(/^".+"$/);
      const body = new Uint8Array(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).toBe(body.byteLength);
      const decoded = await decodeContainer(body);
      expect(Buffer.compare(Buffer.from(decoded.asset), await original())).toBe(0);

      const again = await fetch(`${server.url}/cdn/derivatives/${versionKey}/model_file.binz`, { headers: { 'if-none-match': res.headers.get('etag') ?? '' } });
      expect(again.status).toBe(304);
      const head = await fetch(`${server.url}/cdn/derivatives/${versionKey}/model_file.binz`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(body.byteLength));
    });

    it('answers 404 for a missing version and 400 for other paths', async () => {
      const missing = await fetch(`${server.url}/cdn/derivatives/${modelId}/nope/model_file.binz`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ error: `No model file for version '${modelId}/nope'` });
      const otherFile = await fetch(`${server.url}/cdn/derivatives/${versionKey}/other.bin`);
      expect(otherFile.status).toBe(400);
    });

    it('never leaves the derivative folder', async () => {
      const attempts = [
        '/cdn/derivatives/../../etc/passwd',
        '/cdn/derivatives/../../../../../../etc/passwd',
        '/cdn/derivatives/..%2F..%2Fetc%2Fpasswd',
        '/cdn/derivatives/%2e%2e/%2e%2e/etc/passwd',
        '/cdn/derivatives/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
        '/cdn/derivatives/%252e%252e%252fetc%252fpasswd',
        '/cdn/derivatives/..%5C..%5Cetc%5Cpasswd',
        `/cdn/derivatives/${modelId}/..%2F..%2F..%2Fscenes/model_file.binz`,
        '/cdn/derivatives/%2Fetc%2Fpasswd',
        '/cdn/derivatives/..',
        '/cdn/derivatives/',
      ];
      for (const path of attempts) {
        const res = await rawRequest(server.port, path);
        expect({ path, ok: res.status === 400 || res.status === 404 }).toEqual({ path, ok: true });
        expect(res.body.toString()).not.toContain('root:');
        expect(JSON.parse(res.body.toString())).toEqual({ error: expect.any(String) });
      }
    });
  });

  describe('the browser app', () => {
    it('serves index.html for /, /embed/* and /edit/*', async () => {
      for (const path of ['/', '/embed/demo', '/embed/demo?autoPlay=true&uiColor=%23ff0000', '/edit/abc', '/embed', '/edit/abc/deeper']) {
        const res = await fetch(`${server.url}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('cache-control')).toBe('no-cache');
        // The built page, with the model service's address for its early downloads (src/server/index-page.ts).
        expect(await res.text()).toBe(indexPageHtml(INDEX_HTML, ''));
      }
    });

    it("the page carries the configured model service's address, the one /v1/config gives", async () => {
      const other = await startServer({ env: { MODEL_SERVICE_URL: 'https://models.example.com/' } });
      try {
        const config = await (await fetch(`${other.url}/v1/config`)).json();
        const page = await (await fetch(`${other.url}/embed/demo`)).text();
        expect(/<meta name="model-service" content="([^"]*)" \/>/.exec(page)?.[1]).toBe(config.endpoints.modelService);
        expect(config.endpoints.modelService).toMatch(/^https:\/\/models\.example\.com/);
      } finally {
        await other.close();
      }
    });

    it('serves static files with their types and answers JSON 404 for others', async () => {
      const wasm = await fetch(`${server.url}/libs/draco/draco_decoder.wasm`);
      expect(wasm.status).toBe(200);
      expect(wasm.headers.get('content-type')).toBe('application/wasm');
      const js = await fetch(`${server.url}/libs/draco/draco_decoder.js`);
      expect(js.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
      const asset = await fetch(`${server.url}/assets/index-AbCdEf12.js`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      for (const path of ['/assets/missing.js', '/libs/basis/missing.wasm', '/nowhere', '/.secret']) {
        const res = await rawRequest(server.port, path);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(JSON.parse(res.body.toString())).toEqual({ error: expect.any(String) });
      }
      for (const path of ['/libs/../../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/libs/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2f..%2fetc/passwd']) {
        const res = await rawRequest(server.port, path);
        expect({ path, refused: [400, 403, 404].includes(res.status) }).toEqual({ path, refused: true });
        expect(res.body.toString()).not.toContain('root:');
        expect(JSON.parse(res.body.toString())).toEqual({ error: expect.any(String) });
      }
    });
  });
});

describe('app without a build', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ withIndex: false });
  });
  afterAll(() => server.close());

  it('answers 503 with a hint to build, while the API works', async () => {
    for (const path of ['/', '/embed/demo']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(503);
      expect((await res.json()).error).toMatch(/npm run build/);
    }
    expect((await fetch(`${server.url}/v1/config`)).status).toBe(200);
  });
});
