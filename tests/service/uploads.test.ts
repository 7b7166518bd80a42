import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelDoc } from '../../src/protocol/scene.ts';
import { ModelUploadResult, UploadError, UploadStatus } from '../../src/protocol/upload.ts';
import { importModel } from '../../src/server/import.ts';
import { DEMO_SCENE_ID, ensureDemoScene } from '../../src/server/demo.ts';
import { decodeContainer } from '../../src/protocol/container-codec.ts';
import { validateModel } from '../../src/server/upload/validate.ts';
import { MODELS_DIR, glbJson, solidPng, triangleGltf } from './helpers.ts';
import { decompressedGlb, postRaw, startUploadServer, type UploadServer } from './upload-helpers.ts';

const REAL_MODELS = (await readdir(MODELS_DIR)).filter((name) => name.endsWith('.glb')).sort();

async function fileBytes(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(join(MODELS_DIR, name)));
}

async function derivative(server: UploadServer, versionKey: string): Promise<Uint8Array> {
  const res = await fetch(`${server.url}/cdn/derivatives/${versionKey}/model_file.binz`);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe('POST /v1/models', () => {
  let server: UploadServer;
  beforeAll(async () => {
    server = await startUploadServer();
  });
  afterAll(() => server.close());

  it.each(REAL_MODELS)('uploads %s: validated, optimised, stored as a container that decodes to a valid GLB', async (name) => {
    const res = await postRaw(server, '/v1/models', await fileBytes(name), name, await server.auth());
    const body = await res.json();
    expect({ status: res.status, error: body.error }).toEqual({ status: 201, error: undefined });
    const result = ModelUploadResult.parse(body);
    expect(result).toMatchObject({ outputFormat: 'glb', sourceFileName: name });
    expect(result.latestVersionKey).toMatch(new RegExp(`^${result._id}/[A-Za-z0-9_-]+$`));
    expect(res.headers.get('location')).toBe(`/v1/models/${result._id}`);
    expect(result.optimization?.outputBytes).toBeGreaterThan(0);

    const model = ModelDoc.parse(await (await fetch(`${server.url}/v1/models/${result._id}`)).json());
    expect(model).toEqual(ModelDoc.parse(result));

    const decoded = await decodeContainer(await derivative(server, result.latestVersionKey));
    expect(decoded.format).toBe('glb');
    expect(decoded.header.metadata?.sourceFileName).toBe(name);
    const report = await validateModel(await decompressedGlb(decoded.asset), { fileName: name, repairs: false });
    expect({ name, errors: report.errors, first: report.messages[0] }).toEqual({ name, errors: 0, first: report.messages[0] });
    expect(glbJson(decoded.asset).extensionsUsed).toContain('EXT_meshopt_compression');

    // A new scene owned by the uploader holds the model.
    const scene = await server.store.getScene(result.sceneId!);
    expect(scene?.models.map((m) => m._id)).toEqual([result._id]);
    expect(scene?.ownerId).toBe(server.userId());
    // Validation and optimisation of a real model take seconds, many more on a loaded 2-core machine: a hang guard, not a time goal.
  }, 120_000);

  it('appends to a scene named by sceneId, and refuses an unknown scene (404) or a scene of someone else (403)', async () => {
    const auth = await server.auth();
    const first = ModelUploadResult.parse(await (await postRaw(server, '/v1/models?name=Boxes', await fileBytes('BoxAnimated.glb'), 'BoxAnimated.glb', auth)).json());
    const second = await postRaw(server, `/v1/models?sceneId=${first.sceneId}`, await fileBytes('Duck.glb'), 'Duck.glb', auth);
    expect(second.status).toBe(201);
    const scene = await server.store.getScene(first.sceneId!);
    expect(scene?.name).toBe('Boxes');
    expect(scene?.models.map((m) => m.sourceFileName)).toEqual(['BoxAnimated.glb', 'Duck.glb']);

    const unknown = await postRaw(server, '/v1/models?sceneId=nope', await fileBytes('Duck.glb'), 'Duck.glb', auth);
    expect(unknown.status).toBe(404);
    const other = await postRaw(server, `/v1/models?sceneId=${first.sceneId}`, await fileBytes('Duck.glb'), 'Duck.glb', await server.auth('mallory'));
    expect(other.status).toBe(403);
    expect((await server.store.getScene(first.sceneId!))?.models).toHaveLength(2);
  });

  it('refuses to add a model to a scene without an owner (the demo, CLI imports), as every route that changes a scene does (403)', async () => {
    const auth = await server.auth();
    await ensureDemoScene(server.store);
    const { scene: imported } = await importModel(server.store, { path: join(MODELS_DIR, 'Box-draco.glb') }, { name: 'From the CLI' });
    for (const sceneId of [DEMO_SCENE_ID, imported._id]) {
      const before = await server.store.getScene(sceneId);
      expect(before?.ownerId).toBeUndefined();
      const raw = await postRaw(server, `/v1/models?sceneId=${sceneId}`, await fileBytes('Duck.glb'), 'Duck.glb', auth);
      expect({ sceneId, status: raw.status }).toEqual({ sceneId, status: 403 });
      expect(UploadError.parse(await raw.json()).error).toBe(`You may not change scene '${sceneId}': only its owner and editors may add models.`);
      // The scene named in a multipart field, known only once the form is read.
      const form = new FormData();
      form.append('sceneId', sceneId);
      form.append('file', new Blob([new Uint8Array(await fileBytes('Duck.glb'))]), 'Duck.glb');
      const multipart = await fetch(`${server.url}/v1/models`, { method: 'POST', headers: auth, body: form });
      expect({ sceneId, status: multipart.status }).toEqual({ sceneId, status: 403 });
      // The same answer as a rename of the scene.
      const patch = await fetch(`${server.url}/v1/scenes/${sceneId}`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name":"Mine now"}' });
      expect(patch.status).toBe(403);
      expect(await server.store.getScene(sceneId)).toEqual(before);
    }
  });

  it('with Prefer: respond-async answers 202 at once and reports the upload until it is done (its uploader only)', async () => {
    const auth = await server.auth();
    const res = await postRaw(server, '/v1/models?name=Later', await fileBytes('Duck.glb'), 'Duck.glb', { ...auth, prefer: 'respond-async' });
    expect(res.status).toBe(202);
    const accepted = UploadStatus.parse(await res.json());
    expect(accepted).toMatchObject({ fileName: 'Duck.glb', state: expect.stringMatching(/^(queued|processing)$/) });
    expect(res.headers.get('location')).toBe(`/v1/uploads/${accepted.uploadId}`);

    let status = accepted;
    const states = new Set<string>([status.state]);
    while (status.state !== 'done' && status.state !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const poll = await fetch(`${server.url}/v1/uploads/${accepted.uploadId}`, { headers: auth });
      expect(poll.status).toBe(200);
      status = UploadStatus.parse(await poll.json());
      states.add(status.state);
    }
    expect(status).toMatchObject({ state: 'done', status: 201 });
    const result = ModelUploadResult.parse(status.result);
    expect((await server.store.getScene(result.sceneId!))?.name).toBe('Later');
    expect([...states].every((state) => ['queued', 'processing', 'storing', 'done'].includes(state))).toBe(true);

    const stranger = await fetch(`${server.url}/v1/uploads/${accepted.uploadId}`, { headers: await server.auth('mallory') });
    expect(stranger.status).toBe(404);
    expect((await fetch(`${server.url}/v1/uploads/${accepted.uploadId}`)).status).toBe(401);
  });

  it('reports a refused asynchronous upload as failed, with the status and report it would have had', async () => {
    const auth = await server.auth();
    const res = await postRaw(server, '/v1/models', new TextEncoder().encode('not a model'), 'notes.glb', { ...auth, prefer: 'respond-async' });
    expect(res.status).toBe(202);
    const { uploadId } = UploadStatus.parse(await res.json());
    let status: UploadStatus;
    do {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = UploadStatus.parse(await (await fetch(`${server.url}/v1/uploads/${uploadId}`, { headers: auth })).json());
    } while (status.state !== 'done' && status.state !== 'failed');
    expect(status).toMatchObject({ state: 'failed', status: 400, error: 'notes.glb: Unknown file format (expected a glTF 2.0 .glb or .gltf file)' });
    expect(status.validation?.errors).toBeGreaterThan(0);
  });

  it('accepts a GLB with bytes after its declared end (only a warning for the validator, GLB_EXTRA_DATA), as the viewer does', async () => {
    const auth = await server.auth();
    const extra = await readFile(join(MODELS_DIR, 'malformed', 'glb', 'extra_data.glb'));
    const corpus = await postRaw(server, '/v1/models', new Uint8Array(extra), 'extra_data.glb', auth);
    expect({ status: corpus.status, error: (await corpus.json()).error }).toEqual({ status: 201, error: undefined });

    const duck = await fileBytes('Duck.glb');
    const padded = new Uint8Array(duck.byteLength + 7);
    padded.set(duck);
    padded.set([1, 2, 3, 4, 5, 6, 7], duck.byteLength);
    const res = await postRaw(server, '/v1/models', padded, 'Duck.glb', auth);
    const body = await res.json();
    expect({ status: res.status, error: body.error }).toEqual({ status: 201, error: undefined });
    const result = ModelUploadResult.parse(body);
    expect(result.validation.messages.map((m) => m.code)).toContain('GLB_EXTRA_DATA');
    const decoded = await decodeContainer(await derivative(server, result.latestVersionKey));
    const report = await validateModel(await decompressedGlb(decoded.asset), { fileName: 'Duck.glb', repairs: false });
    expect(report.errors).toBe(0);
    expect(report.messages.map((m) => m.code)).not.toContain('GLB_EXTRA_DATA');
  });

  it('takes a .gltf with its .bin and image as multipart/form-data', async () => {
    const { json, bin } = triangleGltf({ bufferUri: 'triangle.bin', imageUri: 'red%20square.png' });
    const form = new FormData();
    form.append('name', 'Triangle scene');
    form.append('file', new Blob([JSON.stringify(json)], { type: 'model/gltf+json' }), 'triangle.gltf');
    form.append('file', new Blob([new Uint8Array(bin)]), 'triangle.bin');
    form.append('file', new Blob([new Uint8Array(solidPng(4, 4, [255, 0, 0]))], { type: 'image/png' }), 'red square.png');
    const res = await fetch(`${server.url}/v1/models`, { method: 'POST', headers: await server.auth(), body: form });
    const body = await res.json();
    expect({ status: res.status, error: body.error }).toEqual({ status: 201, error: undefined });
    const result = ModelUploadResult.parse(body);
    expect(result.sourceFileName).toBe('triangle.gltf');
    const decoded = await decodeContainer(await derivative(server, result.latestVersionKey));
    const json2 = glbJson(decoded.asset) as { images?: unknown[]; nodes?: { extras?: { nodeId?: string } }[] };
    expect(json2.images).toHaveLength(1);
    expect(json2.nodes?.map((n) => n.extras?.nodeId)).toEqual(['0', '1']);
    expect((await server.store.getScene(result.sceneId!))?.name).toBe('Triangle scene');
  });

  it('refuses a .gltf whose .bin was not uploaded (400, with the validator report)', async () => {
    const { json } = triangleGltf({ bufferUri: 'missing.bin' });
    const res = await postRaw(server, '/v1/models', new TextEncoder().encode(JSON.stringify(json)), 'triangle.gltf', { ...(await server.auth()), 'content-type': 'model/gltf+json' });
    expect(res.status).toBe(400);
    const body = UploadError.parse(await res.json());
    expect(body.validation?.errors).toBeGreaterThan(0);
  });

  it('refuses a file that is not glTF: 400 with the validator messages', async () => {
    const res = await postRaw(server, '/v1/models', new TextEncoder().encode('These are my notes, not a model.'), 'notes.txt', await server.auth());
    expect(res.status).toBe(400);
    const body = UploadError.parse(await res.json());
    expect(body.error).toMatch(/^notes\.txt: Unknown file format/);
    expect(body.validation?.messages[0]).toMatchObject({ severity: 'error', code: 'GLB_INVALID_MAGIC' });
    expect(body.validation?.messages[0].message.length).toBeGreaterThan(5);
  });

  it('refuses every malformed corpus file the validator finds errors in (400 naming its codes)', async () => {
    const auth = await server.auth();
    let refused = 0;
    for (const folder of ['glb', 'buffer']) {
      const dir = join(MODELS_DIR, 'malformed', folder);
      for (const name of (await readdir(dir)).filter((n) => n.endsWith('.glb'))) {
        const expected = JSON.parse(await readFile(join(dir, `${name}.report.json`), 'utf8')) as { issues: { numErrors: number; messages: { code: string; severity: number }[] } };
        if (expected.issues.numErrors === 0) continue;
        const bytes = new Uint8Array(await readFile(join(dir, name)));
        // An empty file is an empty body: refused before the validator (400 too).
        const res = await postRaw(server, '/v1/models', bytes, name, auth);
        const body = UploadError.parse(await res.json());
        expect({ name, status: res.status }).toEqual({ name, status: 400 });
        if (bytes.byteLength > 0) {
          const codes = new Set(body.validation?.messages.filter((m) => m.severity === 'error').map((m) => m.code));
          const wanted = expected.issues.messages.filter((m) => m.severity === 0).map((m) => m.code);
          expect({ name, missing: wanted.filter((c) => !codes.has(c)) }).toEqual({ name, missing: [] });
        }
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(20);
  });

  it('answers 401 without a token, before reading the body, for both forms', async () => {
    const raw = await postRaw(server, '/v1/models', await fileBytes('Duck.glb'), 'Duck.glb');
    expect(raw.status).toBe(401);
    expect(UploadError.parse(await raw.json()).error).toMatch(/[Ss]ign in/);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await fileBytes('Duck.glb'))]), 'Duck.glb');
    const multipart = await fetch(`${server.url}/v1/models`, { method: 'POST', body: form });
    expect(multipart.status).toBe(401);
  });

  it('answers 415 for another content type', async () => {
    const res = await postRaw(server, '/v1/models', await fileBytes('Duck.glb'), 'Duck.glb', { ...(await server.auth()), 'content-type': 'text/html' });
    expect(res.status).toBe(415);
  });
});

