import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INSTANCE_LOG_KEPT } from '../../../src/server/db/common.ts';
import { openStore, type Store } from '../../../src/server/store.ts';
import { backendEnv, unavailable, useBackends } from '../backends.ts';
import { tempDir } from '../helpers.ts';

/**
 * The instanced groups' part of the store (src/server/db/postgres-instances.ts on PostgreSQL),
 * called directly; SQLite answers the same, so both backends run it.
 */

const row = (revision: number, uuid = `c${revision}`) => ({ revision, uuid, body: JSON.stringify({ uuid, op: 'set', revision }) });
const bytes = (...values: number[]) => new Uint8Array(values);
/** Log rows with their bodies parsed (PostgreSQL's jsonb keeps the change, not its key order). */
const parsed = (rows: { revision: number; uuid: string; body: string }[]) => rows.map((r) => ({ ...r, body: JSON.parse(r.body) as unknown }));

describe.each(useBackends())('instanced groups in the store on %s', (backend) => {
  let dir: string;
  let store: Store;

  beforeEach(async ({ skip }) => {
    if (unavailable(backend)) skip();
    dir = await tempDir('instances-store-');
    store = await openStore({ dataDir: dir, databaseUrl: (await backendEnv(backend)).DATABASE_URL });
    await store.putScene({ _id: 's1', name: 'One', viewerConfig: {}, models: [] });
  });
  afterEach(async () => {
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates a group with its base set, then commits changes only at the revision it expects', async () => {
    expect(await store.getInstanceGroup('s1', 'g')).toBeUndefined();
    expect(await store.instanceGroupRevision('s1', 'g')).toBeUndefined();
    await expect(store.commitInstances('s1', 'g', null, { revision: 1, rows: [] })).rejects.toThrow(/needs a base set/);
    await expect(store.commitInstances('missing', 'g', null, { revision: 1, rows: [], base: { revision: 1, bytes: bytes(1) } })).rejects.toThrow(/not found/);
    expect(await store.commitInstances('s1', 'g', null, { revision: 1, rows: [], base: { revision: 1, bytes: bytes(1, 2, 3) } })).toBe(true);
    // A second creator loses: the group exists.
    expect(await store.commitInstances('s1', 'g', null, { revision: 1, rows: [], base: { revision: 1, bytes: bytes(9) } })).toBe(false);
    expect(await store.getInstanceGroup('s1', 'g')).toEqual({ revision: 1, baseRevision: 1, base: bytes(1, 2, 3) });

    expect(await store.commitInstances('s1', 'g', 1, { revision: 3, rows: [row(2), row(3)], userId: 'u1' })).toBe(true);
    // A commit that expected an older revision changes nothing.
    expect(await store.commitInstances('s1', 'g', 1, { revision: 4, rows: [row(4)] })).toBe(false);
    expect(await store.instanceGroupRevision('s1', 'g')).toEqual({ revision: 3, baseRevision: 1 });
    expect(parsed(await store.listInstanceChanges('s1', 'g', 0))).toEqual(parsed([row(2), row(3)]));
    expect(parsed(await store.listInstanceChanges('s1', 'g', 2))).toEqual(parsed([row(3)]));
    const known = await store.knownInstanceChanges('s1', ['c3', 'c4']);
    expect([...known.keys()]).toEqual(['c3']);
    expect({ ...known.get('c3')!, body: JSON.parse(known.get('c3')!.body) }).toEqual({ groupId: 'g', revision: 3, body: JSON.parse(row(3).body) });
    expect((await store.knownInstanceChanges('s1', [])).size).toBe(0);
  });

  it("a new base set replaces the group's, and the log before it is kept for INSTANCE_LOG_KEPT revisions", async () => {
    await store.commitInstances('s1', 'g', null, { revision: 1, rows: [], base: { revision: 1, bytes: bytes(1) } });
    await store.commitInstances('s1', 'g', 1, { revision: 3, rows: [row(2), row(3)] });
    const far = 3 + INSTANCE_LOG_KEPT;
    expect(await store.commitInstances('s1', 'g', 3, { revision: far, rows: [row(far)], base: { revision: far, bytes: bytes(7, 7) } })).toBe(true);
    expect(await store.getInstanceGroup('s1', 'g')).toEqual({ revision: far, baseRevision: far, base: bytes(7, 7) });
    // Revisions up to far - INSTANCE_LOG_KEPT (3) are dropped; the new one stays.
    expect(parsed(await store.listInstanceChanges('s1', 'g', 0))).toEqual(parsed([row(far)]));
  });

  it('deletes a group', async () => {
    await store.commitInstances('s1', 'g', null, { revision: 1, rows: [], base: { revision: 1, bytes: bytes(1) } });
    await store.deleteInstanceGroup('s1', 'g');
    expect(await store.getInstanceGroup('s1', 'g')).toBeUndefined();
  });
});
