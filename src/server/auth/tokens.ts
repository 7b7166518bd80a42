import { createHash } from 'node:crypto';
import { SignJWT, createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { CONFIG_DEFAULTS, TOKEN_AUDIENCE, type ServerConfig } from '../config.ts';
import { developmentSigningKey, type SigningKey } from './keys.ts';

/**
 * Bearer tokens (DESIGN.md 4.4): JWTs for the audience 'parametricos', signed by the identity
 * provider, checked against its JWKS. The embedded development provider signs with a key kept in
 * DATA_DIR; a real OIDC provider (IDP_DOMAIN) publishes its keys at its JWKS URL.
 */

/** The person a valid token names. */
export interface AuthUser {
  /** The token's subject. */
  id: string;
  firstName: string;
  lastName: string;
}

/** A token that cannot be accepted; `reason` says why in words a developer can act on. */
export class TokenError extends Error {
  /** 401: the token is bad; 503: the provider's keys could not be fetched. */
  readonly statusCode: 401 | 503;
  constructor(message: string, statusCode: 401 | 503 = 401) {
    super(message);
    this.name = 'TokenError';
    this.statusCode = statusCode;
  }
}

/** How long a development token is valid. */
export const DEV_TOKEN_LIFETIME_S = 12 * 60 * 60;
/** Allowed clock difference between this server and the provider (exp, nbf, and iat in the future). */
export const CLOCK_TOLERANCE_S = 5;
/** Asymmetric algorithms a real provider may use; never 'none', never a shared secret. */
const PROVIDER_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export type TokenVerifier = (token: string) => Promise<AuthUser>;

/** Verified tokens are remembered (a signature check costs about 0.15 ms) for this long at most,
 *  and never past their expiry. */
const CACHE_TTL_MS = 5 * 60_000;
const CACHE_SIZE = 1000;

/** The verifier for the configured provider (the development key of DATA_DIR when none is set). */
export async function createTokenVerifier(config: Pick<ServerConfig, 'dataDir' | 'identityProvider'>): Promise<TokenVerifier> {
  const { issuer, jwksUrl } = config.identityProvider;
  let keys: JWTVerifyGetKey;
  let algorithms: string[];
  if (jwksUrl === undefined) {
    const key = await developmentSigningKey(config.dataDir);
    keys = createLocalJWKSet({ keys: [key.publicJwk] });
    algorithms = [key.alg];
  } else {
    keys = providerKeys(createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 }));
    algorithms = PROVIDER_ALGORITHMS;
  }
  const cache = new Map<string, { user: AuthUser; until: number }>();
  return async (token) => {
    const cached = cache.get(token);
    if (cached) {
      if (Date.now() < cached.until) return cached.user;
      cache.delete(token);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        audience: TOKEN_AUDIENCE,
        issuer,
        algorithms,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      throw tokenError(error, issuer);
    }
    checkClaims(payload);
    const user = userFromClaims(payload);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(token, { user, until: Math.min(Date.now() + CACHE_TTL_MS, (payload.exp as number) * 1000) });
    return user;
  };
}

/** The provider's key set could not be had (unreachable, an error answer, not a key set): a 503, never the token's fault. */
class KeySetUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the identity provider's key set cannot be fetched: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'KeySetUnavailable';
  }
}

/**
 * The remote key set, with every failure to get it (network, timeout, an HTTP error, a body that is
 * not a key set) told apart from what is about the token: no key for its kid or alg stays a 401.
 */
function providerKeys(remote: JWTVerifyGetKey): JWTVerifyGetKey {
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JOSENotSupported) throw error;
      throw new KeySetUnavailable(error);
    }
  };
}

