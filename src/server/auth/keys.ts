import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';

/**
 * The development identity provider's signing key: one ES256 key pair per DATA_DIR, created on
 * first use and kept in `{dataDir}/identity/signing-key.json` (private, mode 0600). Every process
 * that opens the same DATA_DIR (the server, tests that sign tokens) uses the same key: the file is
 * created with an exclusive link, so two processes starting at once agree on one key.
 */

export const DEV_SIGNING_ALG = 'ES256';
export const DEV_KEY_FILE = join('identity', 'signing-key.json');

export interface SigningKey {
  kid: string;
  alg: typeof DEV_SIGNING_ALG;
  privateKey: CryptoKey;
  /** The public half as a JWK with kid, alg and use: what /.well-known/jwks.json lists. */
  publicJwk: JWK;
}

const cache = new Map<string, Promise<SigningKey>>();

/** The signing key of a DATA_DIR, created when there is none. */
export function developmentSigningKey(dataDir: string): Promise<SigningKey> {
  const file = resolve(dataDir, DEV_KEY_FILE);
  let key = cache.get(file);
  if (!key) {
    key = loadOrCreate(file);
    cache.set(file, key);
    key.catch(() => cache.delete(file));
  }
  return key;
}

async function loadOrCreate(file: string): Promise<SigningKey> {
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text === undefined) {
    const { privateKey } = await generateKeyPair(DEV_SIGNING_ALG, { extractable: true });
    const jwk = await exportJWK(privateKey);
    await mkdir(resolve(file, '..'), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, `${JSON.stringify(jwk, null, 2)}\n`, { mode: 0o600 });
    try {
      await link(temp, file); // fails if another process created the key first: use theirs
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temp, { force: true });
    }
    text = await readFile(file, 'utf8');
  }
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message}): delete it to make a new development signing key`);
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string') {
    throw new Error(`${file} is not an ES256 private key: delete it to make a new development signing key`);
  }
  const privateKey = (await importJWK(jwk, DEV_SIGNING_ALG)) as CryptoKey;
  const publicJwk: JWK = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const kid = await calculateJwkThumbprint(publicJwk);
  return { kid, alg: DEV_SIGNING_ALG, privateKey, publicJwk: { ...publicJwk, kid, alg: DEV_SIGNING_ALG, use: 'sig' } };
}
