import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ModelDoc, SceneDoc } from '../../protocol/scene.ts';
import type { Store } from '../db/common.ts';
import { canReadScene } from './permissions.ts';

/**
 * Signed derivative URLs (issue 33, item 10). A model container that only private scenes list is
 * served by the derivative CDN only at a signed, expiring URL:
 *
 *   {modelDerivativeCdn}/{latestVersionKey}/model_file.binz?exp={unix s}&sig={base64url HMAC-SHA256}
 *
 * The scene document (GET /v1/scenes/{id} and every other answer that gives a reader the scene, and
 * GET /v1/models/{id}) carries the query for such a model as `derivativeQuery`, an optional field
 * the viewer appends to the specification's URL. Containers any public scene lists keep their plain
 * URL and their year of public caching. The HMAC key is a secret of DATA_DIR
 * (`identity/derivative-url-key`, mode 0600, made on first use with an exclusive link), so every
 * process sharing DATA_DIR signs and checks alike.
 */

export const DERIVATIVE_URL_KEY_FILE = join('identity', 'derivative-url-key');
/** A signed URL is good for at least this long after the scene document was answered... */
export const DERIVATIVE_URL_LIFETIME_S = 60 * 60;
/** ...and its expiry is rounded up to a multiple of this: the same URL (one browser cache entry) for ten minutes of scene answers. */
export const DERIVATIVE_URL_STEP_S = 10 * 60;
/** How long the CDN trusts its answer to "is this container a public scene's?" (an unsigned request refused is asked again at once). */
export const ACCESS_CACHE_MS = 10_000;
const ACCESS_CACHE_SIZE = 10_000;

/** The first words of every refusal of a private model's file. */
export const PRIVATE_DERIVATIVE = 'This model belongs to a private scene: its file needs the signed URL the scene document gives';

const keys = new Map<string, Promise<Buffer>>();

/** The HMAC key of a DATA_DIR, created when there is none. */
export function derivativeUrlKey(dataDir: string): Promise<Buffer> {
  const file = resolve(dataDir, DERIVATIVE_URL_KEY_FILE);
  let key = keys.get(file);
  if (!key) {
    key = loadOrCreate(file);
    keys.set(file, key);
    key.catch(() => keys.delete(file));
  }
  return key;
}

async function loadOrCreate(file: string): Promise<Buffer> {
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text === undefined) {
    await mkdir(resolve(file, '..'), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    try {
      await link(temp, file); // fails if another process made the key first: use theirs
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temp, { force: true });
    }
    text = await readFile(file, 'utf8');
  }
  const key = Buffer.from(text.trim(), 'base64url');
  if (key.byteLength < 32) throw new Error(`${file} is not a derivative URL key (32 random bytes, base64url): delete it to make a new one (signed URLs given out so far stop working)`);
  return key;
}

function signature(key: Buffer, versionKey: string, exp: number): string {
  return createHmac('sha256', key).update(`derivative\n${versionKey}\n${exp}`).digest('base64url');
}

/** The query (without '?') that opens `versionKey`'s container until about an hour from `nowS`. */
export function signDerivativeQuery(key: Buffer, versionKey: string, nowS = Date.now() / 1000): string {
  const exp = Math.ceil((nowS + DERIVATIVE_URL_LIFETIME_S) / DERIVATIVE_URL_STEP_S) * DERIVATIVE_URL_STEP_S;
  return `exp=${exp}&sig=${signature(key, versionKey, exp)}`;
}

export type DerivativeSignature =
  | { state: 'none' }
  | { state: 'valid'; exp: number }
  | { state: 'expired'; exp: number }
  | { state: 'bad'; reason: string };

/** What a request's query (as Fastify parsed it) says about its signature for `versionKey`. */
export function checkDerivativeQuery(key: Buffer, versionKey: string, query: unknown, nowS = Date.now() / 1000): DerivativeSignature {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const { exp: expText, sig } = q;
  if (expText === undefined && sig === undefined) return { state: 'none' };
  if (typeof expText !== 'string' || typeof sig !== 'string') return { state: 'bad', reason: 'it needs exactly one exp and one sig' };
  if (!/^\d{1,12}$/.test(expText)) return { state: 'bad', reason: 'exp is not a time in seconds' };
  const exp = Number(expText);
  const expected = Buffer.from(signature(key, versionKey, exp));
  const given = Buffer.from(sig);
  if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) return { state: 'bad', reason: 'its signature (sig) does not match the version and exp' };
  if (exp <= nowS) return { state: 'expired', exp };
  return { state: 'valid', exp };
}

