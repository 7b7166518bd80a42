import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestToken } from '../../src/server/auth/tokens.ts';
import { hasPrototypeKeys, removePrototypeKeys } from '../../src/server/db/prototype-keys.ts';
import { SQLITE_FILE_NAME, removeStoredPrototypeKeys } from '../../src/server/store.ts';
import { startServer, type TestServer } from './helpers.ts';

/**
 * Prototype keys (issue 33, item 2): `__proto__` and `constructor.prototype`, however the JSON
 * text spells them (`"\u005f_proto__"`, `"\u0063onstructor"`), are refused in every body, never
 * stored whatever writes the document, and removed from documents stored before, on start.
 */

const PROTO = '"\\u005f_proto__"';
const CONSTRUCTOR = '"\\u0063onstructor"';

/** Every key path of a parsed value (own keys, as JSON.parse makes them). */
function keys(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value).flatMap((key) => [`${path}${key}`, ...keys((value as Record<string, unknown>)[key], `${path}${key}.`)]);
}

describe('prototype keys spelled with JSON escapes', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startServer();
    const signed = await signTestToken(server.dataDir, { firstName: 'Proto', lastName: 'Type' });
    token = signed.token;
    await server.store.putScene({
      _id: 'proto-scene',
      name: 'Proto',
      viewerConfig: { scene: { fog: { enabled: false } } },
      models: [{ _id: 'proto-model', latestVersionKey: 'proto-model/v1', outputFormat: 'glb', sourceFileName: 'a.glb' }],
      ownerId: signed.user.id,
    });
  });
  afterAll(() => server.close());

  it('are found in the parsed value, not the text', () => {
    expect(hasPrototypeKeys(JSON.parse(`{"a":[{${PROTO}:{"x":1}}]}`))).toBe(true);
    expect(hasPrototypeKeys(JSON.parse(`{"a":{${CONSTRUCTOR}:{"prototype":{}}}}`))).toBe(true);
    // A constructor that is only a value is allowed, as is a key that merely contains the word.
    expect(hasPrototypeKeys(JSON.parse('{"constructor":"Pump","my__proto__":1,"a":{"constructor":{"name":"x"}}}'))).toBe(false);
    const value = JSON.parse(`{"keep":1,"deep":[{${PROTO}:1,"b":2}],"c":{${CONSTRUCTOR}:{"prototype":{}}}}`);
    expect(removePrototypeKeys(value)).toBe(true);
    expect(keys(value)).toEqual(['keep', 'deep', 'deep.0', 'deep.0.b', 'c']);
    expect(removePrototypeKeys(value)).toBe(false);
  });

  it('are refused with 400 in every free-form record and in mutations, and nothing is stored', async () => {
    const before = JSON.stringify(await server.store.getScene('proto-scene'));
    const cases: [string, string, string][] = [
      ['PATCH', '/v1/scenes/proto-scene/viewer-config', `{"scene":{${PROTO}:{"polluted":true}}}`],
      ['PATCH', '/v1/scenes/proto-scene/viewer-config', `{"postprocessing":{"ssao":{${CONSTRUCTOR}:{"prototype":{"polluted":true}}}}}`],
      ['PATCH', '/v1/scenes/proto-scene/viewer-config', `{"scene":{"fog":{"\\u005f\\u005f\\u0070roto__":{}}}}`],
      ['POST', '/v1/scenes', `{"name":"New","viewerConfig":{"scene":{${PROTO}:{}}}}`],
      ['POST', '/v1/models/proto-model/apply-mutations', `{"mutations":[{"key":"k","uuid":"u1","createdAt":1,"type":"updateNode","nodeId":"n1","properties":{"visible":true,${PROTO}:{"x":1}}}]}`],
      ['POST', '/v1/models/proto-model/apply-mutations', `{"mutations":[{"key":"k","uuid":"u2","createdAt":1,"type":"updateMaterial","materialId":"m1","properties":{${CONSTRUCTOR}:{"prototype":{}}}}]}`],
    ];
    for (const [method, path, body] of cases) {
      const res = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(await res.json()).toEqual({ error: 'The JSON body must not have "__proto__" or "constructor.prototype" keys' });
    }
    expect(JSON.stringify(await server.store.getScene('proto-scene'))).toBe(before);
    expect((await server.store.listScenes()).map((s) => s._id)).toEqual(['proto-scene']);
    expect((await server.store.listMutations('proto-model'))?.mutations).toEqual([]);
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('are refused by the store itself, whatever writes the document', async () => {
    const doc = JSON.parse(`{"_id":"direct","name":"Direct","viewerConfig":{"scene":{${PROTO}:{"x":1}}},"models":[]}`);
    await expect(server.store.putScene(doc)).rejects.toThrow('Invalid scene: it has a "__proto__" or "constructor.prototype" key');
    expect(await server.store.getScene('direct')).toBeUndefined();
  });

  it('stored before, are served without them and removed on start', async () => {
    // As a server before the fix stored them: the keys own properties of the stored JSON.
    const db = new Database(join(server.dataDir, SQLITE_FILE_NAME));
    const stored = `{"_id":"old","name":"Old","viewerConfig":{"scene":{"fog":{"enabled":true},"__proto__":{"polluted":true}},"postprocessing":{"constructor":{"prototype":{"polluted":true}}}}}`;
    const now = new Date().toISOString();
    db.prepare('INSERT INTO scenes (id, doc, owner_id, created_at, updated_at) VALUES (?, ?, NULL, ?, ?)').run('old', stored, now, now);
    const raw = () => (db.prepare('SELECT doc FROM scenes WHERE id = ?').get('old') as { doc: string }).doc;
    try {
      const served = await (await fetch(`${server.url}/v1/scenes/old`)).json();
      expect(keys(served).filter((k) => k.includes('proto') || k.includes('constructor'))).toEqual([]);
      expect(served.viewerConfig.scene).toEqual({ fog: { enabled: true } });

      expect(await removeStoredPrototypeKeys(server.store)).toEqual(['old']);
      expect(keys(JSON.parse(raw())).filter((k) => k.includes('proto') || k.includes('constructor'))).toEqual([]);
      expect(JSON.parse(raw()).viewerConfig.scene).toEqual({ fog: { enabled: true } });
      // Once clean, a second start finds nothing to do.
      expect(await removeStoredPrototypeKeys(server.store)).toEqual([]);
    } finally {
      db.close();
    }
  });
});
