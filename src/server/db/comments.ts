import type Database from 'better-sqlite3';
import type pg from 'pg';
import { CommentThread, MAX_COMMENTS_PER_SCENE, usableComments } from '../../protocol/comments.ts';
import { StoreError, assertId, describeIssues } from './common.ts';

/**
 * Comment threads of scenes (issue 16), kept by both adapters in the `comments` table: one row per
 * thread, the whole thread (replies included) as a JSON document checked by the CommentThread
 * schema on the way in and out. A thread belongs to one scene and goes when the scene goes.
 */
export interface CommentStore {
  /** The scene's threads, oldest first; ones whose anchor lacks position, target or direction are ignored. */
  listComments(sceneId: string): Promise<CommentThread[]>;
  getComment(sceneId: string, commentId: string): Promise<CommentThread | undefined>;
  /** Stores a new thread; StoreError CONFLICT past MAX_COMMENTS_PER_SCENE or for an id in use. */
  createComment(thread: CommentThread): Promise<CommentThread>;
  /**
   * Reads, changes and writes one thread in one transaction (concurrent replies of one thread are
   * applied one after the other). `change` may throw to refuse; it must not change the ids.
   */
  updateComment(sceneId: string, commentId: string, change: (thread: CommentThread) => CommentThread): Promise<CommentThread | undefined>;
  /** Deletes a thread once `check` (run on the stored thread, inside the transaction) allows it; false when there is none. */
  deleteComment(sceneId: string, commentId: string, check?: (thread: CommentThread) => void): Promise<boolean>;
}

/** Additive migrations (IF NOT EXISTS: they may run in any order with other branches' ones). */
export const SQLITE_COMMENTS_MIGRATION = `
  CREATE TABLE IF NOT EXISTS comments (
    id TEXT PRIMARY KEY,
    scene_id TEXT NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
    doc TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS comments_scene ON comments (scene_id, created_at, id);
`;
export const POSTGRES_COMMENTS_MIGRATION = `
  CREATE TABLE IF NOT EXISTS comments (
    id TEXT PRIMARY KEY,
    scene_id TEXT NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
    doc JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
  );
  CREATE INDEX IF NOT EXISTS comments_scene ON comments (scene_id, created_at, id);
`;

function checkThread(thread: CommentThread): CommentThread {
  const result = CommentThread.safeParse(thread);
  if (!result.success) throw new StoreError('BAD_DOCUMENT', `Invalid comment: ${describeIssues(result.error)}`);
  assertId('scene', result.data.sceneId);
  assertId('comment', result.data._id);
  return result.data;
}

function checkChanged(before: CommentThread, after: CommentThread): CommentThread {
  const checked = checkThread(after);
  if (checked._id !== before._id || checked.sceneId !== before.sceneId) {
    throw new StoreError('BAD_DOCUMENT', `A comment update must not change its id or scene ('${before._id}')`);
  }
  return checked;
}

function readThreads(sceneId: string, docs: unknown[]): CommentThread[] {
  const { comments, invalid, firstError } = usableComments(docs.map((doc) => (typeof doc === 'string' ? JSON.parse(doc) : doc)));
  // Not silent: a stored thread the schema refuses is a fault of ours, logged with the reason.
  if (invalid > 0) console.error(`error: scene '${sceneId}': ${invalid} stored comment(s) are invalid and not shown (${firstError})`);
  return comments;
}

function readThread(where: string, doc: unknown): CommentThread {
  const json = typeof doc === 'string' ? JSON.parse(doc) : doc;
  const result = CommentThread.safeParse(json);
  if (!result.success) throw new StoreError('CORRUPT', `${where} is not a valid comment: ${describeIssues(result.error)}`);
  return result.data;
}

const tooMany = (sceneId: string) => new StoreError('CONFLICT', `Scene '${sceneId}' has ${MAX_COMMENTS_PER_SCENE} comments, the most one scene keeps: delete resolved ones first`);

