import { request as httpRequest } from 'node:http';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { createApp, type AppOptions } from '../../src/server/app.ts';
import { loadServerConfig, type ServerConfig } from '../../src/server/config.ts';
import { openStore, type Store } from '../../src/server/store.ts';

/** The repository root and the shared, read-only model corpus next to it. */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const MODELS_DIR = resolve(REPO_ROOT, '../shared/models');

export const INDEX_HTML = '<!doctype html><html><head><title>test app</title></head><body><div id="root"></div></body></html>\n';

/** A fresh temporary folder; removed by the returned cleanup. */
export async function tempDir(prefix = 'svc-'): Promise<string> {
  return mkdtemp(join(tmpdir(), `parametricos-${prefix}`));
}

export interface TestServer {
  url: string;
  port: number;
  config: ServerConfig;
  store: Store;
  app: FastifyInstance;
  dataDir: string;
  distDir: string;
  close(): Promise<void>;
}

/**
 * Starts the app on a free port with a temporary DATA_DIR and a DIST_DIR holding a tiny index.html
 * (unless `withIndex` is false), a decoder file under /libs and a hashed asset under /assets.
 * The store is SQLite in DATA_DIR, or PostgreSQL when `env.DATABASE_URL` is given.
 */
export async function startServer(options: { withIndex?: boolean; env?: Record<string, string>; app?: AppOptions } = {}): Promise<TestServer> {
  const root = await tempDir('server-');
  const dataDir = join(root, 'data');
  const distDir = join(root, 'dist');
  await mkdir(join(distDir, 'libs', 'draco'), { recursive: true });
  await mkdir(join(distDir, 'assets'), { recursive: true });
  if (options.withIndex !== false) await writeFile(join(distDir, 'index.html'), INDEX_HTML);
  // The wasm magic and version: enough for a content-type check.
  await writeFile(join(distDir, 'libs', 'draco', 'draco_decoder.wasm'), new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  await writeFile(join(distDir, 'libs', 'draco', 'draco_decoder.js'), 'export {};\n');
  await writeFile(join(distDir, 'assets', 'index-AbCdEf12.js'), 'console.log("app");\n');
  await writeFile(join(distDir, '.secret'), 'hidden');

  const config = loadServerConfig({ DATA_DIR: dataDir, DIST_DIR: distDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...options.env });
  const store = await openStore(config);
  const app = await createApp(config, store, options.app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    config,
    store,
    app,
    dataDir,
    distDir,
    async close() {
      await app.close();
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request whose path goes on the wire exactly as given (fetch would normalise '..' away). */
export function rawRequest(port: number, path: string, method = 'GET'): Promise<RawResponse> {
  return new Promise((resolvePromise, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The JSON chunk of a GLB. */
export function glbJson(glb: Uint8Array): { nodes?: unknown[]; meshes?: unknown[]; materials?: unknown[]; animations?: unknown[]; extensionsUsed?: string[] } {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const length = view.getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length)));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A valid RGB PNG of one colour (written here, so the tests carry no binary fixtures). */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    Buffer.from(data).copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set(rgb, y * (1 + width * 3) + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/** A one-triangle glTF: JSON plus its binary buffer (positions, normals, uvs, indices). */
export function triangleGltf(options: { bufferUri: string; imageUri?: string }): { json: Record<string, unknown>; bin: Uint8Array } {
  const positions = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  const normals = new Float32Array([0, 0, 1, 0, 0, 1, 0, 0, 1]);
  const uvs = new Float32Array([0, 1, 1, 1, 0, 0]);
  const indices = new Uint16Array([0, 1, 2, 0]); // padded to 4 bytes
  const bin = new Uint8Array(36 + 36 + 24 + 8);
  bin.set(new Uint8Array(positions.buffer), 0);
  bin.set(new Uint8Array(normals.buffer), 36);
  bin.set(new Uint8Array(uvs.buffer), 72);
  bin.set(new Uint8Array(indices.buffer), 96);
  const json: Record<string, unknown> = {
    asset: { version: '2.0', generator: 'service test' },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ name: 'Triangle', mesh: 0, children: [1] }, { name: 'Child', translation: [0, 0, 1] }],
    meshes: [{ name: 'Triangle', primitives: [{ attributes: { POSITION: 0, NORMAL: 1, TEXCOORD_0: 2 }, indices: 3, material: 0 }] }],
    materials: [{ name: 'Red', pbrMetallicRoughness: { baseColorFactor: [1, 0, 0, 1] } }],
    buffers: [{ uri: options.bufferUri, byteLength: bin.byteLength }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: 72, byteStride: 12, target: 34962 },
      { buffer: 0, byteOffset: 72, byteLength: 24, target: 34962 },
      { buffer: 0, byteOffset: 96, byteLength: 6, target: 34963 },
    ],
    accessors: [
      { bufferView: 0, byteOffset: 0, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] },
      { bufferView: 0, byteOffset: 36, componentType: 5126, count: 3, type: 'VEC3' },
      { bufferView: 1, componentType: 5126, count: 3, type: 'VEC2' },
      { bufferView: 2, componentType: 5123, count: 3, type: 'SCALAR' },
    ],
  };
  if (options.imageUri) {
    json.images = [{ uri: options.imageUri }];
    json.textures = [{ source: 0 }];
    (json.materials as Record<string, Record<string, unknown>>[])[0].pbrMetallicRoughness.baseColorTexture = { index: 0 };
  }
  return { json, bin };
}
