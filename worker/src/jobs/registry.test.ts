// The job table on the queue of each run mode: the embedded mode's in-process queue on
// PGlite, and (with TEST_DATABASE_URL and TEST_REDIS_URL) BullMQ on PostgreSQL. Its prune
// (scheduled hourly; the queue suite runs schedules) deletes what is past its retention and
// keeps the rest; its reconcile-usage repairs rollups that drifted from the events; its
// usage-partitions keeps usage_events' months made ahead.
import { priceCatalog } from '@spendgate/core';
import {
  createEnvelope,
  createLogger,
  createOutboundGuard,
  findOutboxMail,
  insertGroup,
  insertIssuedKey,
  insertOutboxMail,
  insertTeam,
  insertUsageEvents,
  insertUser,
  type JobPayloads,
  markOutboxMail,
  openStores,
  type Stores,
  usagePartitions,
} from '@spendgate/store';
import {
  connectTestRedis,
  deleteKeysWithPrefix,
  openTestSqlStore,
  redisUrl,
  type SqlBackend,
  sqlBackends,
  type TestSqlStore,
  uniquePrefix,
  usageEvent,
} from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERED_MAIL_RETENTION_MS, OTP_RETENTION_MS, RATE_LIMIT_RETENTION_MS } from './prune.ts';
import { registerJobs } from './registry.ts';

const MINUTE_MS = 60_000;
const modes: { name: string; backend: SqlBackend; redisUrl: string | undefined }[] = [
  { name: 'embedded', backend: 'pglite', redisUrl: undefined },
];
if (sqlBackends.includes('postgres') && redisUrl !== undefined) modes.push({ name: 'scaled', backend: 'postgres', redisUrl });