describe('POST /v1/models when every worker is busy and the queue is full', () => {
  let server: UploadServer;
  beforeAll(async () => {
    server = await startUploadServer({ UPLOAD_WORKERS: '1', UPLOAD_QUEUE: '0' });
  });
  afterAll(() => server.close());

  it('answers 503 with Retry-After before reading the body, and takes uploads again once the worker is free', { timeout: 120_000 }, async () => {
    const auth = await server.auth();
    const helmet = await fileBytes('DamagedHelmet.glb');
    // Accepted at once (respond-async): the worker takes seconds over it.
    const first = await postRaw(server, '/v1/models', helmet, 'DamagedHelmet.glb', { ...auth, prefer: 'respond-async' });
    expect(first.status).toBe(202);
    const { uploadId } = UploadStatus.parse(await first.json());

    const busy = await postRaw(server, '/v1/models', await fileBytes('Duck.glb'), 'Duck.glb', auth);
    expect(busy.status).toBe(503);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(UploadError.parse(await busy.json()).error).toMatch(/^The server is busy: 1 uploads are being processed and 0 are waiting \(UPLOAD_QUEUE\)/);

    let status: UploadStatus;
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = UploadStatus.parse(await (await fetch(`${server.url}/v1/uploads/${uploadId}`, { headers: auth })).json());
    } while (status.state !== 'done' && status.state !== 'failed');
    expect(status.state).toBe('done');
    expect((await postRaw(server, '/v1/models', await fileBytes('Duck.glb'), 'Duck.glb', auth)).status).toBe(201);
  });
});

