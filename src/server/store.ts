import type { ServerConfig } from './config.ts';
import type { Store } from './db/common.ts';
import { openPostgresStore, type PostgresOptions } from './db/postgres.ts';
import { openSqliteStore, type SqliteOptions } from './db/sqlite.ts';

/**
 * Storage of scenes, models, mutation logs and files (DESIGN.md section 5): SQLite in DATA_DIR by
 * default, PostgreSQL when DATABASE_URL is set; derivative containers and thumbnails are files
 * under DATA_DIR either way. The adapters live in ./db; this module picks one.
 */

export {
  DERIVATIVE_FILE_NAME,
  StoreError,
  THUMBNAIL_EXTENSIONS,
  isValidId,
  isValidThumbnailKey,
  isValidVersionKey,
  newId,
  removeStoredPrototypeKeys,
  type MutationLog,
  type NewScene,
  type Store,
  type StoreErrorCode,
  type ThumbnailExtension,
} from './db/common.ts';
export { SQLITE_DEFAULT_SYNCHRONOUS, SQLITE_FILE_NAME, SQLITE_SYNCHRONOUS_MODES, openSqliteStore, type SqliteOptions, type SqliteSynchronous } from './db/sqlite.ts';
export { describePostgresUrl, openPostgresStore, type PostgresOptions } from './db/postgres.ts';

/** The store the configuration names: PostgreSQL for DATABASE_URL, else SQLite in DATA_DIR. */
export async function openStore(
  config: Pick<ServerConfig, 'dataDir' | 'databaseUrl'> & Partial<Pick<ServerConfig, 'sqliteSynchronous'>>,
  options: SqliteOptions & PostgresOptions = {},
): Promise<Store> {
  if (config.databaseUrl) return openPostgresStore(config.databaseUrl, config.dataDir, options);
  return openSqliteStore(config.dataDir, { synchronous: config.sqliteSynchronous, ...options });
}

/**
 * The embedded store of a DATA_DIR (SQLite). Kept under the first server's name for the callers
 * that open a data folder directly (the browser tests' helpers, benchmarks).
 */
export function openFileStore(dataDir: string): Promise<Store> {
  return openSqliteStore(dataDir);
}
