import { afterAll } from 'vitest';
import { postgresSkipReason, sharedPostgres, stopSharedPostgres } from './postgres.ts';

/**
 * The storage backends every service suite runs against: SQLite (the embedded default) and a real
 * PostgreSQL that the tests start themselves (./postgres.ts). Without PostgreSQL binaries the
 * PostgreSQL suites are skipped, loudly.
 */

export const BACKENDS = ['sqlite', 'postgres'] as const;
export type BackendName = (typeof BACKENDS)[number];

const reason = postgresSkipReason();
let warned = false;

/** Registers the shared cluster's teardown for this test file; call at the file's top level. */
export function useBackends(): readonly BackendName[] {
  afterAll(stopSharedPostgres, 60_000);
  if (reason && !warned) {
    warned = true;
    console.warn(`[service tests] SKIPPING the PostgreSQL suites: ${reason}`);
  }
  return BACKENDS;
}

/** True when this backend's suites must be skipped here. */
export function unavailable(backend: BackendName): boolean {
  return backend === 'postgres' && reason !== undefined;
}

/** Server environment for a backend: a fresh PostgreSQL database per call, nothing for SQLite. */
export async function backendEnv(backend: BackendName): Promise<Record<string, string>> {
  if (backend === 'sqlite') return {};
  const cluster = await sharedPostgres();
  return { DATABASE_URL: await cluster.createDatabase() };
}
