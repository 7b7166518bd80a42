import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import authPlugin from './auth/plugin.ts';
import { createTokenVerifier, type TokenVerifier } from './auth/tokens.ts';
import { clientConfig, type ServerConfig } from './config.ts';
import { attachMeetings, type MeetingsOptions } from './meetings/index.ts';
import authRoutes from './routes/auth.ts';
import cdnRoutes, { IMMUTABLE } from './routes/cdn.ts';
import { HttpError, sendError, setRetryAfter } from './routes/http.ts';
import modelRoutes from './routes/models.ts';
import mutationRoutes from './routes/mutations.ts';
import textureRoutes from './routes/textures.ts';
import assetRoutes from './routes/assets.ts';
import { storedBytesOf } from './routes/stored-bytes.ts';
import sceneRoutes from './routes/scenes.ts';
import sceneObjectRoutes from './routes/scene-objects.ts';
import instanceRoutes from './routes/instances.ts';
import { createInstanceService, type InstanceService } from './instances.ts';
import commentRoutes from './routes/comments.ts';
import uploadRoutes, { createUploadService, removeStaleSpools, spoolRoot, type UploadService } from './routes/uploads.ts';
import { COMMON_HEADERS, CSP_REPORT_PATH, pageHeaders } from './security-headers.ts';
import { createIndexPage } from './index-page.ts';
import { bodyWithDeadline, drainBeforeAnswer } from './request-body.ts';
import { hasPrototypeKeys } from './db/prototype-keys.ts';
import { jsonDepth } from './json-depth.ts';
import { createRateWindow } from './rate-window.ts';

export { jsonDepth };
import { StoreError, type Store } from './store.ts';

/**
 * The HTTP app: the model service (REST under /v1, DESIGN.md 4.4), sign-in and the development
 * identity provider (/auth, /.well-known), the CDNs (/cdn) and the built browser app from
 * DIST_DIR with a fallback to index.html for the app's routes. Every error answer is JSON
 * `{ error }` naming what is wrong; every request carries `request.user` (auth/plugin.ts).
 */

export type { SceneSummary } from '../protocol/scene-api.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the app (method and URL pattern as registered), HEAD routes included. */
    routeTable: readonly { method: string; url: string }[];
    /** The upload service: its worker pool, jobs and per-person quotas (for metrics and tests). */
    uploads: UploadService;
  }
}

/** Routes the browser app handles itself; they get index.html. */
const APP_ROUTES = ['/', '/embed', '/embed/*', '/edit', '/edit/*'];

/** Where other origins may call us (CORS), and what they may send and read. */
/** /api/: the host API's client module (dist/api/viewer-client.js), imported by host pages of any origin. */
const CORS_PREFIXES = ['/v1/', '/cdn/', '/api/'];
/** x-file-name: the raw upload's file name; prefer: `respond-async` uploads (routes/uploads.ts). */
export const CORS_ALLOWED_HEADERS = 'authorization, content-type, x-file-name, prefer';
const CORS_EXPOSED_HEADERS = 'etag, location, retry-after, www-authenticate';

/** Bounds of the CSP report sink (POST /csp-reports): a report's size, and how many a minute. */
export const CSP_REPORT_MAX_BYTES = 16 * 1024;
export const CSP_REPORTS_PER_MINUTE_PER_ADDRESS = 30;
export const CSP_REPORTS_PER_MINUTE = 600;

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

/**
 * The deepest nesting of arrays and objects a JSON body may have. Our documents nest a dozen levels
 * at most; the checks below and the stores' JSON.stringify recurse, and a 20 KB body nested 10,000
 * deep would overflow their stack (a 500 instead of a 400).
 */
export const MAX_JSON_DEPTH = 64;

