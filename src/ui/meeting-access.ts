import { getToken, hasTokenGenerator, readStoredToken } from '../service/token';

/** The member access of this page, if any: a host's token generator, or the stored sign-in token. */
export function memberAccess(): { kind: 'member'; token: () => Promise<string> } | null {
  if (hasTokenGenerator()) return { kind: 'member', token: () => getToken() };
  if (readStoredToken()) {
    return {
      kind: 'member',
      token: async () => {
        const token = readStoredToken();
        if (!token) throw new Error('Your sign-in expired: sign in again to rejoin the meeting.');
        return token;
      },
    };
  }
  return null;
}
