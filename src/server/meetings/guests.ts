import { randomBytes } from 'node:crypto';
import { SignJWT, createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { developmentSigningKey } from '../auth/keys.ts';

/**
 * Guest tokens for public meetings: a visitor of a public scene who is not signed in gives a name
 * and gets a short-lived token for that one scene's meeting on the public-meetings endpoint. They
 * are signed with this server's own key of DATA_DIR (every process sharing DATA_DIR verifies them)
 * for an audience of their own, so they are never accepted as bearer tokens anywhere else.
 */

export const GUEST_AUDIENCE = 'parametricos-meeting-guest';
export const GUEST_ISSUER = 'urn:parametricos:meetings';
export const GUEST_TOKEN_LIFETIME_S = 12 * 60 * 60;

export interface Guest {
  userId: string;
  firstName: string;
  lastName: string;
}

export async function signGuestToken(dataDir: string, sceneId: string, person: { firstName: string; lastName: string }): Promise<{ token: string; guest: Guest; expiresIn: number }> {
  const key = await developmentSigningKey(dataDir);
  const guest: Guest = { userId: `guest-${randomBytes(9).toString('base64url')}`, firstName: person.firstName.trim(), lastName: person.lastName.trim() };
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ given_name: guest.firstName, family_name: guest.lastName, scene: sceneId })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(GUEST_ISSUER)
    .setAudience(GUEST_AUDIENCE)
    .setSubject(guest.userId)
    .setIssuedAt(now)
    .setExpirationTime(now + GUEST_TOKEN_LIFETIME_S)
    .sign(key.privateKey);
  return { token, guest, expiresIn: GUEST_TOKEN_LIFETIME_S };
}

/** The guest a token names, or an Error saying why it cannot be used for this scene. */
export async function verifyGuestToken(dataDir: string, token: string, sceneId: string): Promise<Guest> {
  const key = await developmentSigningKey(dataDir);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, createLocalJWKSet({ keys: [key.publicJwk] }), {
      audience: GUEST_AUDIENCE,
      issuer: GUEST_ISSUER,
      algorithms: [key.alg],
      requiredClaims: ['sub', 'exp', 'scene'],
    }));
  } catch (error) {
    throw new Error(`Invalid guest token: ${(error as Error).message}`);
  }
  if (payload.scene !== sceneId) throw new Error('Invalid guest token: it is for another meeting');
  const name = (value: unknown) => (typeof value === 'string' ? value : '');
  return { userId: payload.sub as string, firstName: name(payload.given_name), lastName: name(payload.family_name) };
}
