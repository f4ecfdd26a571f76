// The alert check on a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set):
// each threshold fires once per budget window however many checks run at once, a new window
// re-arms it, and an alert goes only to the channels the team's plan allows.
import { randomUUID } from 'node:crypto';
import {
  insertAlertChannel,
  insertBudget,
  insertGroup,
  insertIssuedKey,
  insertTeam,
  insertUsageEvents,
  insertUser,
  type JobPayloads,
  listAlertHistory,
  upsertSubscription,
  upsertSubscriptionPlans,
} from '@spendgate/store';
import { openTestSqlStore, sqlBackends, type TestSqlStore, usageEvent } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertCheckProcessor } from './alert-check.ts';

const HOUR_MS = 3_600_000;
/** Noon UTC yesterday and today: two calendar days of a UTC team, so two windows of a daily budget. */
const today = new Date(`${new Date().toISOString().slice(0, 10)}T12:00:00Z`);
const yesterday = new Date(today.getTime() - 24 * HOUR_MS);

describe.each(sqlBackends)('alert check on %s', (backend) => {
  let sql: TestSqlStore;
  beforeAll(async () => {
    sql = await openTestSqlStore(backend);
  });
  afterAll(() => sql?.close());

  /** A team with a group, a key, a daily £10 budget on the group alerting at 50/80/100 %, and an e-mail and a Slack channel. */
  async function team(plan: 'free-trial' | 'enterprise') {
    const [user, teamId, groupId, keyId, budgetId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await insertUser(sql.db, { id: user, email: `${user}@example.com`, name: 'Ada', passwordHash: 'x' });
    await insertTeam(sql.db, { id: teamId, name: 'Acme', description: '', createdBy: user });
    if (plan === 'enterprise') {
      await upsertSubscriptionPlans(sql.db, [{ slug: 'enterprise', name: 'Enterprise', description: '', priceMicros: null, currency: 'GBP', listed: true, features: [] }], new Date());
      await upsertSubscription(sql.db, { userId: user, planSlug: 'enterprise', status: 'active', trialEnd: null });
    }
    await insertGroup(sql.db, { id: groupId, teamId, name: 'Research', description: '', createdBy: user });
    await insertIssuedKey(sql.db, { id: keyId, team_id: teamId, group_id: groupId, connection_id: null, kind: 'optimised', name: 'k', key_hash: `h-${keyId}`, key_prefix: 'sg_live_a', created_by: user });
    await insertBudget(sql.db, { id: budgetId, team_id: teamId, scope: 'group', scope_id: groupId, amount_micros: 10_000_000n, window: 'day', mode: 'soft', alert_at: JSON.stringify([50, 80, 100]), created_by: user });
    for (const kind of ['email', 'slack'] as const) {
      await insertAlertChannel(sql.db, { id: randomUUID(), team_id: teamId, kind, name: `${kind} channel`, settings: JSON.stringify(kind === 'email' ? { addresses: ['fin@example.com'] } : { webhookHost: 'hooks.example' }), secret_ciphertext: null, secret_key_version: null, created_by: user });
    }
    /** Records `count` requests of `micros` GBP each, at `at`. */
    const spend = (at: Date, count: number, micros: bigint) =>
      insertUsageEvents(
        sql.db,
        Array.from({ length: count }, () => usageEvent({ teamId, groupId, keyId }, at, { cost_micros: micros, billed_micros: micros, budget_spend_micros: micros })),
      );
    return { teamId, budgetId, spend };
  }

  function checker(at: Date) {
    const enqueued: { name: keyof JobPayloads; jobId: string }[] = [];
    const check = createAlertCheckProcessor({ sql, queue: { enqueue: async (name, _payload, options) => void enqueued.push({ name, jobId: options.jobId }) }, now: () => at });
    return { check, enqueued };
  }

  it('fires each threshold reached once, however many checks race, and re-arms in the next window', async () => {
    const { teamId, budgetId, spend } = await team('free-trial');
    // £8.20 of £10: 50 % and 80 % reached, 100 % not — written as 41 meters' batches at once.
    await Promise.all(Array.from({ length: 41 }, () => spend(new Date(yesterday.getTime() - HOUR_MS), 1, 200_000n)));
    const first = checker(yesterday);
    await Promise.all(Array.from({ length: 8 }, () => first.check()));

    const alerts = await listAlertHistory(sql.db, teamId, 50);
    expect(alerts.map((alert) => [alert.budget_id, alert.threshold_percent, alert.window_label]).sort()).toEqual([
      [budgetId, 50, yesterday.toISOString().slice(0, 10)],
      [budgetId, 80, yesterday.toISOString().slice(0, 10)],
    ]);
    expect(alerts.find((alert) => alert.threshold_percent === 80)!.message).toBe(
      `Budget alert: the group Research has spent £8.20 of its £10.00 daily (window from ${yesterday.toISOString().slice(0, 10)}) budget (82%), reaching the 80% alert.`,
    );
    // The free trial alerts by e-mail only: one delivery per alert, each handed to its job once.
    expect(alerts.flatMap((alert) => alert.deliveries.map((delivery) => delivery.channel_kind))).toEqual(['email', 'email']);
    expect(first.enqueued.map((job) => job.name)).toEqual(['alert-deliver', 'alert-deliver']);
    expect(new Set(first.enqueued.map((job) => job.jobId)).size).toBe(2);

    // The same window again, spend now past 100 %: only the 100 % alert is new.
    await spend(new Date(yesterday.getTime() - HOUR_MS), 9, 200_000n);
    await first.check();
    expect((await listAlertHistory(sql.db, teamId, 50)).map((alert) => alert.threshold_percent).sort()).toEqual([100, 50, 80]);

    // Today is a new window: nothing spent yet, nothing fires; then 50 % fires again.
    const next = checker(today);
    await next.check();
    expect(await listAlertHistory(sql.db, teamId, 50)).toHaveLength(3);
    await spend(new Date(today.getTime() - HOUR_MS), 1, 5_000_000n);
    await Promise.all([next.check(), next.check(), next.check()]);
    const rearmed = (await listAlertHistory(sql.db, teamId, 50)).filter((alert) => alert.window_label === today.toISOString().slice(0, 10));
    expect(rearmed.map((alert) => alert.threshold_percent)).toEqual([50]);
  });

  it('sends to Slack as well on Enterprise, and leaves demo teams and budgets without thresholds alone', async () => {
    const enterprise = await team('enterprise');
    await enterprise.spend(new Date(yesterday.getTime() - HOUR_MS), 1, 6_000_000n);
    const quiet = await team('enterprise');
    await sql.db.updateTable('budgets').set({ alert_at: JSON.stringify([]) }).where('id', '=', quiet.budgetId).execute();
    await quiet.spend(new Date(yesterday.getTime() - HOUR_MS), 1, 20_000_000n);
    const demo = await team('enterprise');
    await sql.db.updateTable('teams').set({ is_demo: true }).where('id', '=', demo.teamId).execute();
    await demo.spend(new Date(yesterday.getTime() - HOUR_MS), 1, 20_000_000n);

    await checker(yesterday).check();
    const [alert] = await listAlertHistory(sql.db, enterprise.teamId, 50);
    expect(alert!.threshold_percent).toBe(50);
    expect(alert!.deliveries.map((delivery) => [delivery.channel_kind, delivery.status, delivery.idempotency_key])).toEqual([
      ['email', 'pending', `${alert!.id}:${alert!.deliveries[0]!.channel_id}`],
      ['slack', 'pending', `${alert!.id}:${alert!.deliveries[1]!.channel_id}`],
    ]);
    expect(await listAlertHistory(sql.db, quiet.teamId, 50)).toEqual([]);
    expect(await listAlertHistory(sql.db, demo.teamId, 50)).toEqual([]);
  });

  it('reads spend from the rollups and fires at the same event the events would: a +05:30 day, part-hours at both ends', async () => {
    const { teamId, spend } = await team('free-trial');
    await sql.db.updateTable('teams').set({ time_zone: 'Asia/Kolkata' }).where('id', '=', teamId).execute();
    // Kolkata's 2026-03-10 is [2026-03-09T18:30Z, 2026-03-10T18:30Z): £10 daily, alerts at 50/80/100 %.
    const at = (iso: string) => new Date(iso);
    const check = async () => {
      await checker(at('2026-03-10T18:20:00Z')).check();
      return (await listAlertHistory(sql.db, teamId, 50)).map((alert) => alert.threshold_percent).sort();
    };
    await spend(at('2026-03-09T18:29:59.999Z'), 1, 6_000_000n); // the day before, in the part-hour before midnight
    await spend(at('2026-03-10T18:30:00Z'), 1, 6_000_000n); // the day after
    await spend(at('2026-03-09T18:30:00Z'), 1, 2_000_000n); // midnight, in the part-hour after it
    await spend(at('2026-03-10T12:00:00Z'), 1, 2_999_999n); // a whole hour's cell
    expect(await check()).toEqual([]); // £4.999999
    await spend(at('2026-03-10T18:29:59.999Z'), 1, 1n); // the day's last instant: exactly £5
    expect(await check()).toEqual([50]);
    await spend(at('2026-03-10T18:10:00Z'), 1, 2_999_999n); // £7.999999
    expect(await check()).toEqual([50]);
    await spend(at('2026-03-09T18:59:00Z'), 1, 1n); // £8
    expect(await check()).toEqual([50, 80]);
  });
});
