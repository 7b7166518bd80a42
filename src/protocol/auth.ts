/** Where the sign-in callback page (/auth/callback) keeps the token: `{ token, expiresAt }` JSON. */
export const TOKEN_STORAGE_KEY = 'parametricos.auth';

/** The audience every bearer token must be issued for (viewer specification section 7). */
export const TOKEN_AUDIENCE = 'parametricos';
