import { parseArgs } from 'node:util';
import { ConfigError, loadServerConfig, usesDevelopmentIdentity } from './config.ts';
import { signTestToken } from './auth/tokens.ts';

/**
 * `npm run token -- --name "First Last" [--expires SECONDS]` (DESIGN.md 6): prints a bearer token
 * of the embedded development identity provider, signed with the key of DATA_DIR (the one the
 * server of that DATA_DIR verifies with), for scripts and tests. Refused when a real provider is
 * configured (IDP_DOMAIN). Exit codes: 0 printed, 1 refused, 2 usage error.
 */

const USAGE = `usage: npm run token -- --name "First Last" [--expires SECONDS] [--json]

  --name NAME        the person: first and last name (the same name always gets the same user id)
  --expires SECONDS  lifetime (default 12 hours)
  --json             print { access_token, token_type, expires_in, user } instead of the token alone

Environment: DATA_DIR (default ./data), IDP_DOMAIN (a real provider: then no token is printed).`;

export function splitName(name: string): { firstName: string; lastName: string } {
  const trimmed = name.trim().replace(/\s+/g, ' ');
  const space = trimmed.lastIndexOf(' ');
  if (space <= 0) return { firstName: trimmed, lastName: '' };
  return { firstName: trimmed.slice(0, space), lastName: trimmed.slice(space + 1) };
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { name: { type: 'string' }, expires: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const person = splitName(values.name ?? '');
  if (!person.firstName || !person.lastName) {
    console.error(`error: give a first and a last name, e.g. --name "Ada Lovelace"\n\n${USAGE}`);
    return 2;
  }
  const expiresIn = values.expires === undefined ? undefined : Number(values.expires);
  if (expiresIn !== undefined && (!Number.isFinite(expiresIn) || expiresIn <= 0)) {
    console.error(`error: --expires must be a positive number of seconds\n\n${USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadServerConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`error: ${error.message}`);
      return 1;
    }
    throw error;
  }
  if (!usesDevelopmentIdentity(config)) {
    console.error('error: a real identity provider is configured (IDP_DOMAIN); get tokens from it, not from this script.');
    return 1;
  }
  const { token, user } = await signTestToken(config.dataDir, person, expiresIn === undefined ? {} : { expiresIn });
  if (values.json) console.log(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: expiresIn ?? 12 * 3600, user }));
  else console.log(token);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('token-cli.ts')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(`error: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
