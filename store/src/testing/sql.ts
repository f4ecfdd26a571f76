// Test databases: each test file gets its own — a clone of the migrated PGlite
// template, or (when TEST_DATABASE_URL is set) a fresh PostgreSQL database that is
// dropped again on close, and whose URL other processes of the test can use.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { openSqlStore, type SqlStore } from '../sql/connect.ts';
import { migrateToLatest } from '../sql/migrate.ts';
import { ensureUsagePartitions } from '../sql/usage-partitions.ts';
import { replicaUrlOf } from './pg-replica.ts';

export type SqlBackend = 'pglite' | 'postgres';

/** The SQL backends this run tests: PGlite, and PostgreSQL when TEST_DATABASE_URL is set (then only it with TEST_ONLY_SCALED=1). */
export const sqlBackends: SqlBackend[] = process.env.TEST_DATABASE_URL
  ? process.env.TEST_ONLY_SCALED === '1' ? ['postgres'] : ['pglite', 'postgres']
  : ['pglite'];

export interface TestSqlStore extends SqlStore {
  /** PostgreSQL only: the test database's URL, for another process to connect to it. */
  url?: string;
}

/**
 * `readReplica`: PostgreSQL only, a streaming replica of TEST_DATABASE_URL's server
 * (pg-replica.ts) whose copy of the test database serves `readDb` once it has replicated;
 * `freshReadMs` shortens the fresh-read window (read-replicas.ts).
 */
export async function openTestSqlStore(
  backend: SqlBackend,
  now = new Date(),
  readReplica?: { url: string; maxLagSeconds?: number; freshReadMs?: number },
): Promise<TestSqlStore> {
  if (backend === 'pglite') {
    const template = await readFile(inject('pgliteTemplatePath'));
    const store = await openSqlStore({ kind: 'pglite', loadDataDir: new Blob([template]) });
    await ensureUsagePartitions(store.db, now);
    return store;
  }
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `sgtest_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = await openSqlStore({
    kind: 'postgres',
    url: url.toString(),
    poolSize: 5,
    ...(readReplica
      ? { readUrls: [replicaUrlOf(url.toString(), readReplica.url)], maxReplicaLagSeconds: readReplica.maxLagSeconds, freshReadMs: readReplica.freshReadMs }
      : {}),
  });
  await migrateToLatest(store.db);
  await ensureUsagePartitions(store.db, now);
  return {
    ...store,
    url: url.toString(),
    close: async () => {
      await store.close();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}
