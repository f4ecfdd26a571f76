/**
 * A demo team through the API, in every run mode: created for the signed-in user with
 * 90 days of usage shaped by the Azure trace, recorded by the real meter (events and
 * rollups agree), marked as demo, one per user, and only for a signed-in caller.
 */
import { reconcileRollups } from '@spendgate/store';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { azureTrace } from '../../gateway/src/control/demo/workload.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';

for (const mode of testModes) {
  describe(`demo team (${mode})`, () => {
    let spendgate: RunningSpendgate;
    const db = () => spendgate.app.runtime.stores.sql.db;

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'demo-team');
    }, 120_000);
    afterAll(() => spendgate?.close());

    it('fills a demo team with 90 days of metered usage from the trace, once per user', async () => {
      const { token } = await signUp(spendgate.url, `demo-${mode}@example.com`, { password: 'a long and unusual passphrase', name: 'Demo' });
      expect((await callApi(spendgate.url, 'POST', '/demo/team')).status).toBe(401);

      const created = await callApi(spendgate.url, 'POST', '/demo/team', { token });
      expect(created.status).toBe(201);
      const { teamId, days, requests } = created.body.data as { teamId: string; days: number; requests: number };
      expect(days).toBe(90);
      expect(requests).toBeGreaterThan(40_000);
      await usageWritten(spendgate);

      const team = await db().selectFrom('teams').select(['is_demo', 'name']).where('id', '=', teamId).executeTakeFirstOrThrow();
      expect(team).toEqual({ is_demo: true, name: 'Demo team (sample data)' });
      const events = await db()
        .selectFrom('usage_events')
        .select([
          sql<string>`count(*)`.as('requests'),
          sql<string>`count(distinct group_id)`.as('groups'),
          sql<string>`count(distinct key_id)`.as('keys'),
          sql<string>`count(distinct model)`.as('models'),
          sql<string>`min(occurred_at)`.as('first'),
          sql<string>`count(*) filter (where cost_micros is null)`.as('unpriced'),
        ])
        .where('team_id', '=', teamId)
        .executeTakeFirstOrThrow();
      expect(Number(events.requests)).toBe(requests);
      expect([Number(events.groups), Number(events.keys), Number(events.unpriced)]).toEqual([3, 6, 0]);
      expect(Number(events.models)).toBeGreaterThanOrEqual(6);
      expect(Date.now() - new Date(events.first).getTime()).toBeGreaterThan(88 * 86_400_000);

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

      expect(await reconcileRollups(db(), { from: new Date(Date.now() - 92 * 86_400_000), to: new Date(Date.now() + 86_400_000) })).toEqual([]);

      const again = await callApi(spendgate.url, 'POST', '/demo/team', { token });
      expect(again.status).toBe(409);
      expect(again.body.message).toBe('You already have a demo team');
    }, 240_000);
  });
}
