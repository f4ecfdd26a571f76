// The forecast and spike alerts of the alert check on a real database (PGlite, and PostgreSQL
// when TEST_DATABASE_URL is set), on constructed stored forecasts and usage (the rollups follow
// the events): a projected breach fires once per budget window and names the day, a spend
// spike once per scope and day, or scope and hour, and names the key and model; racing checks
// record one alert.
import { randomUUID } from 'node:crypto';
import {
  type ForecastDayRow,
  insertAlertChannel,
  insertBudget,
  insertGroup,
  insertIssuedKey,
  insertTeam,
  insertUsageEvents,
  insertUser,
  type JobPayloads,
  listAlertHistory,
  saveForecast,
} from '@spendgate/store';
import { openTestSqlStore, sqlBackends, type TestSqlStore, usageEvent } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertCheckProcessor } from './alert-check.ts';

const pounds = (whole: number) => BigInt(whole) * 1_000_000n;

/** A month's stored forecast: `actual` days before `from`, then each day's upper bounds. */
function forecastDays(period: string, from: number, upper80: bigint, upper95: bigint): ForecastDayRow[] {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const length = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return Array.from({ length }, (_, index) => {
    const date = `${period}-${String(index + 1).padStart(2, '0')}`;
    return index + 1 < from
      ? { date, actualMicros: '0', forecastMicros: null, lower80Micros: null, upper80Micros: null, lower95Micros: null, upper95Micros: null }
      : { date, actualMicros: null, forecastMicros: '1', lower80Micros: '0', upper80Micros: upper80.toString(), lower95Micros: '0', upper95Micros: upper95.toString() };
  });
}

/** £1 of a team's AI advisor wording: its usage without a group or key. */
const wordingEvent = (teamId: string) =>
  usageEvent({ teamId, groupId: null, keyId: null }, new Date(), {
    model: 'gpt-4o-mini',
    cost_micros: pounds(1),
    billed_micros: pounds(1),
    budget_spend_micros: pounds(1),
    route: 'advisor-wording',
  });