for (const mode of modes) {
  describe(`the job table, ${mode.name}`, () => {
    const redisPrefix = uniquePrefix('registry');
    let sql: TestSqlStore;
    let stores: Stores<JobPayloads>;
    const ago = (ms: number) => new Date(Date.now() - ms);

    beforeAll(async () => {
      sql = await openTestSqlStore(mode.backend);
      stores = await openStores<JobPayloads>({ databaseUrl: undefined, dataDir: '', redisUrl: mode.redisUrl }, { sql, redisPrefix });
    });
    afterAll(async () => {
      await stores?.close();
      await sql?.close();
      if (mode.redisUrl === undefined) return;
      const redis = connectTestRedis();
      await deleteKeysWithPrefix(redis, redisPrefix);
      redis.disconnect();
    });

    it('consumes every job of the table: prune deletes what is past its retention and keeps what is not, mail delivers', async () => {
      const otp = { email: 'ada@example.com', purpose: 'register', code_hash: 'hash', expires_at: ago(0) } as const;
      await sql.db
        .insertInto('email_otps')
        .values([
          { ...otp, id: crypto.randomUUID(), created_at: ago(OTP_RETENTION_MS + MINUTE_MS) },
          { ...otp, id: 'a0000000-0000-4000-8000-000000000001', created_at: ago(OTP_RETENTION_MS - MINUTE_MS) },
        ])
        .execute();
      await sql.db
        .insertInto('rate_limit_hits')
        .values([
          { bucket: 'login:ip:900:10.0.0.1', window_start: ago(RATE_LIMIT_RETENTION_MS + MINUTE_MS), hits: 3 },
          { bucket: 'login:ip:900:10.0.0.2', window_start: ago(0), hits: 1 },
        ])
        .execute();
      const stale = ago(DELIVERED_MAIL_RETENTION_MS + MINUTE_MS);
      const stored: { id: string; createdAt: Date; status: 'pending' | 'sent' | 'logged' }[] = [
        { id: crypto.randomUUID(), createdAt: stale, status: 'logged' },
        { id: crypto.randomUUID(), createdAt: stale, status: 'sent' },
        { id: 'b0000000-0000-4000-8000-000000000001', createdAt: stale, status: 'pending' },
        { id: 'b0000000-0000-4000-8000-000000000002', createdAt: ago(DELIVERED_MAIL_RETENTION_MS - MINUTE_MS), status: 'logged' },
      ];
      for (const { id, createdAt, status } of stored) {
        await sql.db
          .insertInto('mail_outbox')
          .values({ id, to_address: 'ada@example.com', subject: 'Your code', text_body: '123456', created_at: createdAt })
          .execute();
        if (status !== 'pending') await markOutboxMail(sql.db, id, { status, at: createdAt });
      }

      await registerJobs(stores.queue, {
        sql,
        mail: { smtpUrl: undefined, from: 'Spendgate <no-reply@x>' },
        log: createLogger('silent'),
        usageEventRetentionDays: 30,
        gpuSampleRetentionHours: 48,
        queue: stores.queue,
        envelope: createEnvelope(Buffer.alloc(32, 7)),
        outbound: createOutboundGuard({ allowedHosts: [] }),
        twilioApiUrl: 'https://api.twilio.com',
        publicUrl: 'http://localhost:3000',
        stripe: { apiUrl: 'https://api.stripe.com', secretKey: undefined },
        catalog: priceCatalog,
        invalidateKey: stores.invalidateKey,
      });
      await stores.queue.enqueue('prune', {}, { jobId: 'prune-now' });

      const remaining = async () => ({
        otps: (await sql.db.selectFrom('email_otps').select('id').execute()).map((row) => row.id),
        windows: (await sql.db.selectFrom('rate_limit_hits').select('bucket').execute()).map((row) => row.bucket),
        mail: (await sql.db.selectFrom('mail_outbox').select('id').orderBy('id').execute()).map((row) => row.id),
      });
      await expect.poll(remaining, { timeout: 10_000 }).toEqual({
        otps: ['a0000000-0000-4000-8000-000000000001'],
        windows: ['login:ip:900:10.0.0.2'],
        mail: ['b0000000-0000-4000-8000-000000000001', 'b0000000-0000-4000-8000-000000000002'],
      });

      const outboxId = crypto.randomUUID();
      await insertOutboxMail(sql.db, { id: outboxId, to: 'ada@example.com', subject: 'Your code', text: '654321' });
      await stores.queue.enqueue('mail', { outboxId }, { jobId: `mail-${outboxId}` });
      await expect.poll(async () => (await findOutboxMail(sql.db, outboxId))?.status, { timeout: 10_000 }).toBe('logged');
    });

    it('reconcile-usage rebuilds rollups that drifted from the usage events', async () => {
      const user = crypto.randomUUID();
      const team = crypto.randomUUID();
      const group = crypto.randomUUID();
      const key = crypto.randomUUID();
      await insertUser(sql.db, { id: user, email: `reconcile-${mode.name}@example.com`, name: 'R', passwordHash: 'x' });
      await insertTeam(sql.db, { id: team, name: 'R', description: '', createdBy: user });
      await insertGroup(sql.db, { id: group, teamId: team, name: 'G', description: '', createdBy: user });
      await insertIssuedKey(sql.db, { id: key, team_id: team, group_id: group, connection_id: null, kind: 'optimised', name: 'k', key_hash: `h-${key}`, key_prefix: 'sg_live_r', created_by: user });
      const owner = { teamId: team, groupId: group, keyId: key };
      await insertUsageEvents(sql.db, [usageEvent(owner, ago(2 * 3_600_000), { request_id: `reconcile-${team}` })]);
      await sql.db.updateTable('usage_rollups').set({ requests: 7 }).where('team_id', '=', team).execute();

      await stores.queue.enqueue('reconcile-usage', { lookBackHours: 48 }, { jobId: `reconcile-${team}` });
      const requestsPerCell = async () => (await sql.db.selectFrom('usage_rollups').select('requests').where('team_id', '=', team).execute()).map((row) => Number(row.requests));
      await expect.poll(requestsPerCell, { timeout: 10_000 }).toEqual([1, 1]);

      // prune deletes events past the retention (30 days here) and keeps their rollups.
      await insertUsageEvents(sql.db, [usageEvent(owner, ago(40 * 86_400_000), { request_id: `old-${team}` })]);
      await stores.queue.enqueue('prune', {}, { jobId: `prune-${team}` });
      const eventsOfTeam = async () => (await sql.db.selectFrom('usage_events').select('request_id').where('team_id', '=', team).execute()).map((row) => row.request_id);
      await expect.poll(eventsOfTeam, { timeout: 10_000 }).toEqual([`reconcile-${team}`]);
      expect(await requestsPerCell()).toEqual([1, 1, 1, 1]);
    });

    it('usage-partitions makes the month three ahead', async () => {
      const now = new Date();
      const ahead = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 1));
      const name = `usage_events_${ahead.getUTCFullYear()}_${String(ahead.getUTCMonth() + 1).padStart(2, '0')}`;
      await sql.db.schema.dropTable(name).ifExists().execute();
      expect(await usagePartitions(sql.db)).not.toContain(name);
      await stores.queue.enqueue('usage-partitions', {}, { jobId: 'usage-partitions-now' });
      await expect.poll(() => usagePartitions(sql.db), { timeout: 10_000 }).toContain(name);
    });
  });
}
