import type pg from 'pg';
import { StoreError, assertId, INSTANCE_LOG_KEPT, type Store } from './common.ts';

/** The instanced groups' part of the Store on PostgreSQL (postgres.ts). */
export type InstanceGroupStore = Pick<
  Store,
  'getInstanceGroup' | 'instanceGroupRevision' | 'listInstanceChanges' | 'knownInstanceChanges' | 'commitInstances' | 'deleteInstanceGroup'
>;

/**
 * Instanced asset groups in PostgreSQL: each group's base set and revision (instance_groups) and
 * its log of instance changes since (instance_changes). A commit takes the group's row lock and
 * checks the revision it expects, so concurrent commits from any number of servers go one by one.
 */
export function postgresInstances(pool: pg.Pool, transaction: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>): InstanceGroupStore {
  return {
    async getInstanceGroup(sceneId, groupId) {
      assertId('scene', sceneId);
      const result = await pool.query<{ revision: number; base_revision: number; base: Buffer }>(
        'SELECT revision, base_revision, base FROM instance_groups WHERE scene_id = $1 AND group_id = $2',
        [sceneId, groupId],
      );
      const row = result.rows[0];
      return row
        ? { revision: row.revision, baseRevision: row.base_revision, base: new Uint8Array(row.base.buffer, row.base.byteOffset, row.base.byteLength) }
        : undefined;
    },

    async instanceGroupRevision(sceneId, groupId) {
      assertId('scene', sceneId);
      const result = await pool.query<{ revision: number; base_revision: number }>(
        'SELECT revision, base_revision FROM instance_groups WHERE scene_id = $1 AND group_id = $2',
        [sceneId, groupId],
      );
      const row = result.rows[0];
      return row ? { revision: row.revision, baseRevision: row.base_revision } : undefined;
    },

    async listInstanceChanges(sceneId, groupId, afterRevision) {
      assertId('scene', sceneId);
      const result = await pool.query<{ revision: number; uuid: string; body: unknown }>(
        'SELECT revision, uuid, body FROM instance_changes WHERE scene_id = $1 AND group_id = $2 AND revision > $3 ORDER BY revision',
        [sceneId, groupId, afterRevision],
      );
      return result.rows.map((row) => ({ revision: row.revision, uuid: row.uuid, body: JSON.stringify(row.body) }));
    },

    async knownInstanceChanges(sceneId, uuids) {
      assertId('scene', sceneId);
      const known = new Map<string, { groupId: string; revision: number; body: string }>();
      if (uuids.length === 0) return known;
      const result = await pool.query<{ uuid: string; group_id: string; revision: number; body: unknown }>(
        'SELECT uuid, group_id, revision, body FROM instance_changes WHERE scene_id = $1 AND uuid = ANY($2::text[])',
        [sceneId, uuids],
      );
      for (const row of result.rows) known.set(row.uuid, { groupId: row.group_id, revision: row.revision, body: JSON.stringify(row.body) });
      return known;
    },

    async commitInstances(sceneId, groupId, expected, commit) {
      assertId('scene', sceneId);
      return transaction(async (client) => {
        const current = await client.query<{ revision: number }>('SELECT revision FROM instance_groups WHERE scene_id = $1 AND group_id = $2 FOR UPDATE', [
          sceneId,
          groupId,
        ]);
        if ((current.rows[0]?.revision ?? null) !== expected) return false;
        const base = commit.base ? Buffer.from(commit.base.bytes.buffer, commit.base.bytes.byteOffset, commit.base.bytes.byteLength) : null;
        if (current.rowCount === 0) {
          if (!commit.base) throw new StoreError('BAD_DOCUMENT', `Instanced group '${groupId}' needs a base set to be created`);
          const scene = await client.query('SELECT 1 FROM scenes WHERE id = $1 FOR SHARE', [sceneId]);
          if (scene.rowCount === 0) throw new StoreError('BAD_ID', `Scene '${sceneId}' not found`);
          // Two creators racing: the loser's insert conflicts and it reads again.
          const inserted = await client.query(
            'INSERT INTO instance_groups (scene_id, group_id, revision, base_revision, base) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
            [sceneId, groupId, commit.revision, commit.base.revision, base],
          );
          if (inserted.rowCount === 0) return false;
        } else {
          await client.query('UPDATE instance_groups SET revision = $3, updated_at = now() WHERE scene_id = $1 AND group_id = $2', [
            sceneId,
            groupId,
            commit.revision,
          ]);
          if (commit.base)
            await client.query('UPDATE instance_groups SET base_revision = $3, base = $4 WHERE scene_id = $1 AND group_id = $2', [
              sceneId,
              groupId,
              commit.base.revision,
              base,
            ]);
        }
        if (commit.base)
          await client.query('DELETE FROM instance_changes WHERE scene_id = $1 AND group_id = $2 AND revision <= $3', [
            sceneId,
            groupId,
            commit.base.revision - INSTANCE_LOG_KEPT,
          ]);
        if (commit.rows.length > 0) {
          await client.query(
            `INSERT INTO instance_changes (scene_id, group_id, revision, uuid, body, user_id)
           SELECT $1, $2, r.revision, r.uuid, r.body, $4 FROM jsonb_to_recordset($3::jsonb) AS r(revision bigint, uuid text, body jsonb)`,
            [
              sceneId,
              groupId,
              JSON.stringify(commit.rows.map((row) => ({ revision: row.revision, uuid: row.uuid, body: JSON.parse(row.body) }))),
              commit.userId ?? null,
            ],
          );
        }
        return true;
      });
    },

    async deleteInstanceGroup(sceneId, groupId) {
      assertId('scene', sceneId);
      await pool.query('DELETE FROM instance_groups WHERE scene_id = $1 AND group_id = $2', [sceneId, groupId]);
    },
  };
}