function tokenError(error: unknown, issuer: string): TokenError {
  if (error instanceof KeySetUnavailable) return new TokenError("The identity provider's keys cannot be fetched right now; try again later", 503);
  if (error instanceof errors.JWTExpired) return new TokenError('Invalid token: the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'aud':
        return new TokenError(`Invalid token: the audience (aud) must be '${TOKEN_AUDIENCE}'`);
      case 'iss':
        return new TokenError(`Invalid token: the issuer (iss) must be '${issuer}'`);
      case 'nbf':
        return new TokenError('Invalid token: the token is not valid yet (nbf)');
      case 'iat':
        return new TokenError('Invalid token: the issue time (iat) is invalid');
      default:
        return new TokenError(`Invalid token: the ${error.claim} claim ${error.reason === 'missing' ? 'is missing' : 'is invalid'}`);
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new TokenError('Invalid token: its signing algorithm (alg) is not allowed');
  if (error instanceof errors.JWSSignatureVerificationFailed) return new TokenError('Invalid token: the signature does not verify');
  if (error instanceof errors.JWKSNoMatchingKey) return new TokenError("Invalid token: it was not signed by one of the identity provider's keys");
  return new TokenError('Invalid token: it is not a well-formed signed JWT');
}

/**
 * What jwtVerify leaves to us: it checks `iat` only with maxTokenAge (a token issued in the future
 * would otherwise pass), and `sub` only for presence (an empty or blank subject would name a person
 * with the user id '', who could own scenes).
 */
export function checkClaims(payload: JWTPayload, nowS = Date.now() / 1000): void {
  if (typeof payload.sub !== 'string') throw new TokenError('Invalid token: the subject (sub) must be a string');
  if (payload.sub.trim() === '') throw new TokenError('Invalid token: the subject (sub) is empty; it must name the person');
  // jwtVerify has already refused an iat that is not a number.
  if (typeof payload.iat === 'number' && payload.iat > nowS + CLOCK_TOLERANCE_S) {
    throw new TokenError(
      `Invalid token: its issue time (iat) lies ${Math.round(payload.iat - nowS)} s in the future (at most ${CLOCK_TOLERANCE_S} s of clock difference are allowed)`,
    );
  }
}

function claim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** OIDC standard claims: given_name / family_name, else `name` split at its last space. */
export function userFromClaims(payload: JWTPayload): AuthUser {
  let firstName = claim(payload, 'given_name');
  let lastName = claim(payload, 'family_name');
  if (firstName === undefined && lastName === undefined) {
    const name = claim(payload, 'name') ?? claim(payload, 'nickname') ?? '';
    const space = name.lastIndexOf(' ');
    firstName = space > 0 ? name.slice(0, space) : name;
    lastName = space > 0 ? name.slice(space + 1) : '';
  }
  return { id: payload.sub as string, firstName: firstName ?? '', lastName: lastName ?? '' };
}

/** The development provider's user id for a name: the same person (by name) gets the same id. */
export function developmentUserId(firstName: string, lastName: string): string {
  const normal = `${firstName.trim().toLowerCase()}\n${lastName.trim().toLowerCase()}`;
  return `dev-${createHash('sha256').update(normal).digest('base64url').slice(0, 16)}`;
}

export interface DevelopmentTokenOptions {
  /** Seconds until it expires (default DEV_TOKEN_LIFETIME_S); negative makes an expired token. */
  expiresIn?: number;
  /** Override the audience (tests of the audience check). */
  audience?: string;
  /** Override the issuer (tests of the issuer check). */
  issuer?: string;
  /** Override the subject (default developmentUserId(firstName, lastName)). */
  subject?: string;
  /** Override the issue time, in seconds from now (tests of the iat check; default: now). */
  issuedIn?: number;
}

/** Signs a development token for a person with the key of a DATA_DIR. */
export async function signDevelopmentToken(
  key: SigningKey,
  person: { firstName: string; lastName: string },
  options: DevelopmentTokenOptions = {},
): Promise<{ token: string; user: AuthUser; expiresIn: number }> {
  const firstName = person.firstName.trim();
  const lastName = person.lastName.trim();
  const user: AuthUser = { id: options.subject ?? developmentUserId(firstName, lastName), firstName, lastName };
  const expiresIn = options.expiresIn ?? DEV_TOKEN_LIFETIME_S;
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ given_name: firstName, family_name: lastName, name: `${firstName} ${lastName}`.trim() })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(options.issuer ?? CONFIG_DEFAULTS.DEV_IDP_ISSUER)
    .setAudience(options.audience ?? TOKEN_AUDIENCE)
    .setSubject(user.id)
    .setIssuedAt(options.issuedIn !== undefined ? now + options.issuedIn : Math.min(now, now + expiresIn - 60))
    .setExpirationTime(now + expiresIn)
    .sign(key.privateKey);
  return { token, user, expiresIn };
}

/**
 * For tests and scripts: a development token for a person, signed with the key of `dataDir` (the
 * same key the server of that DATA_DIR verifies with).
 */
export async function signTestToken(
  dataDir: string,
  person: { firstName: string; lastName: string },
  options: DevelopmentTokenOptions = {},
): Promise<{ token: string; user: AuthUser }> {
  const { token, user } = await signDevelopmentToken(await developmentSigningKey(dataDir), person, options);
  return { token, user };
}
