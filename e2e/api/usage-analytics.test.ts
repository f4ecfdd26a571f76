/**
 * The usage calls of spec §7 that read the rollups, in every run mode: each answer's
 * totals equal the sums of the recorded events (GBP budget spend and USD list cost to the
 * micro-unit, tokens exactly), series have every day, distributions add up, the plan's
 * look-back is a 403 naming it, roles and tenancy hold, and a new time zone moves the
 * days recorded already onto its midnights.
 */
import { randomUUID } from 'node:crypto';
import { findRollupRebuild, insertUsageEvents, type NewUsageEvent, upsertSubscription } from '@spendgate/store';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { daysAgo, usageEvent } from '../support/usage-events.ts';


for (const mode of testModes) {
  describe(`usage analytics (${mode})`, () => {
    let spendgate: RunningSpendgate;
    const admin = { token: '', userId: '' };
    const ids = { team: '', groupA: '', groupB: '', keyA: '', keyB: '' };
    const today = daysAgo(0);
    const get = (path: string, query: Record<string, string | undefined>, token = admin.token) => {
      const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
      return callApi(spendgate.url, 'GET', `${path}?${search}`, { token });
    };

    const event = (days: number, overrides: Partial<NewUsageEvent> = {}) => usageEvent({ teamId: ids.team, groupId: ids.groupA, keyId: ids.keyA }, days, overrides);

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'usage-analytics');
      const signedUp = await signUp(spendgate.url, `analytics-${mode}@example.com`);
      Object.assign(admin, signedUp);
      const team = await callApi(spendgate.url, 'POST', '/team/', { token: admin.token, body: { name: 'Analytics', description: '' } });
      ids.team = team.body.data.id;
      for (const [name, field] of [
        ['Support', 'groupA'],
        ['Search', 'groupB'],
      ] as const) {
        const group = await callApi(spendgate.url, 'POST', '/synthetic-group', { token: admin.token, body: { name, description: '', teamId: ids.team } });
        ids[field] = group.body.data.id;
      }
      const db = spendgate.app.runtime.stores.sql.db;
      for (const [field, group, name] of [
        ['keyA', ids.groupA, 'support-prod'],
        ['keyB', ids.groupB, 'search-prod'],
      ] as const) {
        ids[field] = randomUUID();
        await db
          .insertInto('issued_keys')
          .values({ id: ids[field], team_id: ids.team, group_id: group, connection_id: null, kind: 'optimised', name, key_hash: `hash-${ids[field]}`, key_prefix: 'sg_live_abcde', created_by: admin.userId, settings: '{}' })
          .execute();
      }
      await upsertSubscription(db, { userId: admin.userId, planSlug: 'growth', status: 'active', trialEnd: null });
      await insertUsageEvents(db, [
        event(0, {}),
        event(0, { model: 'gpt-4o-mini', cost_micros: 9_007_199_254_740_993n, budget_spend_micros: 7_000_000_000_000_001n, latency_ms: 2_500 }),
        event(1, { group_id: ids.groupB, key_id: ids.keyB, provider: 'anthropic', model: 'claude-sonnet-4-5', cached_read_tokens: 400n, cache_write_5m_tokens: 50n, reasoning_tokens: 30n }),
        event(1, { status_code: 429, input_tokens: 0n, output_tokens: 0n, cost_micros: null, billed_micros: null, budget_spend_micros: null }),
        event(3, { estimated: true }),
        event(40, { cost_micros: 1n, budget_spend_micros: 1n }),
      ]);
    }, 120_000);
    afterAll(() => spendgate?.close());

    it('sums a team’s range from the rollups, in GBP with USD beside, to the micro-unit', async () => {
      const summary = await get('/usage/group/specific', { teamId: ids.team, startDate: daysAgo(7), endDate: today });
      expect(summary.status, JSON.stringify(summary.body)).toBe(200);
      expect(summary.body.data).toMatchObject({
        teamId: ids.team,
        startDate: daysAgo(7),
        endDate: today,
        currency: 'GBP',
        costCurrencyUsd: 'USD',
        requests: 5,
        errors: 1,
        unpricedRequests: 1,
        estimatedRequests: 1,
        inputTokens: 4_000,
        cachedReadTokens: 400,
        cacheWriteTokens: 50,
        outputTokens: 400,
        reasoningTokens: 30,
        totalTokens: 4_850,
        // 3 × 0.003 + 7,000,000,000.000001 GBP; 3 × 0.0035 + 9,007,199,254.740993 USD (the 429 unpriced)
        totalCost: '7000000000.009001',
        totalCostMicros: '7000000000009001',
        totalCostUsd: '9007199254.751493',
      });
      expect(summary.body.data.latencyP50Ms).toBeGreaterThan(100);
      expect(summary.body.data.latencyP95Ms).toBeGreaterThanOrEqual(2_000);
      expect(summary.body.data.latencyP95Ms).toBeLessThanOrEqual(2_500);

      const narrowed = await get('/usage/group/specific', { groupId: ids.groupB, startDate: daysAgo(7) });
      expect(narrowed.body.data).toMatchObject({ groupId: ids.groupB, requests: 1, totalCost: '0.003000', cachedReadTokens: 400 });
      const byModel = await get('/usage/group/specific', { teamId: ids.team, model: 'gpt-4o', startDate: daysAgo(60) });
      expect(byModel.body.data).toMatchObject({ requests: 4, totalCost: '0.006001' });
    });

    it('gives every day of the range, zeros included, and hours for a short range', async () => {
      const series = await get('/usage/cost/group', { teamId: ids.team, startDate: daysAgo(4), endDate: today });
      expect(series.status).toBe(200);
      expect(series.body.data.series.map((point: { date: string }) => point.date)).toEqual([4, 3, 2, 1, 0].map(daysAgo));
      expect(series.body.data.series.map((point: { requests: number }) => point.requests)).toEqual([0, 1, 0, 2, 2]);
      expect(series.body.data.series[1]).toMatchObject({ cost: '0.003000', costUsd: '0.003500', totalTokens: 1_100 });
      expect(series.body.data.totalCost).toBe('7000000000.009001');

      const hourly = await get('/usage/cost/group', { teamId: ids.team, startDate: daysAgo(1), endDate: today, granularity: 'hour' });
      expect(hourly.body.data.series).toHaveLength(48);
      expect(hourly.body.data.series.reduce((sum: number, point: { requests: number }) => sum + point.requests, 0)).toBe(4);
      const tooLong = await get('/usage/cost/group', { teamId: ids.team, startDate: daysAgo(10), granularity: 'hour' });
      expect(tooLong.status).toBe(400);
      expect(JSON.stringify(tooLong.body)).toContain('granularity');
    });

    it('shows this month cumulative beside last month', async () => {
      const month = await get('/usage/cost/group/specific', { teamId: ids.team });
      expect(month.status).toBe(200);
      const { thisMonth, lastMonth } = month.body.data;
      expect(thisMonth.days[0].date).toBe(`${today.slice(0, 7)}-01`);
      expect(thisMonth.days.at(-1)).toMatchObject({ date: today, cumulativeCost: thisMonth.total });
      expect(lastMonth.days[0].date.slice(8)).toBe('01');
      // Days with spend: today (two events) and, when still this month, 1 and 3 days ago; the 429 cost nothing.
      const spentDays = [0, 1, 3].map(daysAgo).filter((day) => day.slice(0, 7) === today.slice(0, 7));
      expect(thisMonth.days.filter((day: { cost: string }) => day.cost !== '0.000000').map((day: { date: string }) => day.date)).toEqual(spentDays.reverse());
    });

    it('splits the range by model, key or group, names them, and the shares add up', async () => {
      const byModel = await get('/usage/distribution/group', { teamId: ids.team, startDate: daysAgo(7) });
      expect(byModel.status).toBe(200);
      expect(byModel.body.data.by).toBe('model');
      expect(byModel.body.data.items[0]).toMatchObject({ key: 'gpt-4o-mini', requests: 1 });
      const shares = byModel.body.data.items.reduce((sum: number, item: { share: number }) => sum + item.share, 0);
      expect(Math.abs(shares - 1)).toBeLessThan(0.00001);

      const byGroup = await get('/usage/distribution/group', { teamId: ids.team, startDate: daysAgo(7), by: 'group' });
      expect(byGroup.body.data.items.map((item: { label: string; requests: number }) => [item.label, item.requests])).toEqual([
        ['Support', 4],
        ['Search', 1],
      ]);
      const byKey = await get('/usage/distribution/specific', { groupId: ids.groupA, startDate: daysAgo(7) });
      expect(byKey.body.data.items).toEqual([expect.objectContaining({ key: ids.keyA, label: 'support-prod (sg_live_abcde…)', requests: 4 })]);
    });

    it('refuses a range beyond the plan’s look-back with a 403 naming it, and defaults inside it', async () => {
      const db = spendgate.app.runtime.stores.sql.db;
      await upsertSubscription(db, { userId: admin.userId, planSlug: 'developers', status: 'active', trialEnd: null });
      try {
        const beyond = await get('/usage/group/specific', { teamId: ids.team, startDate: daysAgo(10) });
        expect(beyond.status).toBe(403);
        expect(beyond.body.message).toBe(`The Developers plan shows usage of the last 7 days: choose a startDate on or after ${daysAgo(6)}`);
        const defaulted = await get('/usage/group/specific', { teamId: ids.team });
        expect(defaulted.status).toBe(200);
        expect(defaulted.body.data.startDate).toBe(daysAgo(6));
        const month = await get('/usage/cost/group/specific', { teamId: ids.team });
        expect(month.body.data.lastMonth).toBeNull();
      } finally {
        await upsertSubscription(db, { userId: admin.userId, planSlug: 'growth', status: 'active', trialEnd: null });
      }
    });

    it('names the field of a bad query, keeps a team’s usage to its admins and hides other teams’', async () => {
      const cases: [Record<string, string>, string][] = [
        [{}, 'teamId'],
        [{ teamId: ids.team, startDate: '2026-02-30' }, 'startDate'],
        [{ teamId: ids.team, startDate: today, endDate: daysAgo(2) }, 'endDate'],
        [{ teamId: 'not-a-uuid' }, 'teamId'],
        [{ teamId: ids.team, granularity: 'week' }, 'granularity'],
      ];
      for (const [query, field] of cases) {
        const answer = await get('/usage/cost/group', query);
        expect(answer.status, JSON.stringify(query)).toBe(400);
        expect(JSON.stringify(answer.body)).toContain(field);
      }
      const badBy = await get('/usage/distribution/group', { teamId: ids.team, by: 'colour' });
      expect(badBy.status).toBe(400);

      const outsider = await signUp(spendgate.url, `analytics-outsider-${mode}@example.com`);
      expect((await get('/usage/group/specific', { teamId: ids.team }, outsider.token)).status).toBe(404);
      expect((await get('/usage/group/specific', { groupId: ids.groupA }, outsider.token)).status).toBe(404);
      const outsiderTeam = await callApi(spendgate.url, 'POST', '/team/', { token: outsider.token, body: { name: 'Other', description: '' } });
      expect((await get('/usage/group/specific', { teamId: outsiderTeam.body.data.id, keyId: ids.keyA }, outsider.token)).status).toBe(404);
      expect((await get('/usage/group/specific', { groupId: ids.groupA, teamId: outsiderTeam.body.data.id }, admin.token)).status).toBe(404);
    });

    it('moves the recorded days to a new time zone: the daily series sums the events per local day, totals unchanged', async () => {
      const db = spendgate.app.runtime.stores.sql.db;
      const range = { teamId: ids.team, startDate: daysAgo(45) };
      const totals = async () => {
        const { requests, totalCost, totalCostUsd, totalTokens } = (await get('/usage/group/specific', range)).body.data;
        return { requests, totalCost, totalCostUsd, totalTokens };
      };
      const before = await totals();
      const changed = await callApi(spendgate.url, 'PATCH', `/team/${ids.team}`, { token: admin.token, body: { timeZone: 'America/Los_Angeles' } });
      expect(changed.status).toBe(200);
      await expect.poll(async () => (await findRollupRebuild(db, ids.team))?.rebuiltAt ?? null, { timeout: 60_000, interval: 100 }).not.toBeNull();

      // The events at 00:30 UTC are on the day before in Los Angeles.
      const { rows } = await sql<{ day: string; requests: string }>`
        select to_char(occurred_at at time zone 'America/Los_Angeles', 'YYYY-MM-DD') as day, count(*) as requests
        from usage_events where team_id = ${ids.team} group by 1 order by 1`.execute(db);
      const series = await get('/usage/cost/group', range);
      expect(series.status).toBe(200);
      const days = series.body.data.series.filter((point: { requests: number }) => point.requests > 0).map((point: { date: string; requests: number }) => [point.date, point.requests]);
      expect(days).toEqual(rows.map((row) => [row.day, Number(row.requests)]));
      expect(await totals()).toEqual(before);
    });
  });
}
