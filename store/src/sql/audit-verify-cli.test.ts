// `npm run audit:verify` against a real database: an embedded ./data directory (DATA_DIR),
// and PostgreSQL (DATABASE_URL) when TEST_DATABASE_URL is set. It exits 0 on intact
// chains and 1, naming the row, once a row is edited; --team narrows it to one team.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openTestSqlStore, sqlBackends } from '../testing/sql.ts';
import { openSqlStore, type SqlStore } from './connect.ts';
import { migrateToLatest } from './migrate.ts';
import { writeAudit } from './repos/audit.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function verify(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const { DATABASE_URL: _database, REDIS_URL: _redis, ...inherited } = process.env;
    execFile('npx', ['tsx', 'store/src/sql/audit-verify-cli.ts', ...args], { cwd: ROOT, env: { ...inherited, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, out: stdout + stderr }),
    );
  });
}

/** Writes two teams' chains through `withDb`, checks the CLI, edits a row of one, checks again. */
async function tamperable(withDb: <T>(work: (store: SqlStore) => Promise<T>) => Promise<T>, env: Record<string, string>) {
  const [intact, tampered] = [randomUUID(), randomUUID()];
  await withDb(async (store) => {
    for (const teamId of [intact, tampered]) {
      for (let n = 1; n <= 3; n++) await writeAudit(store.db, { teamId, actorUserId: null, action: 'budget.updated', targetType: 'budget', targetId: `b${n}`, details: { n } });
    }
  });
  const everything = await verify(env);
  expect(everything.code, everything.out).toBe(0);
  expect(everything.out).toContain(`team ${tampered}: ok, 3 rows from seq 1 to 3`);
  const row = await withDb(async (store) => {
    await sql`update audit_log set details = '{"n": 7}'::jsonb where team_id = ${tampered} and seq = 2`.execute(store.db);
    return store.db.selectFrom('audit_log').select('id').where('team_id', '=', tampered).where('seq', '=', 2n).executeTakeFirstOrThrow();
  });
  const broken = await verify(env);
  expect(broken.code).toBe(1);
  expect(broken.out).toContain(`team ${tampered}: BROKEN at seq 2 (row ${row.id}): edited`);
  expect(broken.out).toContain(`team ${intact}: ok`);
  expect((await verify(env, '--team', intact)).code).toBe(0);
  expect((await verify(env, '--team', tampered)).code).toBe(1);
  expect(await verify(env, '--team', 'x')).toEqual({ code: 2, out: '--team must be a team id (a UUID), got "x"\n' });
}

describe('npm run audit:verify', () => {
  it('on the embedded ./data (DATA_DIR)', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'audit-verify-'));
    try {
      // One process at a time opens an embedded database: the test's store is closed while the command runs.
      await tamperable(async (work) => {
        const store = await openSqlStore({ kind: 'pglite', dataDir: path.join(dataDir, 'pg') });
        try {
          await migrateToLatest(store.db);
          return await work(store);
        } finally {
          await store.close();
        }
      }, { DATA_DIR: dataDir });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it.runIf(sqlBackends.includes('postgres'))('on PostgreSQL (DATABASE_URL)', async () => {
    const store = await openTestSqlStore('postgres');
    try {
      await tamperable((work) => work(store), { DATABASE_URL: store.url! });
    } finally {
      await store.close();
    }
  }, 240_000);
});
