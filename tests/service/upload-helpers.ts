import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder, MeshoptEncoder } from 'meshoptimizer';
import { createApp } from '../../src/server/app.ts';
import { loadServerConfig, type ServerConfig } from '../../src/server/config.ts';
import { openFileStore, type Store } from '../../src/server/store.ts';
import { developmentUserId, signTestToken } from '../../src/server/auth/tokens.ts';
import { INDEX_HTML, tempDir } from './helpers.ts';

/**
 * The app with the upload and asset routes on a free port and a temporary DATA_DIR. Signed-in
 * requests carry development tokens signed with that DATA_DIR's key (src/server/auth/tokens.ts),
 * which the app's identity plugin turns into `request.user`.
 */
export interface UploadServer {
  url: string;
  config: ServerConfig;
  store: Store;
  app: FastifyInstance;
  dataDir: string;
  /** Headers of a request signed in as the person `name` (a development token, or a test token). */
  auth(name?: string): Promise<Record<string, string>>;
  /** The user id the server sees for `name`. */
  userId(name?: string): string;
  close(): Promise<void>;
}

export async function startUploadServer(env: Record<string, string> = {}): Promise<UploadServer> {
  const root = await tempDir('upload-');
  const dataDir = join(root, 'data');
  const distDir = join(root, 'dist');
  await mkdir(distDir, { recursive: true });
  await writeFile(join(distDir, 'index.html'), INDEX_HTML);
  const config = loadServerConfig({ DATA_DIR: dataDir, DIST_DIR: distDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env });
  const store = await openFileStore(config.dataDir);
  const app = await createApp(config, store);

  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    store,
    app,
    dataDir,
    async auth(name = 'alice') {
      const { token } = await signTestToken(config.dataDir, { firstName: 'Test', lastName: name });
      return { authorization: `Bearer ${token}` };
    },
    userId: (name = 'alice') => developmentUserId('Test', name),
    async close() {
      await app.close();
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** POSTs a file as the raw body with its name in X-File-Name. */
export function postRaw(server: UploadServer, path: string, bytes: Uint8Array, fileName: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'model/gltf-binary', 'x-file-name': encodeURIComponent(fileName), ...headers },
    body: new Uint8Array(bytes),
  });
}

/** Reads a GLB with every extension and codec (meshopt, Draco) registered. */
export async function readGlb(glb: Uint8Array) {
  await Promise.all([MeshoptDecoder.ready, MeshoptEncoder.ready]);
  return new NodeIO().registerExtensions(ALL_EXTENSIONS).registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder }).readBinary(glb);
}

/**
 * The GLB with its meshopt compression undone (EXT_meshopt_compression cannot be checked by the
 * validator, which does not decode it): what the viewer sees after decoding.
 */
export async function decompressedGlb(glb: Uint8Array): Promise<Uint8Array> {
  const doc = await readGlb(glb);
  for (const extension of doc.getRoot().listExtensionsUsed()) {
    if (extension.extensionName === 'EXT_meshopt_compression') extension.dispose();
  }
  return new NodeIO().registerExtensions(ALL_EXTENSIONS).writeBinary(doc);
}

export async function readModelFile(path: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(path));
}
