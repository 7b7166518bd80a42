import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import authPlugin from './auth/plugin.ts';
import { createTokenVerifier, type TokenVerifier } from './auth/tokens.ts';
import { clientConfig, type ServerConfig } from './config.ts';
import authRoutes from './routes/auth.ts';
import cdnRoutes, { IMMUTABLE } from './routes/cdn.ts';
import { HttpError, sendError } from './routes/http.ts';
import modelRoutes from './routes/models.ts';
import mutationRoutes from './routes/mutations.ts';
import assetRoutes from './routes/assets.ts';
import sceneRoutes from './routes/scenes.ts';
import uploadRoutes from './routes/uploads.ts';
import { StoreError, type Store } from './store.ts';

/**
 * The HTTP app: the model service (REST under /v1, DESIGN.md 4.4), sign-in and the development
 * identity provider (/auth, /.well-known), the CDNs (/cdn) and the built browser app from
 * DIST_DIR with a fallback to index.html for the app's routes. Every error answer is JSON
 * `{ error }` naming what is wrong; every request carries `request.user` (auth/plugin.ts).
 */

export type { SceneSummary } from '../protocol/scene-api.ts';

/** Routes the browser app handles itself; they get index.html. */
const APP_ROUTES = ['/', '/embed', '/embed/*', '/edit', '/edit/*'];

/** The default body limit (JSON bodies of scenes); routes that take more say so. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

function isAppRoute(url: string): boolean {
  return url === '/' || /^\/(embed|edit)(\/|$)/.test(url);
}

/** Clear messages for Fastify's own body errors (they carry a code and a status). */
function describeFrameworkError(error: FastifyError, request: FastifyRequest): string | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'The JSON body is empty' : `Malformed JSON body: ${error.message}`;
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT;
      return `The request body is larger than the limit of ${limit} bytes`;
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return `Unsupported Content-Type '${request.headers['content-type'] ?? ''}' for ${request.method} ${request.url.split('?')[0]}: send application/json`;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'The Content-Length header does not match the body';
    default:
      return undefined;
  }
}

/** A key that would change an object's prototype if the body were merged into another object. */
function hasPrototypeKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasPrototypeKey);
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return true;
    const child = (value as Record<string, unknown>)[key];
    if (key === 'constructor' && typeof child === 'object' && child !== null && 'prototype' in child) return true;
    if (hasPrototypeKey(child)) return true;
  }
  return false;
}

/** A string anywhere in the value with a NUL character (PostgreSQL cannot store one in JSON). */
function hasNulCharacter(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  const values = Array.isArray(value) ? value : [...Object.keys(value), ...Object.values(value)];
  return values.some(hasNulCharacter);
}

/** JSON bodies with the parser's own reason when they are malformed (position included). */
function parseJsonBody(_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.trim() === '') return done(new HttpError(400, 'The JSON body is empty'));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return done(new HttpError(400, `Malformed JSON body: ${(error as Error).message}`));
  }
  // Prototype poisoning: only bodies that mention the keys are walked.
  if ((text.includes('__proto__') || text.includes('constructor')) && hasPrototypeKey(value)) {
    return done(new HttpError(400, 'The JSON body must not have "__proto__" or "constructor.prototype" keys'));
  }
  // Same answer whatever the database: NUL is refused by PostgreSQL's JSON, so by us.
  if (text.includes('\\u0000') && hasNulCharacter(value)) return done(new HttpError(400, 'The JSON body must not contain the NUL character (\\u0000)'));
  done(null, value);
}

export interface AppOptions {
  /** Verifies bearer tokens; default: the configured identity provider's. */
  verifyToken?: TokenVerifier;
}

export async function createApp(config: ServerConfig, store: Store, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    bodyLimit: DEFAULT_BODY_LIMIT,
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

  app.setErrorHandler((error: FastifyError | StoreError | Error, request, reply) => {
    let status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
    let message = error.message;
    if (error instanceof StoreError) {
      status = error.code === 'CORRUPT' ? 500 : error.code === 'CONFLICT' ? 409 : 400;
    } else if ('code' in error && typeof error.code === 'string') {
      message = describeFrameworkError(error as FastifyError, request) ?? message;
    }
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return sendError(reply, status, status === 503 || status === 502 ? message : 'Internal server error (see the server log)');
    }
    return sendError(reply, status, message);
  });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendError(reply, 404, `Not found: ${request.method} ${path}`);
  });

  // The API and the CDNs may be called from any origin (host pages, a viewer on another host):
  // requests carry bearer tokens, never cookies, so '*' is safe.
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/v1/') || request.url.startsWith('/cdn/')) {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', 'etag, location, www-authenticate');
    }
    return payload;
  });
  app.options('/v1/*', async (_request, reply) =>
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, HEAD, POST, PUT, PATCH, OPTIONS')
      .header('access-control-allow-headers', 'authorization, content-type')
      .header('access-control-max-age', '600')
      .send(),
  );

  // ----- Identity: request.user on every request -----

  await app.register(authPlugin, { verify: options.verifyToken ?? (await createTokenVerifier(config)) });

  // ----- REST (DESIGN.md 4.4), sign-in, CDNs -----

  app.get('/v1/config', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return clientConfig(config);
  });

  const ROUTE_PLUGINS = [
    sceneRoutes,
    modelRoutes,
    mutationRoutes,
    authRoutes,
    cdnRoutes,
    uploadRoutes, // POST /v1/models: upload, validation, optimisation (issue 3, part 5)
    assetRoutes, // the asset CDN and asset uploads (issue 3, part 5)
  ];
  for (const plugin of ROUTE_PLUGINS) await app.register(plugin, { config, store });

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
