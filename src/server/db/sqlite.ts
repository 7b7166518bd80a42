import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { LoggedMutation, Mutation, SavedMutation } from '../../protocol/mutation.ts';
import type { ModelDoc, SceneDoc } from '../../protocol/scene.ts';
import {
  StoreError,
  assertId,
  assertVersionKey,
  checkChangedScene,
  checkMutations,
  checkModel,
  checkScene,
  readModel,
  readScene,
  sceneFromInput,
  sceneHelpers,
  INSTANCE_LOG_KEPT,
  type InstanceCommit,
  type SceneRow,
  type Store,
} from './common.ts';
import { sqliteComments } from './comments.ts';
import { openFiles } from './files.ts';
import { importLegacyJson } from './legacy.ts';
import { conflictError, sameMutation, targetId } from './mutations.ts';
import { SQLITE_MIGRATIONS } from './schema.ts';

/**
 * The embedded store: one SQLite database file in DATA_DIR (better-sqlite3, WAL), shared safely by
 * every process that opens the same DATA_DIR (the server, the import CLI, tests). Every write is
 * one IMMEDIATE transaction with prepared statements; other processes wait for the lock up to
 * BUSY_TIMEOUT_MS. Nothing is cached in memory, so a write by another process is seen at once.
 */

export const SQLITE_FILE_NAME = 'parametricos.sqlite';
const BUSY_TIMEOUT_MS = 15_000;

export const SQLITE_SYNCHRONOUS_MODES = ['NORMAL', 'FULL'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS_MODES)[number];

/**
 * WAL with synchronous=NORMAL: a commit is in the WAL file before it is acknowledged, so it
 * survives any crash or kill of the process; the WAL is fsynced at checkpoints, not at every
 * commit, so a power loss or kernel crash may lose the last commits. 'FULL' fsyncs the WAL at
 * every commit (one fsync per transaction, i.e. per batch of mutations): safe against power loss,
 * but each fsync (milliseconds on most disks) blocks the server's event loop.
 */
export const SQLITE_DEFAULT_SYNCHRONOUS: SqliteSynchronous = 'NORMAL';

export interface SqliteOptions {
  /** See SQLITE_DEFAULT_SYNCHRONOUS (SQLITE_SYNCHRONOUS in the configuration). */
  synchronous?: SqliteSynchronous;
}

