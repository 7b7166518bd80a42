import type { z } from 'zod';
import { SignedInPerson } from '../protocol/auth';
import { UploadError as ErrorAnswer, type ValidationReport } from '../protocol/upload';

/**
 * The one client of the model service (issue 34, item 5): the base URL normalised once, the bearer
 * token read from a getter at each request (a refreshed token is used at once), idempotent requests
 * retried on network failures and 503 (honouring Retry-After), answers read with the protocol's
 * schemas and failures as one typed error. It imports src/protocol only, so the editor, the
 * meeting, the host API, the scene loader and the UI may all use it.
 */

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What went wrong: no answer (network), an answer that says no (status), an answer we cannot read (invalid), no token for a request that needs one (sign-in). */
export type ServiceErrorKind = 'network' | 'status' | 'invalid' | 'sign-in';

/**
 * A failed request. `status` is the HTTP status (0 when none came); `reason` the service's own
 * words, as its error answer gives them (`{ error }`, src/protocol/upload.ts `UploadError`: the
 * model service's errors carry no other code than the status), with the validator's report where
 * an upload was refused for its content.
 */
export class ServiceError extends Error {
  readonly kind: ServiceErrorKind;
  readonly status: number;
  readonly reason: string | null;
  readonly validation: ValidationReport | undefined;
  /** What Retry-After asked for (ms), when the answer had it. */
  readonly retryAfterMs: number | null;
  /** The answer's status text ('' when none or no answer). */
  readonly statusText: string;
  readonly method: Method;
  readonly url: string;
  constructor(
    message: string,
    fields: {
      kind: ServiceErrorKind;
      status?: number;
      statusText?: string;
      reason?: string | null;
      validation?: ValidationReport;
      retryAfterMs?: number | null;
      method: Method;
      url: string;
      cause?: unknown;
    },
  ) {
    super(message, fields.cause !== undefined ? { cause: fields.cause } : undefined);
    this.name = 'ServiceError';
    this.kind = fields.kind;
    this.status = fields.status ?? 0;
    this.reason = fields.reason ?? null;
    this.validation = fields.validation;
    this.retryAfterMs = fields.retryAfterMs ?? null;
    this.statusText = fields.statusText ?? '';
    this.method = fields.method;
    this.url = fields.url;
  }
}

/** What a network failure's cause said ('Failed to fetch'), else the error's own message. */
export function causeOf(error: Error): string {
  return error.cause instanceof Error ? error.cause.message : error.cause !== undefined ? String(error.cause) : error.message;
}

/** A failure in words for a person: the service's own reason when it gave one, else the message. */
export function reasonOf(error: unknown): string {
  if (error instanceof ServiceError) return error.reason ?? error.message;
  return error instanceof Error ? error.message : String(error);
}

/** A bearer token, or null/undefined when there is none (the request goes without). May throw: then there is none. */
export type TokenGetter = () => string | null | undefined | Promise<string | null | undefined>;

export interface ServiceClientOptions {
  /** The model service's base URL ('' = this origin); trailing slashes are dropped. */
  baseUrl: string;
  token?: TokenGetter;
  fetch?: typeof fetch;
  /** Further tries of an idempotent request (default 2). */
  retries?: number;
  /** The first retry's wait without Retry-After (default 250 ms; doubling). */
  retryBaseMs?: number;
  /** A Retry-After longer than this is not waited for: the error is given (default 10 s). */
  maxRetryAfterMs?: number;
  /** Waits (fake in tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

export interface RequestOptions<S extends z.ZodType | undefined = undefined> {
  /** A JSON body. */
  json?: unknown;
  /** A raw body (a picture, a file) with its type. */
  body?: BodyInit;
  contentType?: string;
  headers?: Record<string, string>;
  /** The answer's schema: the result is its output; without one, the parsed JSON (or undefined for none). */
  schema?: S;
  /** 'optional' (default): the token when there is one; 'required': none is a sign-in error, nothing is sent; 'none': never. */
  auth?: 'optional' | 'required' | 'none';
  /** Retried after a network failure or 503: GET, HEAD, PUT and DELETE by default; a POST or PATCH only with true. */
  idempotent?: boolean;
  /** What the answer is, for messages ('The scene document'). */
  what?: string;
  signal?: AbortSignal;
  cache?: RequestCache;
}

