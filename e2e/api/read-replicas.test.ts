/**
 * The dashboards' reads on a read replica, through the API, with two gateways (the test's
 * own and a second process) on one database, one streaming replica of its own and one
 * Redis (scaled mode, only when TEST_DATABASE_READ_URL says the run has replicas). While
 * the replica's replay is paused, rows written to the primary are missing from what the
 * request log, the usage export, the forecasts, the GPU screen and the invoices answer a
 * user who changed nothing lately: they read the replica. Right after that user changes
 * something on one gateway, both gateways answer from the primary (the fresh-read rule,
 * shared through Redis), until the shortened fresh-read window has passed. A worker of the
 * same configuration opens no replica.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureGpuCluster, insertInvoice, insertUsageEvents, loadConfig, saveForecast, upsertSubscription } from '@spendgate/store';
import { connectTestRedis, deleteKeysWithPrefix, type RunningPgReplica, replicaUrlOf, startPgReplica, uniquePrefix, usageEvent } from '@spendgate/store/testing';
import { startWorker } from '@spendgate/worker';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from '../support/gateway-process.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const replicasRun = testModes.includes('scaled') && process.env.TEST_DATABASE_READ_URL !== undefined;
/** The fresh-read window of the gateway the user changes things on (FRESH_READ_MS is 10 s). */
const FRESH_READ_MS = 5_000;
const HOUR_MS = 3_600_000;