export function sqliteComments(db: Database.Database): CommentStore {
  const sql = {
    list: db.prepare<[string], { doc: string }>('SELECT doc FROM comments WHERE scene_id = ? ORDER BY created_at, id'),
    get: db.prepare<[string, string], { doc: string }>('SELECT doc FROM comments WHERE scene_id = ? AND id = ?'),
    count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM comments WHERE scene_id = ?'),
    insert: db.prepare<[string, string, string, string, string]>('INSERT INTO comments (id, scene_id, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)'),
    update: db.prepare<[string, string, string, string]>('UPDATE comments SET doc = ?, updated_at = ? WHERE scene_id = ? AND id = ?'),
    remove: db.prepare<[string, string]>('DELETE FROM comments WHERE scene_id = ? AND id = ?'),
  };
  const createTx = db.transaction((thread: CommentThread) => {
    if (sql.count.get(thread.sceneId)!.n >= MAX_COMMENTS_PER_SCENE) throw tooMany(thread.sceneId);
    try {
      sql.insert.run(thread._id, thread.sceneId, JSON.stringify(thread), thread.createdAt, thread.updatedAt);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw new StoreError('CONFLICT', `Comment '${thread._id}' already exists`);
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new StoreError('BAD_ID', `Scene '${thread.sceneId}' does not exist`);
      throw error;
    }
    return thread;
  });
  const updateTx = db.transaction((sceneId: string, commentId: string, change: (thread: CommentThread) => CommentThread) => {
    const row = sql.get.get(sceneId, commentId);
    if (!row) return undefined;
    const before = readThread(`comment '${commentId}'`, row.doc);
    const after = checkChanged(before, change(before));
    sql.update.run(JSON.stringify(after), after.updatedAt, sceneId, commentId);
    return after;
  });
  const deleteTx = db.transaction((sceneId: string, commentId: string, check?: (thread: CommentThread) => void) => {
    const row = sql.get.get(sceneId, commentId);
    if (!row) return false;
    check?.(readThread(`comment '${commentId}'`, row.doc));
    return sql.remove.run(sceneId, commentId).changes === 1;
  });
  return {
    async listComments(sceneId) {
      assertId('scene', sceneId);
      return readThreads(sceneId, sql.list.all(sceneId).map((r) => r.doc));
    },
    async getComment(sceneId, commentId) {
      assertId('scene', sceneId);
      assertId('comment', commentId);
      const row = sql.get.get(sceneId, commentId);
      return row ? readThread(`comment '${commentId}'`, row.doc) : undefined;
    },
    async createComment(thread) {
      return createTx.immediate(checkThread(thread));
    },
    async updateComment(sceneId, commentId, change) {
      assertId('scene', sceneId);
      assertId('comment', commentId);
      return updateTx.immediate(sceneId, commentId, change);
    },
    async deleteComment(sceneId, commentId, check) {
      assertId('scene', sceneId);
      assertId('comment', commentId);
      return deleteTx.immediate(sceneId, commentId, check);
    },
  };
}

export function postgresComments(pool: pg.Pool, transaction: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>): CommentStore {
  return {
    async listComments(sceneId) {
      assertId('scene', sceneId);
      const rows = await pool.query<{ doc: unknown }>('SELECT doc FROM comments WHERE scene_id = $1 ORDER BY created_at, id COLLATE "C"', [sceneId]);
      return readThreads(sceneId, rows.rows.map((r) => r.doc));
    },
    async getComment(sceneId, commentId) {
      assertId('scene', sceneId);
      assertId('comment', commentId);
      const rows = await pool.query<{ doc: unknown }>('SELECT doc FROM comments WHERE scene_id = $1 AND id = $2', [sceneId, commentId]);
      return rows.rowCount ? readThread(`comment '${commentId}'`, rows.rows[0].doc) : undefined;
    },
    async createComment(input) {
      const thread = checkThread(input);
      return transaction(async (client) => {
        // The scene's row lock orders concurrent creations, so the limit holds across servers.
        const scene = await client.query('SELECT 1 FROM scenes WHERE id = $1 FOR UPDATE', [thread.sceneId]);
        if (scene.rowCount === 0) throw new StoreError('BAD_ID', `Scene '${thread.sceneId}' does not exist`);
        const count = await client.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM comments WHERE scene_id = $1', [thread.sceneId]);
        if (count.rows[0].n >= MAX_COMMENTS_PER_SCENE) throw tooMany(thread.sceneId);
        const inserted = await client.query(
          'INSERT INTO comments (id, scene_id, doc, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING',
          [thread._id, thread.sceneId, JSON.stringify(thread), thread.createdAt, thread.updatedAt],
        );
        if (inserted.rowCount === 0) throw new StoreError('CONFLICT', `Comment '${thread._id}' already exists`);
        return thread;
      });
    },
    async updateComment(sceneId, commentId, change) {
      assertId('scene', sceneId);
      assertId('comment', commentId);
      return transaction(async (client) => {
        const rows = await client.query<{ doc: unknown }>('SELECT doc FROM comments WHERE scene_id = $1 AND id = $2 FOR UPDATE', [sceneId, commentId]);
        if (rows.rowCount === 0) return undefined;
        const before = readThread(`comment '${commentId}'`, rows.rows[0].doc);
        const after = checkChanged(before, change(before));
        await client.query('UPDATE comments SET doc = $1, updated_at = $2 WHERE scene_id = $3 AND id = $4', [JSON.stringify(after), after.updatedAt, sceneId, commentId]);
        return after;
      });
    },
    async deleteComment(sceneId, commentId, check) {
      assertId('scene', sceneId);
      assertId('comment', commentId);
      return transaction(async (client) => {
        const rows = await client.query<{ doc: unknown }>('SELECT doc FROM comments WHERE scene_id = $1 AND id = $2 FOR UPDATE', [sceneId, commentId]);
        if (rows.rowCount === 0) return false;
        check?.(readThread(`comment '${commentId}'`, rows.rows[0].doc));
        await client.query('DELETE FROM comments WHERE scene_id = $1 AND id = $2', [sceneId, commentId]);
        return true;
      });
    },
  };
}