/** A string anywhere in the value with a NUL character (PostgreSQL cannot store one in JSON). */
function hasNulCharacter(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  const values = Array.isArray(value) ? value : [...Object.keys(value), ...Object.values(value)];
  return values.some(hasNulCharacter);
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** JSON bodies with the parser's own reason when they are malformed (position included). */
function parseJsonBody(_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void {
  let text: string;
  try {
    // JSON is UTF-8 (RFC 8259): bytes that are not are refused, not replaced with U+FFFD and kept.
    text = typeof body === 'string' ? body : STRICT_UTF8.decode(body);
  } catch {
    return done(new HttpError(400, 'The JSON body is not valid UTF-8'));
  }
  if (text.trim() === '') return done(new HttpError(400, 'The JSON body is empty'));
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) return done(new HttpError(400, `The JSON body is nested ${depth} levels deep; at most ${MAX_JSON_DEPTH} are allowed`));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return done(new HttpError(400, `Malformed JSON body: ${(error as Error).message}`));
  }
  // Prototype poisoning: the keys of the parsed value, however the text spells them ("\u005f_proto__").
  if (hasPrototypeKeys(value)) {
    return done(new HttpError(400, 'The JSON body must not have "__proto__" or "constructor.prototype" keys'));
  }
  // Same answer whatever the database: NUL is refused by PostgreSQL's JSON, so by us.
  if (text.includes('\\u0000') && hasNulCharacter(value)) return done(new HttpError(400, 'The JSON body must not contain the NUL character (\\u0000)'));
  done(null, value);
}

/**
 * How long a client may take (issue 10, item 6). A phone uploading MAX_ASSET_BYTES (64 MiB) at
 * 300 kbit/s needs 30 minutes: `request` allows twice that for the whole request, and uploads
 * must keep at least `uploadMinBytesPerS` on average (routes/uploads.ts), so a client trickling a
 * body is cut off within minutes; other bodies (JSON, at most 8 MiB) get `body` in all.
 */
export interface HttpTimeouts {
  /** A connection with nothing sent either way for this long is closed (Node's server.timeout). */
  idleMs: number;
  /** The request line and headers must arrive within this (Slowloris). */
  headersMs: number;
  /** A non-upload request's body must arrive within this (408 otherwise). */
  bodyMs: number;
  /** The whole request, headers and body, must arrive within this (an upload's body included). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
  /** An upload's body must come at least this fast on average (bytes per second)... */
  uploadMinBytesPerS: number;
  /** ...once this long has passed since it started. */
  uploadGraceMs: number;
}

export const HTTP_TIMEOUTS: Readonly<HttpTimeouts> = {
  idleMs: 60_000,
  headersMs: 30_000,
  bodyMs: 60_000,
  requestMs: 60 * 60_000,
  keepAliveMs: 72_000,
  // 4 KiB/s is 32 kbit/s, below any phone network that uploads at all: slower is a client holding a socket.
  uploadMinBytesPerS: 4 * 1024,
  uploadGraceMs: 60_000,
};

/**
 * A request Node's HTTP parser cannot read (a malformed request line or header, headers too large,
 * too slow): answered in our `{ error }` form with the reason, then the connection is closed.
 */
function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, label, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are larger than this server accepts (16 KiB)']
        : [400, 'Bad Request', `Malformed HTTP request (${error.code ?? 'parse error'}): ${String((error as { reason?: string }).reason ?? error.message).slice(0, 200)}`];
  const body = JSON.stringify({ error: message });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${label}\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

export interface AppOptions {
  /** Verifies bearer tokens; default: the configured identity provider's. */
  verifyToken?: TokenVerifier;
  /** Overrides of HTTP_TIMEOUTS (tests use short ones). */
  timeouts?: Partial<HttpTimeouts>;
  /** Meeting server options (tests: short intervals, a bus of their own). */
  meetings?: Omit<MeetingsOptions, 'verifyToken'>;
}

