import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { ClientConfig } from '../protocol/config.ts';
import { TOKEN_AUDIENCE } from '../protocol/auth.ts';

/**
 * Server configuration: environment variables, optionally backed by a JSON file named by
 * CONFIG_FILE whose keys are the same variable names (the environment wins over the file).
 * Every endpoint of the viewer specification (section 7, "Configured endpoints") is a value here,
 * so each service can move to its own host (DESIGN.md section 5). The defaults point at this one
 * server with relative URLs, which the browser resolves against the page's origin.
 */

/** The audience of every bearer token (viewer specification section 7). */
export { TOKEN_AUDIENCE };

/** Defaults, named once. */
export const CONFIG_DEFAULTS = {
  PORT: 8080,
  /** Loopback only: the development identity provider lets anyone sign in as anyone (main.ts says
   *  so at start-up); HOST=0.0.0.0 opens the server to the network. */
  HOST: 'localhost',
  DATA_DIR: './data',
  DIST_DIR: './dist',
  /**
   * Largest model file the server accepts (uploads and the import CLI, all files of one upload
   * together). Processing takes about ten times the file's size in memory (a 60 MB GLB: 680 MB peak
   * RSS), so 64 MiB lets a 2-core server with 2 GiB process one upload per core at once.
   */
  MAX_ASSET_BYTES: 64 * 1024 * 1024,
  /**
   * Upload worker threads (validation, optimisation, container encoding): one per core but one,
   * which stays with the event loop (on 2 cores, 20 uploads at once: GET p99 119 ms with one
   * worker, 167 ms with two; `npm run bench -- upload-load`).
   */
  UPLOAD_WORKERS: Math.max(1, availableParallelism() - 1),
  /** Uploads that may wait for a worker; more are refused with 503 and Retry-After. */
  UPLOAD_QUEUE: 32,
  /** Time limit of one upload's processing in a worker. */
  UPLOAD_TIMEOUT_S: 300,
  /** JavaScript heap limit of each upload worker (its typed arrays are bounded by MAX_ASSET_BYTES). */
  UPLOAD_HEAP_MB: 512,
  LOG_LEVEL: 'warn',
  /** '' = same origin: account and model REST live under /v1 on this server. */
  ACCOUNT_URL: '',
  MEETINGS_URL: '/meetings',
  PUBLIC_MEETINGS_URL: '/public-meetings',
  MODEL_SERVICE_URL: '',
  MODEL_DERIVATIVE_URL: '',
  MODEL_DERIVATIVE_CDN_URL: '/cdn/derivatives',
  ASSET_CDN_URL: '/cdn',
  /** '' = the embedded development identity provider on this server. */
  IDP_DOMAIN: '',
  IDP_CLIENT_ID: 'parametricos-viewer',
  IDP_CALLBACK_URL: '/auth/callback',
  /** SQLite commits: 'NORMAL' survives any crash of the process, 'FULL' also a power loss (slower). */
  SQLITE_SYNCHRONOUS: 'NORMAL',
  /** The issuer of the embedded development identity provider's tokens (IDP_DOMAIN ''). */
  DEV_IDP_ISSUER: 'urn:parametricos:development-identity',
  /**
   * Calls whose meeting has at most this many people when the call starts are a peer-to-peer mesh
   * (each sends its media to every other: n-1 uploads), larger ones go through the call server
   * (JANUS_URL; one upload each). 4: a mesh of 4 uploads 3 streams per person, about what a home
   * connection carries; 0 = always the call server.
   */
  RTC_MESH_MAX: 4,
  /**
   * Per-person limits (issue 33, item 8): one signed-in person (a guest: one address) may hold this
   * many meeting sockets at once; more are refused with close code 4029 and a retry time.
   */
  MEETING_SOCKETS_PER_USER: 16,
  /** Uploads of one person received or processed at once; more answer 429 with Retry-After. */
  UPLOADS_IN_FLIGHT_PER_USER: 4,
  /** Bytes one person may upload in any hour (models, assets, textures together); past it 429 with Retry-After. 2 GiB: 32 uploads of MAX_ASSET_BYTES. */
  UPLOAD_BYTES_PER_HOUR: 2 * 1024 * 1024 * 1024,
  /** Bytes of derivatives one person's scenes may store; past it 413 with the quota. 20 GiB. */
  STORED_BYTES_PER_USER: 20 * 1024 * 1024 * 1024,
  /** Serve the built app's source maps (*.map) when 'true'; by default they are not served (issue 33, item 11). */
  SERVE_SOURCE_MAPS: 'false',
} as const;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServerConfig {
  port: number;
  host: string;
  /** Absolute. */
  dataDir: string;
  /** Absolute. */
  distDir: string;
  /** Public origin of this server, without a trailing slash, when it differs from localhost. */
  publicUrl?: string;
  maxAssetBytes: number;
  /** The upload worker pool (src/server/upload/pool.ts). */
  uploads: { workers: number; maxQueued: number; timeoutMs: number; heapMb: number };
  /** Per-person limits (MEETING_SOCKETS_PER_USER, UPLOADS_IN_FLIGHT_PER_USER, UPLOAD_BYTES_PER_HOUR, STORED_BYTES_PER_USER). */
  limits: { meetingSocketsPerUser: number; uploadsInFlightPerUser: number; uploadBytesPerHour: number; storedBytesPerUser: number };
  /** SERVE_SOURCE_MAPS: whether the built app's *.map files are served. */
  serveSourceMaps: boolean;
  /** HTTP_BODY_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS, HTTP_IDLE_TIMEOUT_MS when set (app.ts HTTP_TIMEOUTS otherwise). */
  httpTimeouts: { bodyMs?: number; headersMs?: number; idleMs?: number };
  logLevel: LogLevel;
  endpoints: {
    account: string;
    meetings: string;
    publicMeetings: string;
    modelService: string;
    modelDerivative: string;
    modelDerivativeCdn: string;
    assetCdn: string;
  };
  identityProvider: {
    domain: string;
    clientId: string;
    callbackUrl: string;
    audience: typeof TOKEN_AUDIENCE;
    /** The `iss` every token must carry: IDP_ISSUER, else `https://{IDP_DOMAIN}/`, else the
     *  development provider's issuer. */
    issuer: string;
    /** Where the provider's signing keys are: IDP_JWKS_URL, else `{issuer}.well-known/jwks.json`
     *  for a real provider; undefined for the embedded development provider (keys in DATA_DIR). */
    jwksUrl?: string;
  };
  /** PostgreSQL connection string (DATABASE_URL); undefined = SQLite in DATA_DIR. Holds a
   *  password: never print it. */
  databaseUrl?: string;
  /** SQLite's fsync policy (SQLITE_SYNCHRONOUS): 'NORMAL' (default) or 'FULL'; see db/sqlite.ts. */
  sqliteSynchronous: 'NORMAL' | 'FULL';
  /** Redis (REDIS_URL) links the meeting servers of several processes; undefined = this process only. */
  redisUrl?: string;
  /** Page origins that may open meeting sockets (MEETING_ORIGINS, comma-separated; '*' = any);
   *  undefined = this server's own origin only (src/server/meetings). */
  meetingOrigins?: string[];
  /** Audio and video calls of the meetings (src/server/meetings/sfu.ts). */
  rtc: {
    /** The Janus API over websockets (JANUS_URL); undefined = every call is a mesh. Only the
     *  meeting server talks to it; browsers never get this. */
    janusUrl?: string;
    /** Janus's api_secret (JANUS_API_SECRET): never print it. */
    janusApiSecret?: string;
    /** RTC_MESH_MAX: mesh while the meeting has at most this many people as the call starts. */
    meshMax: number;
    /** STUN/TURN servers for the browsers (ICE_SERVERS); [] = host candidates only (one network). */
    iceServers: IceServer[];
  };
}

