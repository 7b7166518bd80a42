import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { TOKEN_STORAGE_KEY } from '../../protocol/auth.ts';
import { describeZodError } from '../../protocol/mutation.ts';
import { developmentSigningKey } from '../auth/keys.ts';
import { requireUser } from '../auth/permissions.ts';
import { DEV_TOKEN_LIFETIME_S, signDevelopmentToken } from '../auth/tokens.ts';
import { TOKEN_AUDIENCE, publicOrigin, usesDevelopmentIdentity, type ServerConfig } from '../config.ts';
import type { Store } from '../store.ts';
import { HttpError } from './http.ts';
import { inlineScriptHashes } from '../security-headers.ts';

/**
 * Sign-in (DESIGN.md 4.4, issue 3 "Identity").
 *
 * Always:
 *   GET  /v1/me           the signed-in person { id, firstName, lastName } (401 without a token)
 *   GET  /auth/callback   a small page: takes `access_token` (and `state`, the path to return to)
 *                         from the URL fragment, keeps the token in localStorage under
 *                         TOKEN_STORAGE_KEY (src/protocol/auth.ts; src/service/token.ts reads it) and returns.
 *   GET  /auth/sign-in?returnTo=/edit/x   the development provider's form, or a redirect to the
 *                         real provider's authorization endpoint (implicit flow, audience
 *                         'parametricos', redirect to IDP_CALLBACK_URL).
 * With the embedded development provider (no IDP_DOMAIN):
 *   POST /auth/sign-in    form or JSON { firstName, lastName } -> a token (303 to the callback with
 *                         the token in the fragment, or JSON { access_token, token_type, expires_in, user })
 *   GET  /.well-known/jwks.json, /.well-known/openid-configuration
 */


const Person = z.object(
  {
    firstName: z
      .string({ error: (i) => (i.input === undefined ? 'firstName undefined.' : 'firstName must be a string') })
      .trim()
      .min(1, { error: 'firstName must not be empty' })
      .max(100, { error: 'firstName must be at most 100 characters' }),
    lastName: z
      .string({ error: (i) => (i.input === undefined ? 'lastName undefined.' : 'lastName must be a string') })
      .trim()
      .min(1, { error: 'lastName must not be empty' })
      .max(100, { error: 'lastName must be at most 100 characters' }),
    returnTo: z.string().optional(),
  },
  { error: 'the body must be an object { firstName, lastName }' },
);

