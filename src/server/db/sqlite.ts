import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { LoggedMutation, Mutation, SavedMutation } from '../../protocol/mutation.ts';
import type { ModelDoc, SceneDoc } from '../../protocol/scene.ts';
import {
  StoreError,
  assertId,
  checkChangedScene,
  checkMutations,
  checkModel,
  checkScene,
  readModel,
  readScene,
  sceneFromInput,
  sceneHelpers,
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
  };

  const now = () => new Date().toISOString();

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
