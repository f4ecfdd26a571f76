// Read replicas on a real streaming replica (TEST_DATABASE_READ_URL, which .ci/run starts;
// these cases run only with it): reads are served by the replica, the fresh-read rule sends
// a user who just wrote to the primary, and a lagging or stopped replica is skipped.
// Embedded, readDb is the database itself.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestSqlStore, replicaUrlOf, startPgReplica, type TestSqlStore } from '../testing/index.ts';
import { openSqlStore, type SqlStore } from './connect.ts';
import type { Database } from './schema.ts';

const readUrl = process.env.TEST_DATABASE_READ_URL;

const probeRows = async (db: Kysely<Database>) =>
  (await sql<{ id: number }>`select id from replica_probe order by id`.execute(db)).rows.map(({ id }) => id);

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('read replicas, embedded', () => {
  it('reads from the database itself and reports no lag', async () => {
    const store = await openTestSqlStore('pglite');
    try {
      await store.wrote('user-1');
      expect(await store.readDb('user-1')).toBe(store.db);
      expect(await store.readDb()).toBe(store.db);
      expect(await store.wroteRecently('user-1')).toBe(false);
      expect(store.replicaLag()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(readUrl === undefined)('read replicas on a streaming replica', () => {
  let primary: TestSqlStore;
  let store: SqlStore;
  const replicaDb = () => store.readDb();

  beforeAll(async () => {
    primary = await openTestSqlStore('postgres');
    await sql`create table replica_probe (id int primary key)`.execute(primary.db);
    store = await openSqlStore({ kind: 'postgres', url: primary.url!, readUrls: [replicaUrlOf(primary.url!, readUrl!)], maxReplicaLagSeconds: 3, poolSize: 2 });
    await until(async () => {
      await sql`select 1 from replica_probe`.execute(await replicaDb());
      return true;
    }, 'the test database on the replica');
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await primary?.close();
  });

  it('serves dashboard reads from the replica, which does not see a write while its replay is paused; the primary does', async () => {
    await until(async () => {
      await store.probeReplicas();
      return store.replicaLag()[0]?.serving === true;
    }, 'the replica to serve');
    expect(await replicaDb()).not.toBe(store.db);
    expect((await sql<{ standby: boolean }>`select pg_is_in_recovery() as standby`.execute(await replicaDb())).rows[0]!.standby).toBe(true);
    await sql`select pg_wal_replay_pause()`.execute(await replicaDb());
    try {
      await sql`insert into replica_probe values (1)`.execute(store.db);
      expect(await probeRows(store.db)).toEqual([1]);
      expect(await probeRows(await replicaDb())).toEqual([]);
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(await replicaDb());
    }
    await until(async () => (await probeRows(await replicaDb())).length === 1, 'the replica to replay the write');
  });

  it('sends a user who just changed something to the primary (the fresh-read rule), and no one else', async () => {
    await sql`select pg_wal_replay_pause()`.execute(await replicaDb());
    try {
      await sql`insert into replica_probe values (2)`.execute(store.db);
      await store.wrote('writer');
      expect(await store.wroteRecently('writer')).toBe(true);
      expect(await probeRows(await store.readDb('writer'))).toEqual([1, 2]);
      expect(await probeRows(await store.readDb('reader'))).toEqual([1]);
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(await replicaDb());
    }
  });

  it('measures the lag, and skips a replica lagging past its limit until it catches up', async () => {
    const replica = await store.readDb();
    await sql`select pg_wal_replay_pause()`.execute(replica);
    try {
      await sql`insert into replica_probe values (3)`.execute(store.db);
      await until(async () => {
        await sql`insert into replica_probe values (${Math.floor(Math.random() * 1e9) + 10}) on conflict do nothing`.execute(store.db);
        await store.probeReplicas();
        return (store.replicaLag()[0]?.lagSeconds ?? 0) > 3;
      }, 'the paused replica to lag past 3 s');
      expect(store.replicaLag()[0]).toMatchObject({ serving: false });
      expect(await store.readDb()).toBe(store.db);
      expect(await probeRows(await store.readDb())).toContain(3);
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(replica);
    }
    await until(async () => {
      await store.probeReplicas();
      return store.replicaLag()[0]?.serving === true;
    }, 'the replica to catch up');
    expect(store.replicaLag()[0]!.lagSeconds).toBeLessThanOrEqual(3);
  });

  it('falls back to the primary when its replica is stopped', async () => {
    const own = await startPgReplica();
    const withOwn = await openSqlStore({ kind: 'postgres', url: primary.url!, readUrls: [replicaUrlOf(primary.url!, own.url)], poolSize: 2 });
    try {
      await until(async () => {
        await withOwn.probeReplicas();
        return (await probeRows(await withOwn.readDb())).length > 0 && (await withOwn.readDb()) !== withOwn.db;
      }, 'its own replica to serve');
      await own.stop();
      await until(async () => {
        await withOwn.probeReplicas();
        return withOwn.replicaLag()[0]?.lagSeconds === undefined;
      }, 'the probe to find it down');
      expect(withOwn.replicaLag()[0]).toMatchObject({ serving: false, lagSeconds: undefined });
      expect(await withOwn.readDb()).toBe(withOwn.db);
      expect(await probeRows(await withOwn.readDb())).toContain(1);
    } finally {
      await withOwn.close();
      await own.stop();
    }
  }, 120_000);
});
