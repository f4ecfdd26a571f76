// Idle-GPU alerts from the alert check on a real database (PGlite, and PostgreSQL when
// TEST_DATABASE_URL is set), on the real H200 capture slowed 60 times (each second a minute)
// with a 5-minute window: while python3 holds its 39 GB at 0 % the team gets one alert naming
// the GPU, host, memory and minutes, however often the check runs and as the stretch grows;
// none once the GPU moves on, none for a team whose plan lacks GPU analytics.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type GpuSample, parseNvidiaSmiGpus } from '@spendgate/core';
import {
  ensureGpuCluster,
  insertAlertChannel,
  insertTeam,
  insertUser,
  listAlertHistory,
  recordGpuSamples,
  upsertGpuIdleRules,
  upsertSubscription,
  upsertSubscriptionPlans,
} from '@spendgate/store';
import { openTestSqlStore, sqlBackends, type TestSqlStore } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertCheckProcessor } from './alert-check.ts';
import { createGpuRollupProcessor } from './gpu-rollup.ts';

const MINUTE_MS = 60_000;
const T0 = Date.parse('2026-11-26T02:35:00Z');
const SAMPLES = parseNvidiaSmiGpus(readFileSync(new URL('../../../core/src/gpu/h200-capture/gpu-samples.csv', import.meta.url), 'utf8'), 'gpu-node-1').samples.map((sample) => ({
  ...sample,
  at: T0 + (sample.at - T0) * 60,
}));
const before = (minute: number) => SAMPLES.filter((sample) => sample.at < T0 + minute * MINUTE_MS);

describe.each(sqlBackends)('idle-GPU alerts on %s', (backend) => {
  let sql: TestSqlStore;
  beforeAll(async () => {
    sql = await openTestSqlStore(backend);
    await upsertSubscriptionPlans(sql.db, [{ slug: 'enterprise', name: 'Enterprise', description: '', priceMicros: null, currency: 'GBP', listed: true, features: [] }], new Date());
  });
  afterAll(() => sql?.close());

  /** A team on `plan` with an e-mail channel, idle after 5 minutes below 5 %, whose GPU reports the capture. */
  async function team(plan: 'free-trial' | 'enterprise') {
    const [userId, teamId] = [randomUUID(), randomUUID()];
    await insertUser(sql.db, { id: userId, email: `${userId}@example.com`, name: 'Ada', passwordHash: 'x' });
    await insertTeam(sql.db, { id: teamId, name: 'Acme', description: '', createdBy: userId });
    if (plan === 'enterprise') await upsertSubscription(sql.db, { userId, planSlug: 'enterprise', status: 'active', trialEnd: null });
    await insertAlertChannel(sql.db, { id: randomUUID(), team_id: teamId, kind: 'email', name: 'Ops', settings: JSON.stringify({ addresses: ['ops@example.com'] }), secret_ciphertext: null, secret_key_version: null, created_by: userId });
    await upsertGpuIdleRules(sql.db, teamId, { idleBelowPct: 5, idleAfterMinutes: 5 }, userId);
    const clusterId = await ensureGpuCluster(sql.db, teamId, 'training');
    const report = async (samples: readonly GpuSample[]) => {
      await sql.db.transaction().execute((trx) => recordGpuSamples(trx, teamId, clusterId, samples, new Date()));
      await createGpuRollupProcessor({ sql })({ teamId });
    };
    const alerts = async () => (await listAlertHistory(sql.db, teamId, 10)).filter((alert) => alert.kind === 'gpu-idle');
    return { teamId, report, alerts };
  }

  const check = (minute: number) => createAlertCheckProcessor({ sql, queue: { enqueue: async () => {} }, now: () => new Date(T0 + minute * MINUTE_MS) })();

  it('alerts once while the GPU holds its memory idle, however often it checks and as the stretch grows', async () => {
    const { report, alerts } = await team('enterprise');
    await report(before(48)); // held 44–47: still a pause shorter than the window
    await check(48);
    expect(await alerts()).toEqual([]);

    await report(before(50)); // held 44–49: six minutes, past the window
    await Promise.all([check(50), check(50), check(50)]);
    const [alert, ...more] = await alerts();
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      subject: 'GPU 0 on host gpu-node-1 has held 38.4 GiB at 0 % for 6 minutes',
      dedupe_key: `gpu-idle:${(alert!.details as { gpuId: string }).gpuId}:${new Date(T0 + 44 * MINUTE_MS).toISOString()}`,
    });
    expect(alert!.message).toContain('(NVIDIA H200, cluster training)');
    expect(alert!.deliveries.map((delivery) => delivery.channel_kind)).toEqual(['email']);

    await report(before(54)); // held to 53: the same stretch, no second alert
    await check(54);
    expect(await alerts()).toHaveLength(1);
    await report(SAMPLES); // the exit and idle again: nothing held
    await check(70);
    expect(await alerts()).toHaveLength(1);
  });

  it('does not alert for a stretch that stopped reporting long ago, nor for a team whose plan lacks GPU analytics', async () => {
    const enterprise = await team('enterprise');
    await enterprise.report(before(50));
    await check(50 + 11);
    expect(await enterprise.alerts()).toEqual([]);
    const trial = await team('free-trial');
    await trial.report(before(50));
    await check(50);
    expect(await trial.alerts()).toEqual([]);
  });
});
