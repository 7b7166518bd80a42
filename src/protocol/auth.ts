import { z } from 'zod';

/** Where the sign-in callback page (/auth/callback) keeps the token: `{ token, expiresAt }` JSON. */
export const TOKEN_STORAGE_KEY = 'parametricos.auth';

/** The audience every bearer token must be issued for (viewer specification section 7). */
export const TOKEN_AUDIENCE = 'parametricos';

/** GET /v1/me: the person the bearer token names (its subject and names). */
export const SignedInPerson = z.object({ id: z.string(), firstName: z.string(), lastName: z.string() });
export type SignedInPerson = z.infer<typeof SignedInPerson>;