/** One STUN or TURN server as RTCPeerConnection takes it. */
export const IceServer = z.object({
  urls: z.union([z.string().regex(/^(stun|stuns|turn|turns):/, 'must start with stun:, stuns:, turn: or turns:'), z.array(z.string().regex(/^(stun|stuns|turn|turns):/, 'must start with stun:, stuns:, turn: or turns:')).min(1)]),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof IceServer>;

/** True when tokens come from the embedded development identity provider (no IDP_DOMAIN). */
export function usesDevelopmentIdentity(config: ServerConfig): boolean {
  return config.identityProvider.jwksUrl === undefined;
}

/** Host names that reach this machine only. */
const LOOPBACK = /^(localhost|127(\.\d+){3}|::1|\[::1\])$/i;

/** One line when the development identity provider is on: anyone can sign in as anyone. */
export function identityNotice(config: ServerConfig): string | undefined {
  if (!usesDevelopmentIdentity(config)) return undefined;
  const exposed = !LOOPBACK.test(config.host);
  return exposed
    ? `WARNING: the development sign-in is on (anyone can sign in as anyone) and HOST=${config.host} makes it reachable from other machines: set IDP_DOMAIN to use a real identity provider`
    : `Sign-in: the development identity provider (anyone can sign in as anyone; this machine only, HOST=${config.host}); set IDP_DOMAIN for a real one`;
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** An endpoint: '' (same origin), an absolute path, or an absolute URL with one of `protocols`. */
function endpoint(protocols: readonly string[]) {
  return z
    .string()
    .trim()
    .refine(
      (value) => {
        if (value === '' || (value.startsWith('/') && !value.startsWith('//'))) return true;
        try {
          return protocols.includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      { message: `must be empty, a path starting with '/', or a URL (${protocols.join(' ')})` },
    )
    .transform((value) => value.replace(/\/+$/, ''));
}

const HTTP = ['http:', 'https:'] as const;
const WS = ['ws:', 'wss:', 'http:', 'https:'] as const;

const integer = (min: number, max: number) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int({ message: 'must be an integer' })
    .min(min, { message: `must be at least ${min}` })
    .max(max, { message: `must be at most ${max}` });

/** One schema per variable. Values arrive as strings (environment) or JSON values (file). */
/** An absolute http(s) URL; the message shows `example`. */
function absoluteHttpUrl(example: string) {
  return z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          return (HTTP as readonly string[]).includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      { message: `must be an absolute http(s) URL, e.g. ${example}` },
    );
}

const VARIABLES = {
  PORT: integer(0, 65535),
  HOST: z.string().trim().min(1, { message: 'must not be empty' }),
  DATA_DIR: z.string().trim().min(1, { message: 'must not be empty' }),
  DIST_DIR: z.string().trim().min(1, { message: 'must not be empty' }),
  PUBLIC_URL: absoluteHttpUrl('https://viewer.example.com').transform((value) => value.replace(/\/+$/, '')),
  MAX_ASSET_BYTES: integer(1, Number.MAX_SAFE_INTEGER),
  UPLOAD_WORKERS: integer(1, 256),
  UPLOAD_QUEUE: integer(0, 100_000),
  UPLOAD_TIMEOUT_S: integer(1, 24 * 3600),
  UPLOAD_HEAP_MB: integer(16, 1024 * 1024),
  LOG_LEVEL: z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(', ')}` }),
  ACCOUNT_URL: endpoint(HTTP),
  MEETINGS_URL: endpoint(WS),
  PUBLIC_MEETINGS_URL: endpoint(WS),
  MODEL_SERVICE_URL: endpoint(HTTP),
  MODEL_DERIVATIVE_URL: endpoint(HTTP),
  MODEL_DERIVATIVE_CDN_URL: endpoint(HTTP),
  ASSET_CDN_URL: endpoint(HTTP),
  IDP_DOMAIN: z.string().trim(),
  IDP_CLIENT_ID: z.string().trim().min(1, { message: 'must not be empty' }),
  IDP_CALLBACK_URL: endpoint(HTTP),
  /** An absolute http(s) URL or a non-URL issuer string (e.g. a URN); default from IDP_DOMAIN. */
  IDP_ISSUER: z.string().trim().min(1, { message: 'must not be empty' }),
  IDP_JWKS_URL: absoluteHttpUrl('https://login.example.com/.well-known/jwks.json'),
  DATABASE_URL: z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          return ['postgres:', 'postgresql:'].includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      { message: 'must be a PostgreSQL URL, e.g. postgres://user:password@host:5432/database' },
    ),
  REDIS_URL: z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          return ['redis:', 'rediss:'].includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      { message: 'must be a Redis URL, e.g. redis://localhost:6379' },
    ),
  MEETING_ORIGINS: z
    .string()
    .trim()
    .transform((value) => value.split(',').map((origin) => origin.trim().replace(/\/+$/, '')).filter((origin) => origin !== ''))
    .refine((origins) => origins.every((origin) => origin === '*' || /^https?:\/\/[^/\s]+$/.test(origin)), {
      message: "must be '*' or origins such as https://host.example.com, separated by commas",
    }),
  JANUS_URL: z
    .string()
    .trim()
    .refine(
      (value) => {
        try {
          return ['ws:', 'wss:'].includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      { message: "must be the Janus API's websockets URL, e.g. ws://127.0.0.1:8188" },
    ),
  JANUS_API_SECRET: z.string().trim().min(1, { message: 'must not be empty' }),
  RTC_MESH_MAX: integer(0, 1000),
  MEETING_SOCKETS_PER_USER: integer(1, 100_000),
  UPLOADS_IN_FLIGHT_PER_USER: integer(1, 100_000),
  UPLOAD_BYTES_PER_HOUR: integer(1, Number.MAX_SAFE_INTEGER),
  STORED_BYTES_PER_USER: integer(1, Number.MAX_SAFE_INTEGER),
  /**
   * HTTP deadlines in milliseconds, no default here (app.ts HTTP_TIMEOUTS has them and why): a JSON
   * body must arrive within HTTP_BODY_TIMEOUT_MS, the headers within HTTP_HEADERS_TIMEOUT_MS, and a
   * connection with nothing sent for HTTP_IDLE_TIMEOUT_MS is closed.
   */
  HTTP_BODY_TIMEOUT_MS: integer(100, 24 * 3600_000),
  HTTP_HEADERS_TIMEOUT_MS: integer(100, 24 * 3600_000),
  HTTP_IDLE_TIMEOUT_MS: integer(100, 24 * 3600_000),
  SERVE_SOURCE_MAPS: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value),
    z.enum(['true', 'false'], { message: 'must be true or false' }),
  ),
  ICE_SERVERS: z
    .string()
    .trim()
    .transform((value, ctx) => {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON, e.g. [{"urls":"stun:stun.example.com:3478"}]' });
        return z.NEVER;
      }
    })
    .pipe(z.array(IceServer, { message: 'must be a JSON list of {urls, username?, credential?}' }).max(16)),
  SQLITE_SYNCHRONOUS: z.preprocess(
    (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
    z.enum(['NORMAL', 'FULL'], { message: 'must be NORMAL or FULL' }),
  ),
} as const;

/** Values never echoed in an error message. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set(['DATABASE_URL', 'REDIS_URL', 'JANUS_API_SECRET', 'ICE_SERVERS']);

type VariableName = keyof typeof VARIABLES;
const VARIABLE_NAMES = Object.keys(VARIABLES) as VariableName[];
type Values = { [K in VariableName]: z.output<(typeof VARIABLES)[K]> };

/** Where values come from. Relative DATA_DIR / DIST_DIR resolve against `base`: the cwd for the
 * environment, the file's folder for CONFIG_FILE. */
interface Source {
  describe: (name: string) => string;
  values: Partial<Record<VariableName, unknown>>;
  base: string;
}

function readConfigFile(path: string): Source {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`CONFIG_FILE: cannot read ${file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`CONFIG_FILE: ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`CONFIG_FILE: ${file} must hold a JSON object whose keys are variable names`);
  }
  const values: Partial<Record<VariableName, unknown>> = {};
  for (const [key, value] of Object.entries(json)) {
    if (!(key in VARIABLES)) {
      throw new ConfigError(
        `CONFIG_FILE: ${file} has an unknown key '${key}'; known keys: ${VARIABLE_NAMES.join(', ')}`,
      );
    }
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new ConfigError(`${key} (in ${file}) must be a string or a number`);
    }
    values[key as VariableName] = typeof value === 'number' ? String(value) : value;
  }
  return { describe: (name) => `${name} (in ${file})`, values, base: dirname(file) };
}

/**
 * Reads the configuration. An empty variable counts as unset. Throws ConfigError naming the
 * variable (and the file, when the value came from CONFIG_FILE) for any unusable value.
 */
export function loadServerConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';
  const envSource: Source = { describe: (name) => name, values: {}, base: process.cwd() };
  for (const name of VARIABLE_NAMES) {
    const value = env[name];
    if (present(value)) envSource.values[name] = value;
  }
  const fileSource = present(env.CONFIG_FILE) ? readConfigFile(env.CONFIG_FILE) : undefined;

  const values: Partial<Values> = {};
  const bases: Partial<Record<VariableName, string>> = {};
  for (const name of VARIABLE_NAMES) {
    const source = name in envSource.values ? envSource : fileSource && name in fileSource.values ? fileSource : undefined;
    if (!source) continue;
    const raw = source.values[name];
    if (typeof raw === 'string' && raw.trim() === '') continue;
    const result = VARIABLES[name].safeParse(raw);
    if (!result.success) {
      const reason = result.error.issues[0]?.message ?? 'is invalid';
      const shown = SECRET_VARIABLES.has(name) ? '(value hidden)' : `(got '${String(raw)}')`;
      throw new ConfigError(`${source.describe(name)} ${reason} ${shown}`);
    }
    (values as Record<string, unknown>)[name] = result.data;
    bases[name] = source.base;
  }

  const get = <K extends VariableName>(name: K): Values[K] =>
    (values[name] ?? (CONFIG_DEFAULTS as Record<string, unknown>)[name]) as Values[K];
  const path = (name: 'DATA_DIR' | 'DIST_DIR') => resolve(bases[name] ?? process.cwd(), get(name));

  const domain = get('IDP_DOMAIN');
  const explicitIssuer = values.IDP_ISSUER;
  const explicitJwks = values.IDP_JWKS_URL;
  let issuer: string = CONFIG_DEFAULTS.DEV_IDP_ISSUER;
  let jwksUrl: string | undefined;
  if (domain !== '' || explicitJwks !== undefined) {
    // A real provider: its issuer and key set follow from the domain unless given.
    const base = /^https?:\/\//i.test(domain) ? domain.replace(/\/+$/, '') : `https://${domain}`;
    if (domain === '' && explicitIssuer === undefined) {
      throw new ConfigError('IDP_JWKS_URL is set without IDP_DOMAIN or IDP_ISSUER: name the provider whose keys these are');
    }
    issuer = explicitIssuer ?? `${base}/`;
    jwksUrl = explicitJwks ?? `${(domain !== '' ? base : issuer).replace(/\/+$/, '')}/.well-known/jwks.json`;
    try {
      if (!(HTTP as readonly string[]).includes(new URL(jwksUrl).protocol)) throw new Error('not http');
    } catch {
      throw new ConfigError(`IDP_DOMAIN must be a host name such as login.example.com (got '${domain}')`);
    }
  } else if (explicitIssuer !== undefined) {
    issuer = explicitIssuer;
  }

  const config: ServerConfig = {
    port: get('PORT'),
    host: get('HOST'),
    dataDir: path('DATA_DIR'),
    distDir: path('DIST_DIR'),
    maxAssetBytes: get('MAX_ASSET_BYTES'),
    uploads: {
      workers: get('UPLOAD_WORKERS'),
      maxQueued: get('UPLOAD_QUEUE'),
      timeoutMs: get('UPLOAD_TIMEOUT_S') * 1000,
      heapMb: get('UPLOAD_HEAP_MB'),
    },
    limits: {
      meetingSocketsPerUser: get('MEETING_SOCKETS_PER_USER'),
      uploadsInFlightPerUser: get('UPLOADS_IN_FLIGHT_PER_USER'),
      uploadBytesPerHour: get('UPLOAD_BYTES_PER_HOUR'),
      storedBytesPerUser: get('STORED_BYTES_PER_USER'),
    },
    serveSourceMaps: get('SERVE_SOURCE_MAPS') === 'true',
    httpTimeouts: {},
    logLevel: get('LOG_LEVEL'),
    sqliteSynchronous: get('SQLITE_SYNCHRONOUS'),
    endpoints: {
      account: get('ACCOUNT_URL'),
      meetings: get('MEETINGS_URL'),
      publicMeetings: get('PUBLIC_MEETINGS_URL'),
      modelService: get('MODEL_SERVICE_URL'),
      modelDerivative: get('MODEL_DERIVATIVE_URL'),
      modelDerivativeCdn: get('MODEL_DERIVATIVE_CDN_URL'),
      assetCdn: get('ASSET_CDN_URL'),
    },
    identityProvider: {
      domain,
      clientId: get('IDP_CLIENT_ID'),
      callbackUrl: get('IDP_CALLBACK_URL'),
      audience: TOKEN_AUDIENCE,
      issuer,
    },
    rtc: { meshMax: get('RTC_MESH_MAX'), iceServers: values.ICE_SERVERS ?? [] },
  };
  if (values.JANUS_URL !== undefined) config.rtc.janusUrl = values.JANUS_URL;
  if (values.JANUS_API_SECRET !== undefined) config.rtc.janusApiSecret = values.JANUS_API_SECRET;
  if (jwksUrl !== undefined) config.identityProvider.jwksUrl = jwksUrl;
  const publicUrl = values.PUBLIC_URL;
  if (publicUrl !== undefined) config.publicUrl = publicUrl;
  if (values.DATABASE_URL !== undefined) config.databaseUrl = values.DATABASE_URL;
  if (values.REDIS_URL !== undefined) config.redisUrl = values.REDIS_URL;
  if (values.MEETING_ORIGINS !== undefined) config.meetingOrigins = values.MEETING_ORIGINS;
  if (values.HTTP_BODY_TIMEOUT_MS !== undefined) config.httpTimeouts.bodyMs = values.HTTP_BODY_TIMEOUT_MS;
  if (values.HTTP_HEADERS_TIMEOUT_MS !== undefined) config.httpTimeouts.headersMs = values.HTTP_HEADERS_TIMEOUT_MS;
  if (values.HTTP_IDLE_TIMEOUT_MS !== undefined) config.httpTimeouts.idleMs = values.HTTP_IDLE_TIMEOUT_MS;
  return config;
}

/** What the browser gets at GET /v1/config. */
export function clientConfig(config: ServerConfig): ClientConfig {
  return ClientConfig.parse({
    endpoints: { ...config.endpoints },
    identityProvider: {
      domain: config.identityProvider.domain,
      clientId: config.identityProvider.clientId,
      callbackUrl: config.identityProvider.callbackUrl,
      audience: config.identityProvider.audience,
    },
    rtc: { iceServers: config.rtc.iceServers },
  });
}

/**
 * The origin people use to reach this server: PUBLIC_URL when set, else http://localhost:PORT
 * (`port` overrides the configured one, e.g. after listening on port 0).
 */
export function publicOrigin(config: ServerConfig, port: number = config.port): string {
  return config.publicUrl ?? `http://localhost:${port}`;
}
