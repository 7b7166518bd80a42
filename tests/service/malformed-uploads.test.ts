import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestToken } from '../../src/server/auth/tokens.ts';
import { MAX_GLTF_JSON_DEPTH } from '../../src/server/upload/validate.ts';
import { startServer, type TestServer } from './helpers.ts';

/**
 * Bad upload input (issue 33, item 3): malformed multipart bodies and a .gltf nested 100,000 deep
 * answered 500 (busboy's "Unexpected end of multipart data" and the validator's stack overflow
 * reached the error handler as server faults). Each is a 400 with the reason, on the model and
 * the asset upload, and nothing is stored.
 */

const BOUNDARY = 'FormBoundary7MA4YWxk';

/** One raw request on its own connection; the answer's status line and JSON body. */
function send(port: number, head: string, body: string): Promise<{ status: number; body: { error?: string } }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head + body));
    let text = '';
    socket.on('data', (data) => (text += data.toString('utf8')));
    socket.on('error', () => {});
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0);
      const json = text.slice(text.indexOf('\r\n\r\n') + 4);
      try {
        resolve({ status, body: JSON.parse(json) });
      } catch {
        reject(new Error(`not a JSON answer: ${text.slice(0, 300)}`));
      }
    });
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

describe('malformed uploads answer 400 with the reason', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    // A short body deadline: a form cut short waits for no more than that.
    server = await startServer({ app: { timeouts: { bodyMs: 1000 } } });
    ({ token } = await signTestToken(server.dataDir, { firstName: 'Form', lastName: 'Breaker' }));
  });
  afterAll(() => server.close());

  const form = (path: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  const part = (disposition: string, content: string) => `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n${content}\r\n`;

  const CASES: [string, string, RegExp][] = [
    ['a body cut short in a part', `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.glb"\r\n\r\nglTF-and-no-end`, /^The multipart form is malformed: Unexpected end of multipart data\./],
    ['a part header without its end', `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.glb"\r\n`, /^The multipart form is malformed: /],
    ['a part without a name, whose file is empty', `${part('form-data; filename="a.glb"', '')}--${BOUNDARY}--\r\n`, /^The form's file part 'a\.glb' is empty: send the file's content in it\.$/],
    ['a file part with no content', `${part('form-data; name="file"; filename="pump.glb"', '')}--${BOUNDARY}--\r\n`, /^The form's file part 'pump\.glb' is empty/],
    ['a part with no headers', `--${BOUNDARY}\r\n\r\nglTF\r\n--${BOUNDARY}--\r\n`, /^The form has no \.glb or \.gltf file/],
    ['no parts at all', `--${BOUNDARY}--\r\n`, /^The form has no \.glb or \.gltf file/],
  ];

  for (const path of ['/v1/models', '/v1/assets']) {
    it(`${path}: each malformed form`, async () => {
      for (const [label, body, reason] of CASES) {
        const answer = await send(server.port, form(path, body), body);
        expect({ label, status: answer.status }).toEqual({ label, status: 400 });
        expect({ label, error: answer.body.error }).toEqual({ label, error: expect.stringMatching(reason) });
      }
      expect(await server.store.listScenes()).toEqual([]);
    });
  }

  it('a .gltf nested 100,000 deep, raw and in a form, and a GLB whose JSON chunk is', { timeout: 120_000 }, async () => {
    const deep = `{"asset":{"version":"2.0"},"extras":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const headers = { authorization: `Bearer ${token}` };
    const raw = await fetch(`${server.url}/v1/models`, { method: 'POST', headers: { ...headers, 'content-type': 'model/gltf+json', 'x-file-name': 'deep.gltf' }, body: deep });
    const message = `The glTF JSON is nested 100001 levels deep; at most ${MAX_GLTF_JSON_DEPTH} are allowed.`;
    expect(raw.status).toBe(400);
    const answer = (await raw.json()) as { error: string; validation: { messages: { code: string; message: string }[] } };
    expect(answer.error).toContain(message);
    expect(answer.validation.messages[0]).toMatchObject({ code: 'JSON_TOO_DEEP', message });

    const formBody = new FormData();
    formBody.append('file', new Blob([deep]), 'deep.gltf');
    const viaForm = await fetch(`${server.url}/v1/assets`, { method: 'POST', headers, body: formBody });
    expect(viaForm.status).toBe(400);
    expect(((await viaForm.json()) as { error: string }).error).toContain(message);

    const json = new TextEncoder().encode(deep.padEnd(Math.ceil(deep.length / 4) * 4, ' '));
    const glb = new Uint8Array(20 + json.length);
    const view = new DataView(glb.buffer);
    view.setUint32(0, 0x46546c67, true);
    view.setUint32(4, 2, true);
    view.setUint32(8, glb.length, true);
    view.setUint32(12, json.length, true);
    view.setUint32(16, 0x4e4f534a, true);
    glb.set(json, 20);
    const binary = await fetch(`${server.url}/v1/models`, { method: 'POST', headers: { ...headers, 'content-type': 'model/gltf-binary' }, body: glb });
    expect(binary.status).toBe(400);
    expect(((await binary.json()) as { error: string }).error).toContain(message);
    expect(await server.store.listScenes()).toEqual([]);
  });
});