describe('POST /v1/models with a size limit', () => {
  let server: UploadServer;
  beforeAll(async () => {
    server = await startUploadServer({ MAX_ASSET_BYTES: '50000' });
  });
  afterAll(() => server.close());

  it('answers 413 with a clear message for an oversize upload (raw, chunked, and multipart) and stores nothing', { timeout: 120_000 }, async () => {
    const auth = await server.auth();
    const big = await fileBytes('Duck.glb'); // 120,484 bytes
    const raw = await postRaw(server, '/v1/models', big, 'Duck.glb', auth);
    expect(raw.status).toBe(413);
    expect(UploadError.parse(await raw.json()).error).toMatch(/larger than the limit of 50000 bytes \(MAX_ASSET_BYTES\)/);

    // Without a Content-Length (chunked): counted while streaming.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < big.length; i += 16384) controller.enqueue(big.subarray(i, i + 16384));
        controller.close();
      },
    });
    const chunked = await fetch(`${server.url}/v1/models`, {
      method: 'POST',
      headers: { 'content-type': 'model/gltf-binary', 'x-file-name': 'Duck.glb', ...auth },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(big)]), 'Duck.glb');
    const multipart = await fetch(`${server.url}/v1/models`, { method: 'POST', headers: auth, body: form });
    expect(multipart.status).toBe(413);
    expect(UploadError.parse(await multipart.json()).error).toMatch(/MAX_ASSET_BYTES/);

    expect(await server.store.listScenes()).toEqual([]);
    // A small model still fits.
    expect((await postRaw(server, '/v1/models', await fileBytes('BoxAnimated.glb'), 'BoxAnimated.glb', auth)).status).toBe(201);
  });
});
