import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientConfig, type ServerConfig } from './config.ts';
import { DERIVATIVE_FILE_NAME, StoreError, isValidId, isValidVersionKey, type Store } from './store.ts';

/**
 * The HTTP app of the first server: the read side of the model service (REST under /v1), the
 * derivative CDN (/cdn/derivatives) and the built browser app from DIST_DIR with a fallback to
 * index.html for the app's routes. Every error answer is JSON `{ error }`.
 */

/** One entry of GET /v1/scenes. */
export interface SceneSummary {
  id: string;
  name: string;
  modelCount: number;
  thumbnailUrl?: string;
}

/** Routes the browser app handles itself; they get index.html. */
const APP_ROUTES = ['/', '/embed', '/embed/*', '/edit', '/edit/*'];

/** Containers never change under a version key: cache them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

class HttpError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}

function sendError(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply.code(statusCode).header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ error: message });
}

function checkId(kind: string, id: string): void {
  if (!isValidId(id)) throw new HttpError(400, `Invalid ${kind} id '${id}': use 1-64 characters of A-Z a-z 0-9 _ -`);
}

function isAppRoute(url: string): boolean {
  return url === '/' || /^\/(embed|edit)(\/|$)/.test(url);
}

export async function createApp(config: ServerConfig, store: Store): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors: (error, _request, reply) => {
      const badUrl = error.code === 'FST_ERR_BAD_URL';
      sendError(reply, badUrl ? 400 : 500, badUrl ? 'Malformed URL' : error.message);
    },
  });

  // Graceful close: responses in flight finish, then their keep-alive connections are closed at
  // once instead of lingering for the keep-alive timeout ('idle' closes only those idle at the start).
  let drain: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    drain = setInterval(() => app.server.closeIdleConnections(), 50);
    drain.unref();
  });
  app.addHook('onClose', async () => clearInterval(drain));

  app.setErrorHandler((error: FastifyError | HttpError | StoreError, request, reply) => {
    let status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (error instanceof StoreError) status = error.code === 'CORRUPT' ? 500 : 400;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return sendError(reply, status, 'Internal server error (see the server log)');
    }
    return sendError(reply, status, error.message);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendError(reply, 404, `Not found: ${request.method} ${path}`);
  });

  // Public, read-only data: any page may read it (a host page, a CDN on another origin).
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/v1/') || request.url.startsWith('/cdn/')) {
      reply.header('access-control-allow-origin', '*');
    }
    return payload;
  });

  // ----- REST (DESIGN.md 4.4) -----

  app.get('/v1/config', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return clientConfig(config);
  });

  app.get('/v1/scenes', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    const scenes = await store.listScenes();
    const list: SceneSummary[] = scenes.map((scene) => ({
      id: scene._id,
      name: scene.name,
      modelCount: scene.models.length,
      ...(scene.thumbnailUrl ? { thumbnailUrl: scene.thumbnailUrl } : {}),
    }));
    return { scenes: list };
  });

  app.get<{ Params: { id: string } }>('/v1/scenes/:id', async (request, reply) => {
    const { id } = request.params;
    checkId('scene', id);
    const scene = await store.getScene(id);
    if (!scene) throw new HttpError(404, `Scene '${id}' not found`);
    reply.header('cache-control', 'no-cache');
    return scene;
  });

  app.get<{ Params: { id: string } }>('/v1/models/:id', async (request, reply) => {
    const { id } = request.params;
    checkId('model', id);
    const model = await store.getModel(id);
    if (!model) throw new HttpError(404, `Model '${id}' not found`);
    reply.header('cache-control', 'no-cache');
    return model;
  });

  // ----- Derivative CDN: /cdn/derivatives/{versionKey}/model_file.binz -----

  app.get<{ Params: { '*': string } }>('/cdn/derivatives/*', async (request, reply) => {
    const rest = request.params['*'];
    const suffix = `/${DERIVATIVE_FILE_NAME}`;
    const versionKey = rest.endsWith(suffix) ? rest.slice(0, -suffix.length) : '';
    if (!isValidVersionKey(versionKey)) {
      throw new HttpError(400, `Invalid derivative path '${rest}': expected {versionKey}/${DERIVATIVE_FILE_NAME}`);
    }
    const file = store.derivativePath(versionKey);
    let info;
    try {
      info = await stat(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') {
        throw new HttpError(404, `No model file for version '${versionKey}'`);
      }
      throw error;
    }
    if (!info.isFile()) throw new HttpError(404, `No model file for version '${versionKey}'`);
    const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    reply.header('etag', etag).header('cache-control', IMMUTABLE).header('last-modified', info.mtime.toUTCString());
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
      return reply.code(304).send();
    }
    reply.type('application/octet-stream').header('content-length', info.size);
    return reply.send(createReadStream(file));
  });

  // ----- The browser app (DIST_DIR) -----

  await app.register(fastifyStatic, {
    root: config.distDir,
    prefix: '/',
    index: false,
    redirect: false,
    dotfiles: 'ignore',
    suppressWarning: true,
    // Vite content-hashes everything under /assets; other files (decoders, our public files) may change.
    setHeaders: (reply: FastifyReply, path: string) => {
      const relative = path.slice(config.distDir.length).replace(/\\/g, '/');
      if (relative.startsWith('/assets/') && /-[A-Za-z0-9_-]{8,}\.\w+$/.test(relative)) reply.header('cache-control', IMMUTABLE);
      else if (relative.endsWith('.html')) reply.header('cache-control', 'no-cache');
      else reply.header('cache-control', 'public, max-age=3600');
    },
  });

  const indexHtml = join(config.distDir, 'index.html');
  const serveApp = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isAppRoute(request.url.split('?')[0])) return reply.callNotFound();
    try {
      if (!(await stat(indexHtml)).isFile()) throw new Error('not a file');
    } catch {
      return sendError(reply, 503, `The viewer app is not built: ${indexHtml} is missing. Run \`npm run build\` (or \`npm start\`, which builds it).`);
    }
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html', config.distDir, { cacheControl: false });
  };
  for (const url of APP_ROUTES) app.get(url, serveApp);

  return app;
}
