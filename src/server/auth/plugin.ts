import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { TokenVerifier, AuthUser } from './tokens.ts';
import { TokenError } from './tokens.ts';

/**
 * Fastify integration of identity: every request gets `request.user` (the person its bearer token
 * names, or null without an Authorization header). A request with an Authorization header that
 * is not a valid bearer token is answered 401 `{ error }` with the reason (and a
 * `WWW-Authenticate: Bearer error="invalid_token"` header) before any route runs. When the identity
 * provider's keys cannot be fetched the answer is 503 with `Retry-After` (KEYS_UNAVAILABLE_RETRY_AFTER_S).
 *
 * Registered on the root instance without encapsulation, so route plugins registered after it
 * (ours and the upload/asset plugins) all see `request.user`.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person, or null (no token). Set by the auth plugin. */
    user: AuthUser | null;
  }
}

export interface AuthPluginOptions {
  verify: TokenVerifier;
}

/**
 * Seconds a client is told to wait (`Retry-After`) after a 503 because the identity provider's keys
 * could not be fetched (a key server down or slower than the 5 s fetch timeout of
 * src/server/auth/tokens.ts): long enough that clients do not all ask it again at once, as long as
 * the remote key set's cooldown there.
 */
export const KEYS_UNAVAILABLE_RETRY_AFTER_S = 30;

function quoteForHeader(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}

const authPlugin: FastifyPluginAsync<AuthPluginOptions> = async (app: FastifyInstance, options: AuthPluginOptions) => {
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (request, reply) => {
    request.user = null;
    const header = request.headers.authorization;
    if (header === undefined) return;
    const match = /^Bearer +([^\s]+) *$/i.exec(header);
    let message: string;
    let status: 401 | 503 = 401;
    if (!match) {
      message = 'Invalid Authorization header: expected "Bearer <token>"';
    } else {
      try {
        request.user = await options.verify(match[1]);
        return;
      } catch (error) {
        if (!(error instanceof TokenError)) throw error;
        message = error.message;
        status = error.statusCode;
      }
    }
    if (status === 401) reply.header('www-authenticate', `Bearer error="invalid_token", error_description="${quoteForHeader(message)}"`);
    else reply.header('retry-after', String(KEYS_UNAVAILABLE_RETRY_AFTER_S));
    return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ error: message });
  });
};

// What fastify-plugin does: hooks and decorators reach the parent (root) instance.
(authPlugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export default authPlugin;