describe.each(sqlBackends)('forecast alerts on %s', (backend) => {
  let sql: TestSqlStore;
  beforeAll(async () => {
    sql = await openTestSqlStore(backend);
  });
  afterAll(() => sql?.close());

  /** A UTC team "Acme" with a group "Research", keys "chat" and "batch" in it, and an e-mail channel. */
  async function team() {
    const [user, teamId, groupId] = [randomUUID(), randomUUID(), randomUUID()];
    await insertUser(sql.db, { id: user, email: `${user}@example.com`, name: 'Ada', passwordHash: 'x' });
    await insertTeam(sql.db, { id: teamId, name: 'Acme', description: '', createdBy: user });
    await insertGroup(sql.db, { id: groupId, teamId, name: 'Research', description: '', createdBy: user });
    const keys: Record<string, string> = {};
    for (const name of ['chat', 'batch']) {
      keys[name] = randomUUID();
      await insertIssuedKey(sql.db, { id: keys[name], team_id: teamId, group_id: groupId, connection_id: null, kind: 'optimised', name, key_hash: `h-${keys[name]}`, key_prefix: 'sg_live_a', created_by: user });
    }
    await insertAlertChannel(sql.db, { id: randomUUID(), team_id: teamId, kind: 'email', name: 'finance', settings: JSON.stringify({ addresses: ['fin@example.com'] }), secret_ciphertext: null, secret_key_version: null, created_by: user });
    /** One request of `micros` GBP by `key` on `model` at `at`, or at each of several times. */
    const spend = (at: string | readonly string[], key: 'chat' | 'batch', model: string, micros: bigint) =>
      insertUsageEvents(
        sql.db,
        [at].flat().map((time) => usageEvent({ teamId, groupId, keyId: keys[key]! }, new Date(time), { model, cost_micros: micros, billed_micros: micros, budget_spend_micros: micros })),
      );
    const budget = async (scope: 'group' | 'team' | 'key', mode: 'soft' | 'hard' | 'downgrade', window: 'month' | 'total' = 'month') => {
      const id = randomUUID();
      const scopeId = scope === 'group' ? groupId : scope === 'team' ? teamId : keys.chat!;
      await insertBudget(sql.db, { id, team_id: teamId, scope, scope_id: scopeId, amount_micros: pounds(2000), window, mode, alert_at: JSON.stringify([100]), created_by: user });
      return id;
    };
    const forecast = (scopeId: string, period: string, days: ForecastDayRow[]) =>
      saveForecast(sql.db, {
        scopeId, period, teamId, groupId: scopeId === teamId ? null : groupId, madeAt: new Date(`${period}-01T00:00:00Z`), method: 'constructed', fallback: false,
        actualMicros: 0n, projectedMicros: 0n, lower80Micros: 0n, upper80Micros: 0n, lower95Micros: 0n, upper95Micros: 0n, days,
      });
    return { teamId, groupId, keys, spend, budget, forecast };
  }

  function checker(at: string) {
    const enqueued: { name: keyof JobPayloads; jobId: string }[] = [];
    const check = createAlertCheckProcessor({ sql, queue: { enqueue: async (name, _payload, options) => void enqueued.push({ name, jobId: options.jobId }) }, now: () => new Date(at) });
    return { check, enqueued };
  }

  const history = async (teamId: string, kind: string) => (await listAlertHistory(sql.db, teamId, 100)).filter((alert) => alert.kind === kind);

  it('projects a breach once per budget window, names the day, and re-arms next month', async () => {
    const acme = await team();
    const budgetId = await acme.budget('group', 'soft');
    // November: £1650 on the 10th, £40 today (the 20th); the forecast's upper 80 % bound is £100 a day from the 20th.
    await acme.spend('2026-11-10T09:00:00Z', 'chat', 'gpt-4o-mini', pounds(1650));
    await acme.spend('2026-11-20T10:00:00Z', 'chat', 'gpt-4o-mini', pounds(40));
    await acme.forecast(acme.groupId, '2026-11', forecastDays('2026-11', 20, pounds(100), pounds(150)));

    const november = checker('2026-11-20T12:00:00Z');
    await Promise.all(Array.from({ length: 6 }, () => november.check()));
    // 1650 + max(40, 100) = 1750 on the 20th, 1850, 1950, 2050 ≥ 2000 on the 23rd.
    const [breach, ...more] = await history(acme.teamId, 'breach');
    expect(more).toEqual([]);
    expect([breach!.budget_id, breach!.window_label, breach!.subject]).toEqual([budgetId, '2026-11-01', "Research's £2000.00 monthly budget may run out on the 23rd"]);
    expect(breach!.message).toBe(
      "Projected breach: at this rate the group Research's £2000.00 monthly budget runs out on the 23rd (2026-11-23), before its window (from 2026-11-01) ends: £1690.00 spent so far, and the forecast's upper 80% bound reaches £2050.00 by then.",
    );
    expect(breach!.deliveries.map((delivery) => [delivery.channel_kind, delivery.status])).toEqual([['email', 'pending']]);
    expect(november.enqueued).toEqual([{ name: 'alert-deliver', jobId: `alert-deliver-${breach!.deliveries[0]!.id}` }]);
    // The next day's check, still projecting a breach, records nothing new.
    await checker('2026-11-21T12:00:00Z').check();
    expect(await history(acme.teamId, 'breach')).toHaveLength(1);

    // December re-arms: £1500 on the 1st; bound £100 a day from the 10th: 1600, 1700, 1800, 1900, 2000 on the 14th.
    await acme.spend('2026-12-01T09:00:00Z', 'chat', 'gpt-4o-mini', pounds(1500));
    await acme.forecast(acme.groupId, '2026-12', forecastDays('2026-12', 10, pounds(100), pounds(150)));
    const december = checker('2026-12-10T08:00:00Z');
    await Promise.all([december.check(), december.check(), december.check()]);
    const rearmed = (await history(acme.teamId, 'breach')).filter((alert) => alert.window_label === '2026-12-01');
    expect(rearmed.map((alert) => alert.subject)).toEqual(["Research's £2000.00 monthly budget may run out on the 14th"]);
    expect(december.enqueued).toHaveLength(1);
  });

  it('projects no breach without a stored forecast of the scope, for key, downgrade or total budgets, or when the window ends first', async () => {
    const acme = await team();
    await acme.budget('team', 'hard'); // no team forecast stored
    await acme.budget('key', 'hard'); // keys are not forecast
    await acme.budget('group', 'downgrade');
    await acme.budget('group', 'hard', 'total');
    await acme.spend('2026-11-10T09:00:00Z', 'chat', 'gpt-4o-mini', pounds(1650));
    await acme.forecast(acme.groupId, '2026-11', forecastDays('2026-11', 20, pounds(100), pounds(150)));
    await checker('2026-11-20T12:00:00Z').check();
    expect(await history(acme.teamId, 'breach')).toEqual([]);

    // A hard group cap whose month ends first: from the 29th, 1650 + 100 + 100 = 1850 < 2000 by the 30th.
    const late = await team();
    await late.budget('group', 'hard');
    await late.spend('2026-11-10T09:00:00Z', 'chat', 'gpt-4o-mini', pounds(1650));
    await late.forecast(late.groupId, '2026-11', forecastDays('2026-11', 29, pounds(100), pounds(150)));
    await checker('2026-11-29T12:00:00Z').check();
    expect(await history(late.teamId, 'breach')).toEqual([]);
  });

  it('flags a day far above its forecast once, naming the key and model that rose most, and checks the next day afresh', async () => {
    const acme = await team();
    // A usual week: "chat" spends £15 a day on gpt-4o-mini, Nov 13–19.
    for (let day = 13; day <= 19; day++) await acme.spend(`2026-11-${day}T10:00:00Z`, 'chat', 'gpt-4o-mini', pounds(15));
    // The team's forecast bounds from the 20th: upper 95 % £30 a day.
    await acme.forecast(acme.teamId, '2026-11', forecastDays('2026-11', 20, pounds(25), pounds(30)));
    // The 20th: chat £20, then "batch" £60 on gpt-4o — £80, £50 over the bound.
    await acme.spend('2026-11-20T09:00:00Z', 'chat', 'gpt-4o-mini', pounds(20));
    const quiet = checker('2026-11-20T09:30:00Z');
    await quiet.check();
    expect(await history(acme.teamId, 'spike')).toEqual([]);
    await acme.spend('2026-11-20T11:00:00Z', 'batch', 'gpt-4o', pounds(60));

    const busy = checker('2026-11-20T18:00:00Z');
    await Promise.all(Array.from({ length: 6 }, () => busy.check()));
    const [spike, ...more] = await history(acme.teamId, 'spike');
    expect(more).toEqual([]);
    // batch: 60 − 0 = 60, chat: 20 − 15 = 5; gpt-4o: 60, gpt-4o-mini: 5.
    expect([spike!.window_label, spike!.budget_id, spike!.subject]).toEqual(['2026-11-20', null, 'Spend spike: Acme spent £80.00 on 2026-11-20']);
    expect(spike!.message).toBe(
      'Spend spike: the team Acme spent £80.00 on 2026-11-20, £50.00 above the forecast\'s upper 95% bound of £30.00 for that day. Most of the rise came from the key "batch" (+£60.00 over its usual day) and the model gpt-4o (+£60.00).',
    );
    expect(busy.enqueued).toHaveLength(1);

    // The 21st: yesterday's spike stays one alert; £45 by batch today is a new one.
    await acme.spend('2026-11-21T09:00:00Z', 'batch', 'gpt-4o', pounds(45));
    const next = checker('2026-11-21T12:00:00Z');
    await Promise.all([next.check(), next.check(), next.check()]);
    expect((await history(acme.teamId, 'spike')).map((alert) => alert.window_label).sort()).toEqual(['2026-11-20', '2026-11-21']);
    expect(next.enqueued).toHaveLength(1);
  });

  it('flags an hour far above its band once per scope, naming the key and model that rose most, and leaves scopes under two weeks old alone', async () => {
    const acme = await team();
    const HOUR_MS = 3_600_000;
    const hoursBefore = (end: string, count: number) => Array.from({ length: count }, (_, index) => new Date(Date.parse(end) - (count - index) * HOUR_MS + 10 * 60_000).toISOString());
    // Two weeks of "chat" spending £2 on gpt-4o-mini at ten past every hour, up to 10:00 on the 20th: no cycle, every
    // hour as expected, so the band of 10:00 is £2 (the median of the 24 hours before) + 1.5 × £0: a spike is £3 or more.
    await acme.spend(hoursBefore('2026-11-20T10:00:00Z', 14 * 24), 'chat', 'gpt-4o-mini', pounds(2));
    // A team two days old spending £50 in the hour: too little history for a band.
    const fresh = await team();
    await fresh.spend(hoursBefore('2026-11-20T10:00:00Z', 48), 'chat', 'gpt-4o-mini', pounds(2));
    await fresh.spend('2026-11-20T10:05:00Z', 'batch', 'gpt-4o', pounds(50));

    await acme.spend('2026-11-20T10:10:00Z', 'chat', 'gpt-4o-mini', pounds(2));
    await checker('2026-11-20T10:20:00Z').check();
    expect(await history(acme.teamId, 'spike')).toEqual([]);
    // "batch" £5 on gpt-4o at 10:30, and £1 of the advisor's wording (the team's, no group or key): the team's hour is
    // £8, £6 above its bound; its group's £7, £5 above.
    await acme.spend('2026-11-20T10:30:00Z', 'batch', 'gpt-4o', pounds(5));
    await insertUsageEvents(sql.db, [{ ...wordingEvent(acme.teamId), occurred_at: new Date('2026-11-20T10:45:00Z') }]);
    const busy = checker('2026-11-20T10:40:00Z');
    await Promise.all(Array.from({ length: 6 }, () => busy.check()));
    const spikes = await history(acme.teamId, 'spike');
    expect(spikes.map((alert) => [alert.window_label, alert.subject]).sort()).toEqual([
      ['2026-11-20 10:00', 'Spend spike: Acme spent £8.00 in the hour from 2026-11-20 10:00'],
      ['2026-11-20 10:00', 'Spend spike: Research spent £7.00 in the hour from 2026-11-20 10:00'],
    ]);
    // batch: £5 − £0 a usual hour; chat: £2 − £336 / 168 = £0; the wording £1. gpt-4o £5, gpt-4o-mini £3 − £2 = £1.
    expect(spikes.find((alert) => alert.subject.includes('Acme'))!.message).toBe(
      'Spend spike: the team Acme spent £8.00 in the hour from 2026-11-20 10:00, £6.00 above the upper bound of £2.00 for that hour (it usually spends £2.00). Most of the rise came from the key "batch" (+£5.00 over its usual hour) and the model gpt-4o (+£5.00).',
    );
    expect(busy.enqueued).toHaveLength(2);
    expect(await history(fresh.teamId, 'spike')).toEqual([]);

    // 11:00: the last hour's spike stays one alert per scope, and the band is still £2 (one large error
    // in the week is not its 99th percentile); £11 in the hour is a new spike.
    await acme.spend('2026-11-20T11:10:00Z', 'chat', 'gpt-4o-mini', pounds(2));
    const next = checker('2026-11-20T11:20:00Z');
    await Promise.all([next.check(), next.check(), next.check()]);
    expect(await history(acme.teamId, 'spike')).toHaveLength(2);
    await acme.spend('2026-11-20T11:30:00Z', 'batch', 'gpt-4o', pounds(9));
    await Promise.all([next.check(), next.check(), next.check()]);
    expect((await history(acme.teamId, 'spike')).map((alert) => alert.window_label).sort()).toEqual(['2026-11-20 10:00', '2026-11-20 10:00', '2026-11-20 11:00', '2026-11-20 11:00']);
    expect(next.enqueued).toHaveLength(2);
  });
});