export async function openSqliteStore(dataDir: string, options: SqliteOptions = {}): Promise<Store> {
  const root = resolve(dataDir);
  mkdirSync(root, { recursive: true });
  const files = await openFiles(root);
  const file = join(root, SQLITE_FILE_NAME);
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? SQLITE_DEFAULT_SYNCHRONOUS}`);
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }

  const sql = {
    listScenes: db.prepare<[], { id: string; doc: string }>('SELECT id, doc FROM scenes ORDER BY id'),
    allSceneModels: db.prepare<[], { scene_id: string; doc: string }>(
      'SELECT sm.scene_id, m.doc FROM scene_models sm JOIN models m ON m.id = sm.model_id ORDER BY sm.scene_id, sm.position',
    ),
    getScene: db.prepare<[string], { doc: string }>('SELECT doc FROM scenes WHERE id = ?'),
    sceneModels: db.prepare<[string], { doc: string }>(
      'SELECT m.doc FROM scene_models sm JOIN models m ON m.id = sm.model_id WHERE sm.scene_id = ? ORDER BY sm.position',
    ),
    scenesWithModel: db.prepare<[string], { id: string; doc: string }>(
      'SELECT DISTINCT s.id, s.doc FROM scenes s JOIN scene_models sm ON sm.scene_id = s.id WHERE sm.model_id = ? ORDER BY s.id',
    ),
    scenesWithVersion: db.prepare<[string], { id: string; doc: string }>(
      `SELECT DISTINCT s.id, s.doc FROM scenes s JOIN scene_models sm ON sm.scene_id = s.id JOIN models m ON m.id = sm.model_id
       WHERE json_extract(m.doc, '$.latestVersionKey') = ? ORDER BY s.id`,
    ),
    upsertScene: db.prepare<[string, string, string | null, string, string]>(
      `INSERT INTO scenes (id, doc, owner_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, owner_id = excluded.owner_id, updated_at = excluded.updated_at`,
    ),
    insertScene: db.prepare<[string, string, string | null, string, string]>(
      'INSERT INTO scenes (id, doc, owner_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    ),
    unlinkModels: db.prepare<[string]>('DELETE FROM scene_models WHERE scene_id = ?'),
    linkModel: db.prepare<[string, number, string]>('INSERT INTO scene_models (scene_id, position, model_id) VALUES (?, ?, ?)'),
    insertModelIfNew: db.prepare<[string, string, string, string]>(
      'INSERT INTO models (id, doc, last_seq, created_at, updated_at) VALUES (?, ?, 0, ?, ?) ON CONFLICT (id) DO NOTHING',
    ),
    upsertModel: db.prepare<[string, string, string, string]>(
      `INSERT INTO models (id, doc, last_seq, created_at, updated_at) VALUES (?, ?, 0, ?, ?)
       ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, updated_at = excluded.updated_at`,
    ),
    getModel: db.prepare<[string], { doc: string }>('SELECT doc FROM models WHERE id = ?'),
    lastSeq: db.prepare<[string], { last_seq: number }>('SELECT last_seq FROM models WHERE id = ?'),
    setLastSeq: db.prepare<[number, string]>('UPDATE models SET last_seq = ? WHERE id = ?'),
    mutationByUuid: db.prepare<[string, string], { seq: number; body: string }>('SELECT seq, body FROM mutations WHERE model_id = ? AND uuid = ?'),
    insertMutationIfNew: db.prepare<[string, number, string, string, string, string, string | null, string]>(
      'INSERT INTO mutations (model_id, seq, uuid, type, target_id, body, user_id, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (model_id, uuid) DO NOTHING',
    ),
    listMutations: db.prepare<[string, number, number], { seq: number; body: string; saved_at: string }>(
      'SELECT seq, body, saved_at FROM mutations WHERE model_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    instanceGroup: db.prepare<[string, string], { revision: number; base_revision: number; base: Buffer }>(
      'SELECT revision, base_revision, base FROM instance_groups WHERE scene_id = ? AND group_id = ?',
    ),
    instanceRevision: db.prepare<[string, string], { revision: number; base_revision: number }>('SELECT revision, base_revision FROM instance_groups WHERE scene_id = ? AND group_id = ?'),
    sceneExists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM scenes WHERE id = ?'),
    insertInstanceGroup: db.prepare<[string, string, number, number, Buffer, string]>(
      'INSERT INTO instance_groups (scene_id, group_id, revision, base_revision, base, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setInstanceRevision: db.prepare<[number, string, string, string]>('UPDATE instance_groups SET revision = ?, updated_at = ? WHERE scene_id = ? AND group_id = ?'),
    setInstanceBase: db.prepare<[number, Buffer, string, string]>('UPDATE instance_groups SET base_revision = ?, base = ? WHERE scene_id = ? AND group_id = ?'),
    dropInstanceLog: db.prepare<[string, string, number]>('DELETE FROM instance_changes WHERE scene_id = ? AND group_id = ? AND revision <= ?'),
    insertInstanceChange: db.prepare<[string, string, number, string, string, string | null, string]>(
      'INSERT INTO instance_changes (scene_id, group_id, revision, uuid, body, user_id, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    listInstanceChanges: db.prepare<[string, string, number], { revision: number; uuid: string; body: string }>(
      'SELECT revision, uuid, body FROM instance_changes WHERE scene_id = ? AND group_id = ? AND revision > ? ORDER BY revision',
    ),
    instanceChangeByUuid: db.prepare<[string, string], { group_id: string; revision: number; body: string }>(
      'SELECT group_id, revision, body FROM instance_changes WHERE scene_id = ? AND uuid = ?',
    ),
    deleteInstanceGroup: db.prepare<[string, string]>('DELETE FROM instance_groups WHERE scene_id = ? AND group_id = ?'),
  };

  const now = () => new Date().toISOString();

  const commitInstancesTx = db.transaction((sceneId: string, groupId: string, expected: number | null, commit: InstanceCommit): boolean => {
    const current = sql.instanceRevision.get(sceneId, groupId);
    if ((current?.revision ?? null) !== expected) return false;
    const at = now();
    if (!current) {
      if (!sql.sceneExists.get(sceneId)) throw new StoreError('BAD_ID', `Scene '${sceneId}' not found`);
      if (!commit.base) throw new StoreError('BAD_DOCUMENT', `Instanced group '${groupId}' needs a base set to be created`);
      sql.insertInstanceGroup.run(sceneId, groupId, commit.revision, commit.base.revision, Buffer.from(commit.base.bytes.buffer, commit.base.bytes.byteOffset, commit.base.bytes.byteLength), at);
    } else {
      sql.setInstanceRevision.run(commit.revision, at, sceneId, groupId);
      if (commit.base) sql.setInstanceBase.run(commit.base.revision, Buffer.from(commit.base.bytes.buffer, commit.base.bytes.byteOffset, commit.base.bytes.byteLength), sceneId, groupId);
    }
    if (commit.base) sql.dropInstanceLog.run(sceneId, groupId, commit.base.revision - INSTANCE_LOG_KEPT);
    for (const row of commit.rows) sql.insertInstanceChange.run(sceneId, groupId, row.revision, row.uuid, row.body, commit.userId ?? null, at);
    return true;
  });

  function sceneAt(id: string): SceneDoc | undefined {
    const row = sql.getScene.get(id);
    if (!row) return undefined;
    return readScene(`scene '${id}'`, row.doc, sql.sceneModels.all(id).map((m) => m.doc));
  }

  /** Writes a checked scene and links its models, inside the caller's transaction. */
  function writeScene(row: SceneRow, models: ModelDoc[], mode: 'upsert' | 'insert'): void {
    const at = now();
    const statement = mode === 'insert' ? sql.insertScene : sql.upsertScene;
    try {
      statement.run(row._id, JSON.stringify(row), row.ownerId ?? null, at, at);
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new StoreError('CONFLICT', `Scene '${row._id}' already exists`);
      }
      throw error;
    }
    sql.unlinkModels.run(row._id);
    models.forEach((model, position) => {
      sql.insertModelIfNew.run(model._id, JSON.stringify(model), at, at);
      sql.linkModel.run(row._id, position, model._id);
    });
  }

  const putSceneTx = db.transaction((row: SceneRow, models: ModelDoc[], mode: 'upsert' | 'insert') => {
    writeScene(row, models, mode);
    return sceneAt(row._id)!;
  });

  const updateSceneTx = db.transaction((id: string, change: (scene: SceneDoc) => SceneDoc) => {
    const scene = sceneAt(id);
    if (!scene) return undefined;
    const { row, models } = checkChangedScene(id, change(scene));
    writeScene(row, models, 'upsert');
    return sceneAt(id)!;
  });

  /** One transaction: each mutation is inserted unless its uuid is in the log (one index probe
   *  either way); a known uuid gets its stored seq, or the whole batch rolls back on a conflict. */
  const applyTx = db.transaction((modelId: string, mutations: Mutation[], userId: string | null): SavedMutation[] | undefined => {
    const model = sql.lastSeq.get(modelId);
    if (!model) return undefined;
    const at = now();
    const saved: SavedMutation[] = [];
    let seq = model.last_seq;
    mutations.forEach((mutation, index) => {
      const body = JSON.stringify(mutation);
      if (sql.insertMutationIfNew.run(modelId, seq + 1, mutation.uuid, mutation.type, targetId(mutation), body, userId, at).changes === 1) {
        seq += 1;
        saved.push({ uuid: mutation.uuid, seq });
        return;
      }
      const stored = sql.mutationByUuid.get(modelId, mutation.uuid)!;
      if (!sameMutation(stored.body, mutation, body)) throw conflictError(index, mutation.uuid, stored.seq);
      saved.push({ uuid: mutation.uuid, seq: stored.seq });
    });
    if (seq !== model.last_seq) sql.setLastSeq.run(seq, modelId);
    return saved;
  });

  const listTx = db.transaction((modelId: string, after: number, limit: number) => {
    const model = sql.lastSeq.get(modelId);
    if (!model) return undefined;
    const rows = sql.listMutations.all(modelId, after, limit);
    const mutations = rows.map((row) => ({ ...(JSON.parse(row.body) as Mutation), seq: row.seq, savedAt: row.saved_at }) as LoggedMutation);
    return { lastSeq: model.last_seq, mutations };
  });

  const store: Store = {
    kind: 'sqlite',
    location: file,

    async listScenes() {
      const models = new Map<string, string[]>();
      for (const row of sql.allSceneModels.all()) {
        const list = models.get(row.scene_id);
        if (list) list.push(row.doc);
        else models.set(row.scene_id, [row.doc]);
      }
      return sql.listScenes.all().map((row) => readScene(`scene '${row.id}'`, row.doc, models.get(row.id) ?? []));
    },

    async getScene(id) {
      assertId('scene', id);
      return sceneAt(id);
    },

    async putScene(doc) {
      const { row, models } = checkScene(doc);
      return putSceneTx.immediate(row, models, 'upsert');
    },

    async createScene(input) {
      const { row, models } = checkScene(sceneFromInput(input));
      return putSceneTx.immediate(row, models, 'insert');
    },

    async updateScene(id, change) {
      assertId('scene', id);
      return updateSceneTx.immediate(id, change);
    },

    ...sceneHelpers({ updateScene: (id, change) => store.updateScene(id, change) }),

    async scenesWithModel(modelId) {
      assertId('model', modelId);
      return sql.scenesWithModel.all(modelId).map((row) => readScene(`scene '${row.id}'`, row.doc, sql.sceneModels.all(row.id).map((m) => m.doc)));
    },

    async scenesWithVersion(versionKey) {
      assertVersionKey(versionKey);
      return sql.scenesWithVersion.all(versionKey).map((row) => readScene(`scene '${row.id}'`, row.doc, sql.sceneModels.all(row.id).map((m) => m.doc)));
    },

    async getModel(id) {
      assertId('model', id);
      const row = sql.getModel.get(id);
      return row ? readModel(`model '${id}'`, row.doc) : undefined;
    },

    async putModel(doc) {
      const model = checkModel(doc);
      const at = now();
      sql.upsertModel.run(model._id, JSON.stringify(model), at, at);
      return model;
    },

    async applyMutations(modelId, mutations, meta = {}) {
      assertId('model', modelId);
      const batch = checkMutations(mutations, meta.validated);
      if (batch.length === 0) return sql.lastSeq.get(modelId) ? [] : undefined;
      return applyTx.immediate(modelId, batch, meta.userId ?? null);
    },

    async listMutations(modelId, options = {}) {
      assertId('model', modelId);
      return listTx.deferred(modelId, options.after ?? 0, options.limit ?? -1);
    },

    async getInstanceGroup(sceneId, groupId) {
      assertId('scene', sceneId);
      const row = sql.instanceGroup.get(sceneId, groupId);
      return row ? { revision: row.revision, baseRevision: row.base_revision, base: new Uint8Array(row.base.buffer, row.base.byteOffset, row.base.byteLength) } : undefined;
    },

    async instanceGroupRevision(sceneId, groupId) {
      assertId('scene', sceneId);
      const row = sql.instanceRevision.get(sceneId, groupId);
      return row ? { revision: row.revision, baseRevision: row.base_revision } : undefined;
    },

    async listInstanceChanges(sceneId, groupId, afterRevision) {
      assertId('scene', sceneId);
      return sql.listInstanceChanges.all(sceneId, groupId, afterRevision);
    },

    async knownInstanceChanges(sceneId, uuids) {
      assertId('scene', sceneId);
      const known = new Map<string, { groupId: string; revision: number; body: string }>();
      for (const uuid of uuids) {
        const row = sql.instanceChangeByUuid.get(sceneId, uuid);
        if (row) known.set(uuid, { groupId: row.group_id, revision: row.revision, body: row.body });
      }
      return known;
    },

    async commitInstances(sceneId, groupId, expected, commit) {
      assertId('scene', sceneId);
      return commitInstancesTx.immediate(sceneId, groupId, expected, commit);
    },

    async deleteInstanceGroup(sceneId, groupId) {
      assertId('scene', sceneId);
      sql.deleteInstanceGroup.run(sceneId, groupId);
    },

    ...files,
    ...sqliteComments(db),

    async close() {
      if (db.open) db.close();
    },
  };

  await importLegacyJson(root, store);
  return store;
}

/** Creates or upgrades the schema in one transaction (other processes opening the file wait). */
function migrate(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  const apply = db.transaction(() => {
    const current = (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;
    if (current > SQLITE_MIGRATIONS.length) {
      throw new StoreError('CORRUPT', `The database has schema version ${current}, newer than this server knows (${SQLITE_MIGRATIONS.length}): update the server`);
    }
    SQLITE_MIGRATIONS.slice(current).forEach((statements, i) => {
      db.exec(statements);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(current + i + 1, new Date().toISOString());
    });
  });
  apply.immediate();
}