describe.skipIf(!replicasRun)('read replicas behind two gateways (scaled)', () => {
  let replica: RunningPgReplica;
  let spendgate: RunningSpendgate;
  let second: GatewayProcess;
  let replicaClient: pg.Client;
  let primaryClient: pg.Client;
  const admin = { token: '', userId: '', teamId: '', subscriptionId: '' };
  const now = new Date();
  const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
  const written = { requestId: `req_replica_${randomUUID()}`, invoiceId: randomUUID(), gpuUuid: `GPU-${randomUUID()}` };
  let lastChangeAt = 0;

  /** What each routed read answers `base` now, reduced to whether it shows the rows written while replay was paused. */
  const sees = async (base: string) => {
    const get = async (route: string) => {
      const answer = await callApi(base, 'GET', route, { token: admin.token });
      expect(answer.status, `${route}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body.data;
    };
    const range = `from=${new Date(now.getTime() - 2 * HOUR_MS).toISOString()}&to=${new Date(now.getTime() + HOUR_MS).toISOString()}`;
    const exported = await fetch(`${base}/api/usage/export?teamId=${admin.teamId}&granularity=request`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(exported.status).toBe(200);
    return {
      requestLog: (await get(`/usage/requests?teamId=${admin.teamId}`)).items.some((item: { requestId: string }) => item.requestId === written.requestId),
      export: (await exported.text()).includes(written.requestId),
      forecast: (await get(`/usage/cost/forecast?teamId=${admin.teamId}&period=${lastMonth}`)).forecast !== null,
      gpu: (await get(`/gpu/utilization?teamId=${admin.teamId}&${range}`)).hours.length > 0,
      invoices: (await get('/subscription/billing')).some((invoice: { id: string }) => invoice.id === written.invoiceId),
    };
  };
  const none = { requestLog: false, export: false, forecast: false, gpu: false, invoices: false };
  const all = { requestLog: true, export: true, forecast: true, gpu: true, invoices: true };

  /** A change of the admin's through the API (a new group), stamped by the gateway at `base`. */
  const change = async (base: string) => {
    const made = await callApi(base, 'POST', '/synthetic-group', { token: admin.token, body: { name: `g-${randomUUID().slice(0, 8)}`, description: '', teamId: admin.teamId } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    lastChangeAt = Date.now();
  };
  /** Past the admin's fresh-read window: their reads go to the replica again. */
  const windowPassed = () => sleep(Math.max(0, lastChangeAt + FRESH_READ_MS + 200 - Date.now()));

  beforeAll(async () => {
    replica = await startPgReplica();
    spendgate = await startSpendgate('scaled', 'read-replicas', { readReplica: { url: replica.url, maxLagSeconds: 3_600, freshReadMs: FRESH_READ_MS } });
    second = await startGatewayProcess(spendgate.peer!);
    const db = spendgate.app.runtime.stores.sql.db;
    Object.assign(admin, await signUp(spendgate.url, 'replica-reader@example.com'));
    await upsertSubscription(db, { userId: admin.userId, planSlug: 'enterprise', status: 'active', trialEnd: null });
    admin.subscriptionId = (await db.selectFrom('subscriptions').select('id').where('user_id', '=', admin.userId).executeTakeFirstOrThrow()).id;
    const team = await callApi(spendgate.url, 'POST', '/team/', { token: admin.token, body: { name: 'Replicated', description: '' } });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    admin.teamId = team.body.data.id;
    lastChangeAt = Date.now();

    // The replica replays all of that, then stands still.
    replicaClient = new pg.Client({ connectionString: replicaUrlOf(spendgate.peer!.env.DATABASE_URL!, replica.url) });
    await replicaClient.connect();
    primaryClient = new pg.Client({ connectionString: spendgate.peer!.env.DATABASE_URL! });
    await primaryClient.connect();
    const { lsn } = (await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db)).rows[0]!;
    const caughtUpBy = Date.now() + 30_000;
    while (!(await replicaClient.query('select pg_last_wal_replay_lsn() >= $1::pg_lsn as caught_up', [lsn])).rows[0].caught_up) {
      if (Date.now() > caughtUpBy) throw new Error(`the replica did not replay up to ${lsn} within 30 s`);
      await sleep(100);
    }
    await replica.pauseReplay();

    // Written straight to the primary, as the data plane, the worker and the GPU ingest do: nobody's change.
    await insertUsageEvents(db, [usageEvent({ teamId: admin.teamId, groupId: null, keyId: null }, now, { request_id: written.requestId })]);
    await saveForecast(db, {
      scopeId: admin.teamId,
      period: lastMonth,
      teamId: admin.teamId,
      groupId: null,
      madeAt: now,
      method: 'ets',
      fallback: false,
      actualMicros: 1_000_000n,
      projectedMicros: 2_000_000n,
      lower80Micros: 1_500_000n,
      upper80Micros: 2_500_000n,
      lower95Micros: 1_200_000n,
      upper95Micros: 2_800_000n,
      days: [],
    });
    const clusterId = await ensureGpuCluster(db, admin.teamId, 'training');
    const gpuId = randomUUID();
    await db
      .insertInto('gpu_devices')
      .values({ id: gpuId, team_id: admin.teamId, cluster_id: clusterId, gpu_uuid: written.gpuUuid, model: 'NVIDIA H200', host: 'node-1', device_index: 0, memory_total_mib: 143_771, first_seen_at: now, last_seen_at: now })
      .execute();
    const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000 - HOUR_MS);
    await db
      .insertInto('gpu_minutes')
      .values({ gpu_id: gpuId, minute, team_id: admin.teamId, state: 'active', samples: 1, peak_utilization_pct: 90, mean_utilization_pct: 90, peak_memory_mib: 1_000, mean_power_w: 500 })
      .execute();
    const periodStart = new Date(`${lastMonth}-01T00:00:00Z`);
    await insertInvoice(db, {
      id: written.invoiceId,
      subscriptionId: admin.subscriptionId,
      periodStart,
      periodEnd: new Date(Date.UTC(periodStart.getUTCFullYear(), periodStart.getUTCMonth() + 1, 1)),
      billedUntil: now,
      createdAt: now,
      usageCountedBefore: now,
      lines: [],
      totalPence: 0n,
    });
  }, 240_000);

  afterAll(async () => {
    await replica?.resumeReplay().catch(() => undefined);
    await replicaClient?.end();
    await primaryClient?.end();
    await second?.stop();
    await spendgate?.close();
    await replica?.stop();
  });

  it('answers from the replica a user who changed nothing lately, on both gateways', async () => {
    await windowPassed();
    expect(await sees(spendgate.url)).toEqual(none);
    expect(await sees(second.url)).toEqual(none);
    const invoices = (db: { query: pg.Client['query'] }) => db.query('select count(*)::int as n from invoices where id = $1', [written.invoiceId]);
    expect((await invoices(replicaClient)).rows[0].n).toBe(0);
    expect((await invoices(primaryClient)).rows[0].n).toBe(1);
  });

  it('answers from the primary right after the user changed something on the other gateway, until the window has passed', async () => {
    await windowPassed();
    await change(spendgate.url);
    const freshness = await callApi(second.url, 'GET', '/usage/freshness', { token: admin.token });
    expect(freshness.body.data).toEqual({ behindSeconds: 0, replicas: [expect.objectContaining({ serving: true })] });
    expect(await sees(second.url)).toEqual(all);
    expect(await sees(spendgate.url)).toEqual(all);

    await windowPassed();
    expect(await sees(second.url)).toEqual(none);
    expect((await callApi(second.url, 'GET', '/usage/freshness', { token: admin.token })).body.data.behindSeconds).toBeGreaterThan(0);

    // And the other way round: a change on the second gateway, read on the first.
    await change(second.url);
    expect(await sees(spendgate.url)).toEqual(all);
  });

  it('opens the replica in the gateways only: a worker of the same configuration (DATABASE_READ_URL set) opens none', async () => {
    expect(spendgate.app.runtime.stores.sql.replicaLag()).toHaveLength(1);
    const config = await loadConfig(spendgate.peer!.env);
    expect(config.databaseReadUrls).toHaveLength(1);
    const redisPrefix = uniquePrefix('read-replicas-worker');
    const worker = await startWorker(config, { redisPrefix });
    try {
      expect(worker.sql.replicaLag()).toEqual([]);
    } finally {
      await worker.close();
      const redis = connectTestRedis();
      for (const prefix of [redisPrefix, `{${redisPrefix}-queue}`]) await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  });
});