/** The 403's reason for a private container asked for with this signature. */
export function refusal(signed: Exclude<DerivativeSignature, { state: 'valid' }>): string {
  switch (signed.state) {
    case 'none':
      return `${PRIVATE_DERIVATIVE} (the model's derivativeQuery); this URL has none`;
    case 'expired':
      return `${PRIVATE_DERIVATIVE}, and this one expired at ${new Date(signed.exp * 1000).toISOString()}: fetch the scene document again for a new one`;
    case 'bad':
      return `${PRIVATE_DERIVATIVE}, and this one is not valid: ${signed.reason}`;
  }
}

/** Who may fetch a container without a signature: 'public' (a public scene lists it), 'private' (only private scenes do), 'unlisted' (no scene does). */
export type DerivativeVisibility = 'public' | 'private' | 'unlisted';

/**
 * Which containers are public, asked of the store by version key (every model document on the
 * container: a duplicate's copies share it) and remembered for ACCESS_CACHE_MS, so the CDN's path
 * costs one lookup per container and ten seconds. One per store (derivativeAccess), shared by the
 * routes of a process.
 */
export class DerivativeAccess {
  private readonly cache = new Map<string, { until: number; visibility: Promise<DerivativeVisibility> }>();

  constructor(
    private readonly store: Pick<Store, 'scenesWithVersion'>,
    private readonly dataDir: string,
    private readonly ttlMs = ACCESS_CACHE_MS,
  ) {}

  /** The container's visibility; `fresh` asks the store whatever is remembered. */
  visibility(versionKey: string, options: { fresh?: boolean } = {}): Promise<DerivativeVisibility> {
    const now = Date.now();
    const cached = this.cache.get(versionKey);
    if (cached && !options.fresh && now < cached.until) return cached.visibility;
    const visibility = this.store.scenesWithVersion(versionKey).then((scenes): DerivativeVisibility => {
      if (scenes.length === 0) return 'unlisted';
      // A model in a public and a private scene is public: anyone may read it through the first.
      return scenes.some((scene) => canReadScene(null, scene)) ? 'public' : 'private';
    });
    this.cache.delete(versionKey);
    if (this.cache.size >= ACCESS_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    const entry = { until: now + this.ttlMs, visibility };
    this.cache.set(versionKey, entry);
    visibility.catch(() => {
      if (this.cache.get(versionKey) === entry) this.cache.delete(versionKey);
    });
    return visibility;
  }

  /** Forgets every answer (this process changed who may read a scene). */
  forget(): void {
    this.cache.clear();
  }

  key(): Promise<Buffer> {
    return derivativeUrlKey(this.dataDir);
  }

  /**
   * The scene as a reader who may read it gets it: for a private scene, each model whose container
   * no public scene lists carries its signed query. A public scene's answer is the document as is.
   */
  async sceneForReader(scene: SceneDoc): Promise<SceneDoc> {
    if (scene.public !== false || scene.models.length === 0) return scene;
    const models = await Promise.all(scene.models.map((model) => this.modelForReader(model)));
    return { ...scene, models };
  }

  /** The model as one of its readers gets it: with its signed query unless its container is public. */
  async modelForReader(model: ModelDoc, nowS = Date.now() / 1000): Promise<ModelDoc> {
    if ((await this.visibility(model.latestVersionKey)) === 'public') return model;
    return { ...model, derivativeQuery: signDerivativeQuery(await this.key(), model.latestVersionKey, nowS) };
  }
}

const accessByStore = new WeakMap<object, DerivativeAccess>();

/** The one DerivativeAccess of a store (the scene, model and CDN routes share its cache). */
export function derivativeAccess(store: Pick<Store, 'scenesWithVersion'>, dataDir: string): DerivativeAccess {
  let access = accessByStore.get(store);
  if (!access) {
    access = new DerivativeAccess(store, dataDir);
    accessByStore.set(store, access);
  }
  return access;
}
