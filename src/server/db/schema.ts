/**
 * The database schema, as numbered migrations applied at open (a database records the versions it
 * has in schema_migrations). Append new migrations; never edit one that has shipped.
 *
 * Documents are kept whole as JSON (`doc`), checked by the zod schemas of src/protocol on the way
 * in and out, so a field added to a schema needs no migration; the columns beside them are what
 * queries and permissions need. Mutations are a log per model: `seq` orders it, the unique index
 * on (model_id, uuid) makes saving idempotent with one index lookup per mutation.
 */

import { POSTGRES_COMMENTS_MIGRATION, SQLITE_COMMENTS_MIGRATION } from './comments.ts';

export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE scenes (
    id TEXT PRIMARY KEY,
    doc TEXT NOT NULL,
    owner_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX scenes_owner ON scenes (owner_id);
  CREATE TABLE models (
    id TEXT PRIMARY KEY,
    doc TEXT NOT NULL,
    last_seq INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE scene_models (
    scene_id TEXT NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    model_id TEXT NOT NULL REFERENCES models (id),
    PRIMARY KEY (scene_id, position)
  );
  CREATE INDEX scene_models_model ON scene_models (model_id);
  CREATE TABLE mutations (
    model_id TEXT NOT NULL REFERENCES models (id),
    seq INTEGER NOT NULL,
    uuid TEXT NOT NULL,
    type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    body TEXT NOT NULL,
    user_id TEXT,
    saved_at TEXT NOT NULL,
    PRIMARY KEY (model_id, seq)
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX mutations_uuid ON mutations (model_id, uuid);
  `,
  // 2: instanced asset groups (src/protocol/instances.ts): each group's base set (a binary
  // instance set as of base_revision) and the log of changes after it, one row a change.
  `
  CREATE TABLE instance_groups (
    scene_id TEXT NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
    group_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    base_revision INTEGER NOT NULL,
    base BLOB NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (scene_id, group_id)
  );
  CREATE TABLE instance_changes (
    scene_id TEXT NOT NULL,
    group_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    uuid TEXT NOT NULL,
    body TEXT NOT NULL,
    user_id TEXT,
    saved_at TEXT NOT NULL,
    PRIMARY KEY (scene_id, group_id, revision),
    FOREIGN KEY (scene_id, group_id) REFERENCES instance_groups (scene_id, group_id) ON DELETE CASCADE
  ) WITHOUT ROWID;
  CREATE UNIQUE INDEX instance_changes_uuid ON instance_changes (scene_id, uuid);
  `,
  // 3: comment threads of scenes (issue 16)
  SQLITE_COMMENTS_MIGRATION,
  // 4: models by version key (scenesWithVersion: the derivative CDN asks which scenes list a
  // container, issue 33 item 10). The expression is the one the query uses, word for word.
  `CREATE INDEX models_version_key ON models (json_extract(doc, '$.latestVersionKey'));`,
];

export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE scenes (
    id TEXT PRIMARY KEY,
    doc JSONB NOT NULL,
    owner_id TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
  );
  CREATE INDEX scenes_owner ON scenes (owner_id);
  CREATE TABLE models (
    id TEXT PRIMARY KEY,
    doc JSONB NOT NULL,
    last_seq BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
  );
  CREATE TABLE scene_models (
    scene_id TEXT NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    model_id TEXT NOT NULL REFERENCES models (id),
    PRIMARY KEY (scene_id, position)
  );
  CREATE INDEX scene_models_model ON scene_models (model_id);
  CREATE TABLE mutations (
    model_id TEXT NOT NULL REFERENCES models (id),
    seq BIGINT NOT NULL,
    uuid TEXT NOT NULL,
    type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    body JSONB NOT NULL,
    user_id TEXT,
    saved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (model_id, seq)
  );
  CREATE UNIQUE INDEX mutations_uuid ON mutations (model_id, uuid);
  `,
  // 2: instanced asset groups (see the SQLite migration 2).
  `
  CREATE TABLE instance_groups (
    scene_id TEXT NOT NULL REFERENCES scenes (id) ON DELETE CASCADE,
    group_id TEXT NOT NULL,
    revision BIGINT NOT NULL,
    base_revision BIGINT NOT NULL,
    base BYTEA NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (scene_id, group_id)
  );
  CREATE TABLE instance_changes (
    scene_id TEXT NOT NULL,
    group_id TEXT NOT NULL,
    revision BIGINT NOT NULL,
    uuid TEXT NOT NULL,
    body JSONB NOT NULL,
    user_id TEXT,
    saved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (scene_id, group_id, revision),
    FOREIGN KEY (scene_id, group_id) REFERENCES instance_groups (scene_id, group_id) ON DELETE CASCADE
  );
  CREATE UNIQUE INDEX instance_changes_uuid ON instance_changes (scene_id, uuid);
  `,
  // 3: comment threads of scenes (issue 16)
  POSTGRES_COMMENTS_MIGRATION,
  // 4: models by version key (see the SQLite migration 4).
  `CREATE INDEX models_version_key ON models ((doc->>'latestVersionKey'));`,
];
