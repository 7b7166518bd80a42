import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { TokenVerifier, AuthUser } from './tokens.ts';
import { TokenError } from './tokens.ts';

/**
 * Fastify integration of identity: every request gets `request.user` (the person its bearer token
 * names, or null without an Authorization header). A request with an Authorization header that
 * is not a valid bearer token is answered 401 `{ error }` with the reason (and a
 * `WWW-Authenticate: Bearer error="invalid_token"` header) before any route runs.
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
    return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ error: message });
  });
};

// What fastify-plugin does: hooks and decorators reach the parent (root) instance.
(authPlugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

export default authPlugin;