export async function createApp(config: ServerConfig, store: Store, options: AppOptions = {}): Promise<FastifyInstance> {
  const timeouts: HttpTimeouts = { ...HTTP_TIMEOUTS, ...config.httpTimeouts, ...options.timeouts };
  const app = Fastify({
    logger: { level: config.logLevel },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    bodyLimit: DEFAULT_BODY_LIMIT,
    connectionTimeout: timeouts.idleMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    clientErrorHandler: answerClientError,
    // Errors of the router before any route runs: the URL's fault (400, 414), or ours (500).
    frameworkErrors: (error, _request, reply) => {
      if (error.code === 'FST_ERR_BAD_URL') return sendError(reply, 400, 'Malformed URL: a part of the path is not valid percent-encoding');
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendError(reply, 414, 'A part of the URL path is longer than the 100 characters any id may have');
      reply.log.error({ err: error }, 'routing failed');
      return sendError(reply, 500, 'Internal server error (see the server log)');
    },
  });

  app.server.headersTimeout = timeouts.headersMs;
  // Node checks the request and headers deadlines this often (default 30 s): often enough for both.
  if (timeouts.headersMs < 30_000) (app.server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval = timeouts.headersMs / 2;

  // A body other than an upload's must arrive within timeouts.bodyMs: a client trickling it is cut
  // off with 408. The timer and the stream it takes belong to the request and end with its
  // response, however it ends (request-body.ts).
  app.addHook('preParsing', async (request, reply, payload) => {
    if ((request.routeOptions.config as { upload?: boolean } | undefined)?.upload) return payload;
    return bodyWithDeadline(reply, payload, timeouts.bodyMs);
  });
  // An answer given before the body was read (413, 415, 401, 404...) waits until the rest of the
  // body is off the wire, so the client reads it instead of a reset connection (request-body.ts).
  app.addHook('onSend', async (request, reply, payload) => {
    await drainBeforeAnswer(request, reply, request.routeOptions.bodyLimit ?? DEFAULT_BODY_LIMIT, timeouts.bodyMs);
    return payload;
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
    setRetryAfter(reply, error, status);
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return sendError(reply, status, status === 503 || status === 502 ? message : 'Internal server error (see the server log)');
    }
    return sendError(reply, status, message);
  });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendError(reply, 404, `Not found: ${request.method} ${path}`);
  });

  // Every answer: nosniff and a referrer policy; HTML pages without a policy of their own (files of
  // DIST_DIR such as /index.html) get the app's, unframeable (security-headers.ts).
  const indexHtml = join(config.distDir, 'index.html');
  // The app's page with the model service's address in it, and its scripts' hashes (src/server/index-page.ts).
  const indexPage = createIndexPage(indexHtml, clientConfig(config).endpoints.modelService);
  app.addHook('onSend', async (request, reply, payload) => {
    for (const [name, value] of Object.entries(COMMON_HEADERS)) if (!reply.hasHeader(name)) reply.header(name, value);
    if (!reply.hasHeader('content-security-policy') && String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
      reply.headers(pageHeaders(config, { scriptHashes: (await indexPage())?.scriptHashes ?? [], frameable: false }));
    }
    return payload;
  });

  // The API and the CDNs may be called from any origin (host pages, a viewer on another host):
  // requests carry bearer tokens, never cookies, so '*' is safe.
  app.addHook('onSend', async (request, reply, payload) => {
    if (CORS_PREFIXES.some((prefix) => request.url.startsWith(prefix))) {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS);
    }
    return payload;
  });
  // A preflight allows every method a route under its prefix has: collected as routes are added, so
  // a new route's method (DELETE of a comment was missing, issue 33 item 5) is never forgotten.
  const corsMethods = new Map<string, Set<string>>(CORS_PREFIXES.map((prefix) => [prefix, new Set(['OPTIONS'])]));
  // Every route the app has, as registered (the hostile-input test checks that each has its corpus).
  const routeTable: { method: string; url: string }[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((method) => method.toUpperCase());
    for (const method of methods) routeTable.push({ method, url: route.url });
    const prefix = CORS_PREFIXES.find((p) => route.url.startsWith(p));
    if (prefix) for (const method of methods) corsMethods.get(prefix)!.add(method);
  });
  for (const prefix of CORS_PREFIXES) {
    app.options(`${prefix}*`, async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', [...corsMethods.get(prefix)!].sort().join(', '))
        .header('access-control-allow-headers', CORS_ALLOWED_HEADERS)
        .header('access-control-max-age', '600')
        .send(),
    );
  }

  // Reports of Content-Security-Policy violations (security-headers.ts): logged, so that a page
  // the policy breaks shows in the server log (the browser tests fail on any). Anyone may send
  // them, so they are bounded: CSP_REPORT_MAX_BYTES each, CSP_REPORTS_PER_MINUTE_PER_ADDRESS from one
  // address and CSP_REPORTS_PER_MINUTE in all (429 with Retry-After past either), before the body is read.
  const reportsByAddress = createRateWindow({ windowMs: 60_000, limit: CSP_REPORTS_PER_MINUTE_PER_ADDRESS });
  const reportsInAll = createRateWindow({ windowMs: 60_000, limit: CSP_REPORTS_PER_MINUTE });
  app.register(async (reports) => {
    reports.addContentTypeParser(['application/csp-report', 'application/reports+json'], { parseAs: 'string', bodyLimit: CSP_REPORT_MAX_BYTES }, (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(null, body);
      }
    });
    reports.addHook('onRequest', async (request, reply) => {
      // Both counts are checked before either takes: a refused report counts against neither.
      const mine = reportsByAddress.check(request.ip);
      const refused = !mine.ok ? mine : reportsInAll.check('all');
      if (!refused.ok) {
        reply.header('retry-after', String(refused.retryAfterS));
        return sendError(reply, 429, `Too many policy reports: at most ${mine.ok ? `${CSP_REPORTS_PER_MINUTE} a minute in all` : `${CSP_REPORTS_PER_MINUTE_PER_ADDRESS} a minute from one address`}; try again in ${refused.retryAfterS} s`);
      }
      reportsByAddress.take(request.ip);
      reportsInAll.take('all');
    });
    reports.post(CSP_REPORT_PATH, { bodyLimit: CSP_REPORT_MAX_BYTES }, async (request, reply) => {
      request.log.warn({ report: request.body }, 'csp violation');
      return reply.code(204).send();
    });
  });

  // ----- Identity: request.user on every request -----

  const verifyToken = options.verifyToken ?? (await createTokenVerifier(config));
  await app.register(authPlugin, { verify: verifyToken });

  // ----- Meetings: WebSocket upgrades on the meetings endpoints (src/server/meetings) -----

  await attachMeetings(app, config, store, { verifyToken, ...options.meetings });

  // ----- REST (DESIGN.md 4.4), sign-in, CDNs -----

  app.get('/v1/config', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return clientConfig(config);
  });

  // Uploads are processed in worker threads (upload/pool.ts), shared by the model and asset routes.
  const uploads = createUploadService(config, { minBytesPerS: timeouts.uploadMinBytesPerS, graceMs: timeouts.uploadGraceMs }, (userId) => storedBytesOf(config, store, userId));
  app.decorate('uploads', uploads);
  app.addHook('onClose', () => uploads.pool.close());
  await removeStaleSpools(spoolRoot(config));

  const ROUTE_PLUGINS: FastifyPluginAsync<RouteOptions>[] = [
    sceneRoutes,
    sceneObjectRoutes,
    instanceRoutes, // instanced asset groups' instances (src/server/instances.ts)
    commentRoutes, // comment threads of scenes (issue 16)
    modelRoutes,
    mutationRoutes,
    textureRoutes, // uploaded textures of models (the editor's texture upload, issue 11)
    authRoutes,
    cdnRoutes,
    uploadRoutes, // POST /v1/models: upload, validation, optimisation (issue 3, part 5)
    assetRoutes, // the asset CDN and asset uploads (issue 3, part 5)
  ];
  const instances = createInstanceService(store);
  type RouteOptions = { config: ServerConfig; store: Store; uploads: UploadService; instances: InstanceService };
  for (const plugin of ROUTE_PLUGINS) await app.register(plugin, { config, store, uploads, instances });

  // ----- The browser app (DIST_DIR) -----

  await app.register(fastifyStatic, {
    root: config.distDir,
    prefix: '/',
    index: false,
    redirect: false,
    dotfiles: 'ignore',
    suppressWarning: true,
    // Source maps give away the app's source: only with SERVE_SOURCE_MAPS=true (issue 33, item 11).
    allowedPath: (pathName: string) => config.serveSourceMaps || !pathName.endsWith('.map'),
    // Vite content-hashes everything under /assets; other files (decoders, our public files) may change.
    setHeaders: (reply: FastifyReply, path: string) => {
      const relative = path.slice(config.distDir.length).replace(/\\/g, '/');
      if (relative.startsWith('/assets/') && /-[A-Za-z0-9_-]{8,}\.\w+$/.test(relative)) reply.header('cache-control', IMMUTABLE);
      else if (relative.endsWith('.html')) reply.header('cache-control', 'no-cache');
      else reply.header('cache-control', 'public, max-age=3600');
    },
  });

  const serveApp = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    if (!isAppRoute(path)) return reply.callNotFound();
    const page = await indexPage();
    if (page === null) {
      return sendError(reply, 503, `The viewer app is not built: ${indexHtml} is missing. Run \`npm run build\` (or \`npm start\`, which builds it).`);
    }
    reply.header('cache-control', 'no-cache');
    // The embedded viewer is made to be framed by any page; the home page and the editor by none.
    reply.headers(pageHeaders(config, { scriptHashes: page.scriptHashes, frameable: /^\/embed(\/|$)/.test(path) }));
    return reply.type('text/html; charset=utf-8').send(page.html);
  };
  for (const url of APP_ROUTES) app.get(url, serveApp);

  return app;
}
