/**
 * A demo team through the API, in every run mode: made for the signed-in user at once —
 * the answer, and the team's status right after it, say its usage is still `filling` —
 * then filled in the background, a day at a time, with 90 days of usage shaped by the
 * Azure trace, recorded through the meter's own statement (events and rollups agree to
 * the micro-unit, each request once), never charged, marked as demo, its first forecast
 * made once the last day lands; one per user (asked again while it fills: refused, no
 * second fill), only for a signed-in caller; and a fill a restart cut short is finished
 * by the next start.
 */
import { reconcileRollups } from '@spendgate/store';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { azureTrace } from '../../worker/src/demo/workload.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, DEMO_FILL_DEADLINE_MS, demoFilled, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const DAY_MS = 86_400_000;

for (const mode of testModes) {
  describe(`demo team (${mode})`, () => {
    let spendgate: RunningSpendgate;
    const db = () => spendgate.app.runtime.stores.sql.db;
    const status = async (teamId: string, token: string) => (await callApi(spendgate.url, 'GET', `/usage/team?teamId=${teamId}`, { token })).body.data.demo;

    /** The team's events as counted in the database: all, distinct request ids, and what they were billed and counted on budgets. */
    const eventCounts = async (teamId: string) => {
      const counts = await db()
        .selectFrom('usage_events')
        .select([
          sql<string>`count(*)`.as('requests'),
          sql<string>`count(distinct request_id)`.as('distinct'),
          sql<string>`coalesce(sum(billed_micros), 0)`.as('billed'),
          sql<string>`coalesce(sum(budget_spend_micros), 0)`.as('spent'),
        ])
        .where('team_id', '=', teamId)
        .executeTakeFirstOrThrow();
      return { requests: Number(counts.requests), distinct: Number(counts.distinct), billed: BigInt(counts.billed), spent: BigInt(counts.spent) };
    };
    const rollupsAgree = async () => reconcileRollups(db(), { from: new Date(Date.now() - 92 * DAY_MS), to: new Date(Date.now() + DAY_MS) });

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'demo-team');
    }, 120_000);
    afterAll(() => spendgate?.close());

    it('answers at once and fills the team with 90 days of metered, never-billed usage from the trace in the background, once per user', async () => {
      const { token } = await signUp(spendgate.url, `demo-${mode}@example.com`, { password: 'a long and unusual passphrase', name: 'Demo' });
      expect((await callApi(spendgate.url, 'POST', '/demo/team')).status).toBe(401);

      const created = await callApi(spendgate.url, 'POST', '/demo/team', { token });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const { teamId } = created.body.data as { teamId: string };
      expect(created.body.data).toEqual({ teamId, name: 'Demo team (sample data)', state: 'filling', days: 90, daysFilled: 0, requests: 0 });
      // The answer came before the usage: the team says it is still filling.
      expect(await status(teamId, token)).toMatchObject({ state: 'filling', days: 90 });
      const again = await callApi(spendgate.url, 'POST', '/demo/team', { token });
      expect([again.status, again.body.message]).toEqual([409, 'You already have a demo team']);

      await demoFilled(spendgate, teamId, token);
      const done = await status(teamId, token);
      expect(done).toMatchObject({ state: 'filled', days: 90, daysFilled: 90 });
      expect(done.requests).toBeGreaterThan(40_000);

      const team = await db().selectFrom('teams').select(['is_demo', 'name']).where('id', '=', teamId).executeTakeFirstOrThrow();
      expect(team).toEqual({ is_demo: true, name: 'Demo team (sample data)' });
      expect(await db().selectFrom('demo_fills').select('team_id').execute()).toEqual([{ team_id: teamId }]);
      const counts = await eventCounts(teamId);
      expect(counts).toMatchObject({ requests: done.requests, distinct: done.requests, billed: 0n });
      expect(counts.spent).toBeGreaterThan(0n);
      const events = await db()
        .selectFrom('usage_events')
        .select([
          sql<string>`count(distinct group_id)`.as('groups'),
          sql<string>`count(distinct key_id)`.as('keys'),
          sql<string>`count(distinct model)`.as('models'),
          sql<string>`min(occurred_at)`.as('first'),
          sql<string>`count(*) filter (where cost_micros is null)`.as('unpriced'),
          sql<string>`count(*) filter (where billing_rule <> 'demo-never-billed')`.as('billable'),
        ])
        .where('team_id', '=', teamId)
        .executeTakeFirstOrThrow();
      expect([Number(events.groups), Number(events.keys), Number(events.unpriced), Number(events.billable)]).toEqual([3, 6, 0, 0]);
      expect(Number(events.models)).toBeGreaterThanOrEqual(6);
      expect(Date.now() - new Date(events.first).getTime()).toBeGreaterThan(88 * DAY_MS);

      // Every answered request's sizes are a trace request's (prompt = input + cached reads).
      const sizes = new Set(azureTrace().map((request) => `${request.promptTokens}/${request.outputTokens}`));
      const sample = await db()
        .selectFrom('usage_events')
        .select(['input_tokens', 'cached_read_tokens', 'output_tokens'])
        .where('team_id', '=', teamId)
        .where('status_code', '=', 200)
        .limit(2_000)
        .execute();
      expect(sample.length).toBe(2_000);
      for (const event of sample) expect(sizes.has(`${Number(event.input_tokens) + Number(event.cached_read_tokens)}/${Number(event.output_tokens)}`)).toBe(true);

      expect(await rollupsAgree()).toEqual([]);
      // The last day asked for the team's first forecast (none was made on partial days).
      const forecast = await callApi(spendgate.url, 'GET', `/usage/cost/forecast?teamId=${teamId}`, { token });
      expect(forecast.body.data.forecast).not.toBeNull();
    }, DEMO_FILL_DEADLINE_MS + 60_000);

    it('finishes a fill a restart cut short, recording each request once', async () => {
      const { token } = await signUp(spendgate.url, `demo-restart-${mode}@example.com`, { password: 'a long and unusual passphrase', name: 'Demo' });
      const created = await callApi(spendgate.url, 'POST', '/demo/team', { token });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const { teamId } = created.body.data as { teamId: string };
      await expect.poll(async () => (await status(teamId, token)).daysFilled, { timeout: 60_000, interval: 100 }).toBeGreaterThan(0);

      await spendgate.restart();
      const cut = await status(teamId, token);
      expect(cut.state).toBe('filling');
      expect(cut.daysFilled).toBeLessThan(90);

      await demoFilled(spendgate, teamId, token);
      const done = await status(teamId, token);
      expect(done).toMatchObject({ state: 'filled', daysFilled: 90 });
      expect(await eventCounts(teamId)).toMatchObject({ requests: done.requests, distinct: done.requests, billed: 0n });
      expect(await rollupsAgree()).toEqual([]);
    }, DEMO_FILL_DEADLINE_MS + 60_000);
  });
}