export type Answer<S> = S extends z.ZodType ? z.output<S> : unknown;

export interface ServiceClient {
  /** The base URL, without trailing slashes. */
  readonly base: string;
  /** The absolute URL of a path of the service. */
  url(path: string): string;
  request<S extends z.ZodType | undefined = undefined>(method: Method, path: string, options?: RequestOptions<S>): Promise<Answer<S>>;
  /** Reads an answer obtained elsewhere (index.html's early download) as `request` reads its own. */
  read<S extends z.ZodType | undefined = undefined>(
    response: Response,
    method: Method,
    path: string,
    options?: Pick<RequestOptions<S>, 'schema' | 'what'>,
  ): Promise<Answer<S>>;
  /** The error an answer with `status` and `body` means (XMLHttpRequest uploads). */
  errorOf(method: Method, path: string, status: number, body: unknown): ServiceError;
  /**
   * The signed-in person (GET /v1/me): of `token`, else of the getter's token; null without a token
   * or, unless `strict`, when the service refuses it (401; strict: the ServiceError).
   */
  me(options?: { token?: string; strict?: boolean; signal?: AbortSignal }): Promise<SignedInPerson | null>;
}

/** `/v1/scenes/${id}`-style paths with each value URI-encoded: path`/v1/scenes/${id}/comments`. */
export function path(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += encodeURIComponent(String(values[i])) + strings[i + 1]!;
  return out;
}

/** `url` without trailing slashes. */
export function trimBase(url: string): string {
  return url.replace(/\/+$/, '');
}

// Not DELETE: a retried delete whose first answer was lost finds nothing (404) and would report a
// failure for a deletion that happened; a caller that can tell marks its request `idempotent`.
const IDEMPOTENT: ReadonlySet<Method> = new Set(['GET', 'HEAD', 'PUT']);

