import pg from 'pg';
import type { LoggedMutation, Mutation } from '../../protocol/mutation.ts';
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
  type SceneRow,
  type Store,
} from './common.ts';
import { postgresComments } from './comments.ts';
import { postgresInstances } from './postgres-instances.ts';
import { openFiles } from './files.ts';
import { importLegacyJson } from './legacy.ts';
import { planBatch } from './mutations.ts';
import { POSTGRES_MIGRATIONS } from './schema.ts';

/**
 * The store for more than one machine: documents and mutation logs in PostgreSQL (DATABASE_URL),
 * files in DATA_DIR (shared storage or a CDN origin). Writers of the same scene or model take its
 * row lock (SELECT ... FOR UPDATE), so concurrent saves from any number of servers are applied one
 * after the other, in order, none lost. A transaction that loses a deadlock or serialization race
 * is retried.
 */

export interface PostgresOptions {
  /** Connections per process (default 10). */
  poolSize?: number;
}

/** A key for pg_advisory_xact_lock while migrating, so servers starting together migrate once. */
const MIGRATION_LOCK = 0x70617261; // 'para'
const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected
const MAX_ATTEMPTS = 5;

/** host:port/database of a connection string, without user or password. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.hostname || 'localhost'}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'postgres (unparseable DATABASE_URL)';
  }
}

/** int8 (bigint) as a JavaScript number: seqs stay far below 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export async function openPostgresStore(url: string, dataDir: string, options: PostgresOptions = {}): Promise<Store> {
  const files = await openFiles(dataDir);
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, types });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', (error) => console.error(`error: PostgreSQL connection: ${error.message}`));

  async function transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // A connection that cannot even roll back is dropped from the pool, not reused.
        broken = await client.query('ROLLBACK').then(
          () => false,
          () => true,
        );
        if (attempt < MAX_ATTEMPTS && RETRYABLE.has((error as { code?: string }).code ?? '')) continue;
        throw error;
      } finally {
        client.release(broken);
      }
    }
  }

  try {
    await transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
      const current = Number((await client.query<{ v: number }>('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations')).rows[0].v);
      if (current > POSTGRES_MIGRATIONS.length) {
        throw new StoreError(
          'CORRUPT',
          `The database has schema version ${current}, newer than this server knows (${POSTGRES_MIGRATIONS.length}): update the server`,
        );
      }
      for (let version = current + 1; version <= POSTGRES_MIGRATIONS.length; version++) {
        await client.query(POSTGRES_MIGRATIONS[version - 1]);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      }
    });
  } catch (error) {
    await pool.end();
    if (error instanceof StoreError) throw error;
    throw new Error(`PostgreSQL at ${describePostgresUrl(url)} (DATABASE_URL): ${(error as Error).message}`, { cause: error });
  }

  type Queryable = pg.Pool | pg.PoolClient;

  async function sceneAt(db: Queryable, id: string, lock = false): Promise<SceneDoc | undefined> {
    const scene = await db.query<{ doc: unknown }>(`SELECT doc FROM scenes WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    if (scene.rowCount === 0) return undefined;
    const models = await db.query<{ doc: unknown }>(
      'SELECT m.doc FROM scene_models sm JOIN models m ON m.id = sm.model_id WHERE sm.scene_id = $1 ORDER BY sm.position',
      [id],
    );
    return readScene(
      `scene '${id}'`,
      scene.rows[0].doc,
      models.rows.map((r) => r.doc),
    );
  }

  async function writeScene(client: pg.PoolClient, row: SceneRow, models: ModelDoc[], mode: 'upsert' | 'insert'): Promise<void> {
    const doc = JSON.stringify(row);
    if (mode === 'insert') {
      const inserted = await client.query('INSERT INTO scenes (id, doc, owner_id) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [
        row._id,
        doc,
        row.ownerId ?? null,
      ]);
      if (inserted.rowCount === 0) throw new StoreError('CONFLICT', `Scene '${row._id}' already exists`);
    } else {
      await client.query(
        `INSERT INTO scenes (id, doc, owner_id) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, owner_id = excluded.owner_id, updated_at = now()`,
        [row._id, doc, row.ownerId ?? null],
      );
    }
    await client.query('DELETE FROM scene_models WHERE scene_id = $1', [row._id]);
    if (models.length === 0) return;
    await client.query('INSERT INTO models (id, doc) SELECT * FROM unnest($1::text[], $2::jsonb[]) ON CONFLICT (id) DO NOTHING', [
      models.map((m) => m._id),
      models.map((m) => JSON.stringify(m)),
    ]);
    await client.query('INSERT INTO scene_models (scene_id, position, model_id) SELECT $1, * FROM unnest($2::int[], $3::text[])', [
      row._id,
      models.map((_, i) => i),
      models.map((m) => m._id),
    ]);
  }

  const store: Store = {
    kind: 'postgres',
    location: describePostgresUrl(url),

    async listScenes() {
      const [scenes, links] = await Promise.all([
        pool.query<{ id: string; doc: unknown }>('SELECT id, doc FROM scenes ORDER BY id COLLATE "C"'),
        pool.query<{ scene_id: string; doc: unknown }>(
          'SELECT sm.scene_id, m.doc FROM scene_models sm JOIN models m ON m.id = sm.model_id ORDER BY sm.scene_id, sm.position',
        ),
      ]);
      const models = new Map<string, unknown[]>();
      for (const row of links.rows) {
        const list = models.get(row.scene_id);
        if (list) list.push(row.doc);
        else models.set(row.scene_id, [row.doc]);
      }
      return scenes.rows.map((row) => readScene(`scene '${row.id}'`, row.doc, models.get(row.id) ?? []));
    },

    async getScene(id) {
      assertId('scene', id);
      return sceneAt(pool, id);
    },

    async putScene(doc) {
      const { row, models } = checkScene(doc);
      return transaction(async (client) => {
        // Lock the row first (when there is one), so two writers of one scene go one by one.
        await client.query('SELECT 1 FROM scenes WHERE id = $1 FOR UPDATE', [row._id]);
        await writeScene(client, row, models, 'upsert');
        return (await sceneAt(client, row._id))!;
      });
    },

    async createScene(input) {
      const { row, models } = checkScene(sceneFromInput(input));
      return transaction(async (client) => {
        await writeScene(client, row, models, 'insert');
        return (await sceneAt(client, row._id))!;
      });
    },

    async updateScene(id, change) {
      assertId('scene', id);
      return transaction(async (client) => {
        const scene = await sceneAt(client, id, true);
        if (!scene) return undefined;
        const { row, models } = checkChangedScene(id, change(scene));
        await writeScene(client, row, models, 'upsert');
        return (await sceneAt(client, id))!;
      });
    },

    ...sceneHelpers({ updateScene: (id, change) => store.updateScene(id, change) }),

    async scenesWithModel(modelId) {
      assertId('model', modelId);
      // One round trip: each scene with its models in order (json_agg).
      const scenes = await pool.query<{ id: string; doc: unknown; models: unknown[] | null }>(
        `SELECT s.id, s.doc,
           (SELECT json_agg(m.doc ORDER BY sm.position) FROM scene_models sm JOIN models m ON m.id = sm.model_id WHERE sm.scene_id = s.id) AS models
         FROM scenes s
         WHERE s.id IN (SELECT scene_id FROM scene_models WHERE model_id = $1)
         ORDER BY s.id COLLATE "C"`,
        [modelId],
      );
      return scenes.rows.map((row) => readScene(`scene '${row.id}'`, row.doc, row.models ?? []));
    },

    async scenesWithVersion(versionKey) {
      assertVersionKey(versionKey);
      // As scenesWithModel, found through the models on this container (index models_version_key).
      const scenes = await pool.query<{ id: string; doc: unknown; models: unknown[] | null }>(
        `SELECT s.id, s.doc,
           (SELECT json_agg(m.doc ORDER BY sm.position) FROM scene_models sm JOIN models m ON m.id = sm.model_id WHERE sm.scene_id = s.id) AS models
         FROM scenes s
         WHERE s.id IN (SELECT sm.scene_id FROM scene_models sm JOIN models m ON m.id = sm.model_id WHERE m.doc->>'latestVersionKey' = $1)
         ORDER BY s.id COLLATE "C"`,
        [versionKey],
      );
      return scenes.rows.map((row) => readScene(`scene '${row.id}'`, row.doc, row.models ?? []));
    },

    async getModel(id) {
      assertId('model', id);
      const result = await pool.query<{ doc: unknown }>('SELECT doc FROM models WHERE id = $1', [id]);
      return result.rowCount ? readModel(`model '${id}'`, result.rows[0].doc) : undefined;
    },

    async putModel(doc) {
      const model = checkModel(doc);
      await pool.query('INSERT INTO models (id, doc) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, updated_at = now()', [
        model._id,
        JSON.stringify(model),
      ]);
      return model;
    },

    async applyMutations(modelId, mutations, meta = {}) {
      assertId('model', modelId);
      const batch = checkMutations(mutations, meta.validated);
      if (batch.length === 0) {
        const model = await pool.query('SELECT 1 FROM models WHERE id = $1', [modelId]);
        return model.rowCount ? [] : undefined;
      }
      return transaction(async (client) => {
        // The model's row lock orders concurrent batches of one model, across servers; the same
        // statement finds the mutations of the batch that the log has (unique index probes).
        const found = await client.query<{ last_seq: number; uuid: string | null; seq: number | null; body: unknown }>(
          `SELECT m.last_seq, e.uuid, e.seq, e.body
           FROM (SELECT last_seq FROM models WHERE id = $1 FOR UPDATE) AS m
           LEFT JOIN mutations AS e ON e.model_id = $1 AND e.uuid = ANY($2::text[])`,
          [modelId, batch.map((m) => m.uuid)],
        );
        if (found.rowCount === 0) return undefined;
        const existing = new Map<string, { seq: number; body: unknown }>();
        for (const row of found.rows) if (row.uuid !== null) existing.set(row.uuid, { seq: row.seq!, body: row.body });
        const plan = planBatch(found.rows[0].last_seq, batch, existing);
        if (plan.rows.length > 0) {
          // One JSON parameter for the whole batch: the mutations' JSON is embedded as is, where a
          // text[] parameter would escape every quote of every body.
          const rows = `[${plan.rows.map((r) => `{"seq":${r.seq},"uuid":${JSON.stringify(r.uuid)},"type":"${r.type}","target_id":${JSON.stringify(r.targetId)},"body":${r.body}}`).join(',')}]`;
          await client.query(
            `WITH inserted AS (
               INSERT INTO mutations (model_id, seq, uuid, type, target_id, body, user_id)
               SELECT $1, r.seq, r.uuid, r.type, r.target_id, r.body, $3
               FROM jsonb_to_recordset($2::jsonb) AS r (seq BIGINT, uuid TEXT, type TEXT, target_id TEXT, body JSONB)
             )
             UPDATE models SET last_seq = $4 WHERE id = $1`,
            [modelId, rows, meta.userId ?? null, plan.lastSeq],
          );
        }
        return plan.saved;
      });
    },

    async listMutations(modelId, options = {}) {
      assertId('model', modelId);
      return transaction(async (client) => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const model = await client.query<{ last_seq: number }>('SELECT last_seq FROM models WHERE id = $1', [modelId]);
        if (model.rowCount === 0) return undefined;
        const rows = await client.query<{ seq: number; body: Mutation; saved_at: Date }>(
          'SELECT seq, body, saved_at FROM mutations WHERE model_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
          [modelId, options.after ?? 0, options.limit ?? null],
        );
        const mutations = rows.rows.map((row) => ({ ...row.body, seq: row.seq, savedAt: row.saved_at.toISOString() }) as LoggedMutation);
        return { lastSeq: model.rows[0].last_seq, mutations };
      });
    },

    ...postgresInstances(pool, transaction),
    ...files,
    ...postgresComments(pool, transaction),

    async close() {
      await pool.end();
    },
  };

  await importLegacyJson(dataDir, store);
  return store;
}