/** A path on this site to return to after signing in; anything else becomes '/'. */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2000) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || /[\u0000-\u001f]/.test(value)) return '/';
  return value;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const PAGE_STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.75rem 0}input{display:block;width:100%;padding:.4rem;font:inherit;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1.25rem;font:inherit}.error{color:#b00020}.note{color:#666;font-size:.9rem}`;

function signInPage(returnTo: string, values: { firstName?: string; lastName?: string } = {}, error?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in</title><style>${PAGE_STYLE}</style></head>
<body><main>
<h1>Sign in</h1>
<p class="note">Development sign-in: your name is all it takes. Configure IDP_DOMAIN to use a real identity provider.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/auth/sign-in">
<input type="hidden" name="returnTo" value="${escapeHtml(returnTo)}">
<label>First name <input name="firstName" autocomplete="given-name" required maxlength="100" value="${escapeHtml(values.firstName ?? '')}"></label>
<label>Last name <input name="lastName" autocomplete="family-name" required maxlength="100" value="${escapeHtml(values.lastName ?? '')}"></label>
<button type="submit">Sign in</button>
</form>
</main></body></html>
`;
}

/** Takes the token from the fragment, stores it, returns to `state` (a path on this site). */
const CALLBACK_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Signing in</title><style>${PAGE_STYLE}</style></head>
<body><main><p id="status">Signing in...</p></main>
<script>
(function () {
  var params = new URLSearchParams(location.hash.slice(1));
  var token = params.get('access_token');
  var error = params.get('error_description') || params.get('error');
  var state = params.get('state') || '/';
  if (!/^\\/(?![\\/\\\\])/.test(state)) state = '/';
  var status = document.getElementById('status');
  if (!token) {
    status.className = 'error';
    status.textContent = 'Sign-in failed: ' + (error || 'no token was returned') + '.';
    return;
  }
  var expiresIn = Number(params.get('expires_in')) || 3600;
  try {
    localStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, JSON.stringify({ token: token, expiresAt: Date.now() + expiresIn * 1000 }));
  } catch (e) {
    status.className = 'error';
    status.textContent = 'Sign-in failed: this browser does not let the page store the token (' + e.message + ').';
    return;
  }
  history.replaceState(null, '', location.pathname);
  location.replace(state);
})();
</script>
</body></html>
`;

/** The callback URL, absolute or a path on this server. */
function callbackUrl(config: ServerConfig): string {
  return config.identityProvider.callbackUrl || '/auth/callback';
}

/**
 * The sign-in pages' policy: nothing but their own inline style and, by its hash, the callback's
 * script; never framed (a framed sign-in form invites clickjacking).
 */
const SIGN_IN_CSP = `default-src 'none'; style-src 'unsafe-inline'; script-src ${inlineScriptHashes(CALLBACK_PAGE).join(' ')}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', SIGN_IN_CSP)
    .header('x-frame-options', 'DENY')
    // The callback's URL holds a token (in its fragment, which no referrer carries; still, none).
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(html);
}

export default async function authRoutes(app: FastifyInstance, opts: { config: ServerConfig; store: Store }): Promise<void> {
  const { config } = opts;
  const development = usesDevelopmentIdentity(config);

  app.get('/auth/callback', async (_request, reply) => sendHtml(reply, 200, CALLBACK_PAGE));

  // Who the bearer token names (401 without one): lets the app show who is signed in.
  app.get('/v1/me', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return requireUser(request);
  });

  if (!development) {
    let discovered: Promise<string> | undefined;
    /** The provider's authorization endpoint from its OpenID configuration (cached once found). */
    const authorizationEndpoint = () => {
      discovered ??= (async () => {
        const url = `${config.identityProvider.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
        const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
        if (!res.ok) throw new Error(`${url} answered ${res.status}`);
        const body = (await res.json()) as { authorization_endpoint?: unknown };
        if (typeof body.authorization_endpoint !== 'string') throw new Error(`${url} names no authorization_endpoint`);
        return body.authorization_endpoint;
      })();
      discovered.catch(() => (discovered = undefined));
      return discovered;
    };

    app.get<{ Querystring: { returnTo?: string } }>('/auth/sign-in', async (request, reply) => {
      let endpoint: string;
      try {
        endpoint = await authorizationEndpoint();
      } catch (error) {
        throw new HttpError(502, `The identity provider cannot be reached: ${(error as Error).message}`);
      }
      const redirect = new URL(callbackUrl(config), publicOrigin(config, (request.socket.localPort ?? config.port) as number));
      const url = new URL(endpoint);
      url.searchParams.set('response_type', 'token');
      url.searchParams.set('client_id', config.identityProvider.clientId);
      url.searchParams.set('redirect_uri', redirect.href);
      url.searchParams.set('audience', TOKEN_AUDIENCE);
      url.searchParams.set('scope', 'openid profile');
      url.searchParams.set('state', safeReturnPath(request.query.returnTo));
      return reply.header('cache-control', 'no-store').redirect(url.href, 302);
    });
    return;
  }

  // ----- The embedded development provider -----

  const key = await developmentSigningKey(config.dataDir);

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get('/.well-known/jwks.json', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300').header('access-control-allow-origin', '*');
    return { keys: [key.publicJwk] };
  });

  app.get('/.well-known/openid-configuration', async (request, reply) => {
    const origin = config.publicUrl ?? `${request.protocol}://${request.host}`;
    reply.header('cache-control', 'public, max-age=300').header('access-control-allow-origin', '*');
    return {
      issuer: config.identityProvider.issuer,
      authorization_endpoint: `${origin}/auth/sign-in`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      response_types_supported: ['token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [key.alg],
      claims_supported: ['sub', 'given_name', 'family_name', 'name'],
    };
  });

  app.get<{ Querystring: { returnTo?: string } }>('/auth/sign-in', async (request, reply) =>
    sendHtml(reply, 200, signInPage(safeReturnPath(request.query.returnTo))),
  );

  app.post('/auth/sign-in', async (request, reply) => {
    const isForm = (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    const raw = (request.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturnPath(raw.returnTo);
    const parsed = Person.safeParse(raw);
    if (!parsed.success) {
      const message = describeZodError(parsed.error);
      if (isForm) {
        return sendHtml(reply, 400, signInPage(returnTo, { firstName: String(raw.firstName ?? ''), lastName: String(raw.lastName ?? '') }, `Please fill in both names (${message}).`));
      }
      throw new HttpError(400, `Invalid request: ${message}`);
    }
    const { token, user, expiresIn } = await signDevelopmentToken(key, parsed.data, { issuer: config.identityProvider.issuer });
    if (isForm) {
      const fragment = new URLSearchParams({ access_token: token, token_type: 'Bearer', expires_in: String(DEV_TOKEN_LIFETIME_S), state: returnTo });
      return reply.header('cache-control', 'no-store').redirect(`${callbackUrl(config)}#${fragment}`, 303);
    }
    reply.header('cache-control', 'no-store');
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, user };
  });
}