/** Retry-After as milliseconds (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });

const isAbort = (error: unknown) => (error as { name?: unknown } | null)?.name === 'AbortError';
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const base = trimBase(options.baseUrl);
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const retries = options.retries ?? 2;
  const retryBaseMs = options.retryBaseMs ?? 250;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 10_000;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const url = (p: string) => `${base}${p.startsWith('/') ? p : `/${p}`}`;

  const tokenOf = async (): Promise<{ token: string | null; problem: string | null }> => {
    if (!options.token) return { token: null, problem: null };
    try {
      const token = await options.token();
      return { token: token || null, problem: null };
    } catch (error) {
      return { token: null, problem: messageOf(error) };
    }
  };

  const errorOf = (method: Method, p: string, status: number, body: unknown, retryAfter: number | null = null, statusText = ''): ServiceError => {
    const answer = ErrorAnswer.safeParse(body);
    const reason = answer.success ? answer.data.error : null;
    const target = url(p);
    return new ServiceError(`${method} ${target} answered ${status}: ${reason ?? (statusText || `HTTP ${status}`)}`, {
      kind: 'status',
      status,
      statusText,
      reason,
      validation: answer.success ? answer.data.validation : undefined,
      retryAfterMs: retryAfter,
      method,
      url: target,
    });
  };

  const read = async <S extends z.ZodType | undefined>(
    response: Response,
    method: Method,
    p: string,
    reading?: Pick<RequestOptions<S>, 'schema' | 'what'>,
  ): Promise<Answer<S>> => {
    const target = url(p);
    let text = '';
    if (method !== 'HEAD') {
      try {
        text = await response.text();
      } catch (error) {
        // The answer came and said yes, but its body broke off: a caller that reads nothing from it
        // (a save) has its yes; one that needs the body learns the connection broke.
        if (response.ok && !reading?.schema) return undefined as Answer<S>;
        throw new ServiceError(`The answer to ${method} ${target} broke off (${messageOf(error)}).`, {
          kind: 'network',
          status: response.status,
          method,
          url: target,
          cause: error,
        });
      }
    }
    let body: unknown = undefined;
    let json = true;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        json = false;
      }
    }
    if (!response.ok) throw errorOf(method, p, response.status, body, retryAfterMs(response.headers.get('retry-after'), now()), response.statusText);
    const what = reading?.what ?? `The answer to ${method} ${target}`;
    if (!json) throw new ServiceError(`${target} did not answer with JSON.`, { kind: 'invalid', status: response.status, method, url: target });
    if (!reading?.schema) return body as Answer<S>;
    const parsed = reading.schema.safeParse(body);
    if (!parsed.success)
      throw new ServiceError(`${what} is invalid: ${describeIssues(parsed.error)}`, { kind: 'invalid', status: response.status, method, url: target });
    return parsed.data as Answer<S>;
  };

  const client: ServiceClient = {
    base,
    url,
    async request<S extends z.ZodType | undefined = undefined>(method: Method, p: string, request: RequestOptions<S> = {}): Promise<Answer<S>> {
      const target = url(p);
      const auth = request.auth ?? 'optional';
      const idempotent = request.idempotent ?? IDEMPOTENT.has(method);
      for (let attempt = 0; ; attempt++) {
        // The token is read at each try: a token refreshed meanwhile is the one sent.
        const headers: Record<string, string> = { ...request.headers };
        if (auth !== 'none') {
          const { token, problem } = await tokenOf();
          if (token) headers.authorization = `Bearer ${token}`;
          // A token getter that failed (a sign-in that expired) is said, not sent as a visitor.
          else if (problem !== null || auth === 'required')
            throw new ServiceError(problem ?? 'Sign in required.', { kind: 'sign-in', status: 401, method, url: target });
        }
        let body: BodyInit | undefined = request.body;
        if (request.json !== undefined) {
          body = JSON.stringify(request.json);
          headers['content-type'] = 'application/json';
        } else if (request.contentType) headers['content-type'] = request.contentType;
        let response: Response;
        try {
          response = await doFetch(target, {
            method,
            headers,
            ...(body !== undefined ? { body } : {}),
            ...(request.signal ? { signal: request.signal } : {}),
            ...(request.cache ? { cache: request.cache } : {}),
          });
        } catch (error) {
          if (isAbort(error) || request.signal?.aborted) throw error;
          if (idempotent && attempt < retries) {
            await sleep(retryBaseMs * 2 ** attempt, request.signal);
            continue;
          }
          throw new ServiceError(`The model service could not be reached (${messageOf(error)}).`, { kind: 'network', method, url: target, cause: error });
        }
        if (response.status === 503 && idempotent && attempt < retries) {
          const wait = retryAfterMs(response.headers.get('retry-after'), now());
          if (wait === null || wait <= maxRetryAfterMs) {
            await response.body?.cancel().catch(() => undefined);
            await sleep(wait ?? retryBaseMs * 2 ** attempt, request.signal);
            continue;
          }
        }
        return read(response, method, p, request);
      }
    },
    read,
    errorOf: (method, p, status, body) => errorOf(method, p, status, body),
    async me(me = {}) {
      const token = me.token ?? (await tokenOf()).token;
      if (!token) return null;
      try {
        return await client.request('GET', '/v1/me', {
          schema: SignedInPerson,
          auth: 'none',
          headers: { authorization: `Bearer ${token}` },
          cache: 'no-store',
          what: 'The signed-in person',
          signal: me.signal,
        });
      } catch (error) {
        if (!me.strict && error instanceof ServiceError && error.status === 401) return null;
        throw error;
      }
    },
  };
  return client;
}
