/**
 * The request log through the API, in every run mode: newest first, page by page with an
 * opaque cursor that neither skips nor repeats, filters, one request in detail with its
 * billing, unpriced cost as null, and the usage calls' roles and tenancy.
 */
import { randomUUID } from 'node:crypto';
import { insertUsageEvents, type NewUsageEvent } from '@spendgate/store';
import { usageEvent } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

for (const mode of testModes) {
  describe(`request log (${mode})`, () => {
    let spendgate: RunningSpendgate;
    const admin = { token: '', userId: '' };
    const ids = { team: '', group: '', otherGroup: '', key: '' };
    const requestIds: string[] = [];
    const get = (path: string, query: Record<string, string | undefined> = {}, token = admin.token) => {
      const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
      return callApi(spendgate.url, 'GET', `${path}?${search}`, { token });
    };

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'request-log');
      Object.assign(admin, await signUp(spendgate.url, `log-${mode}@example.com`));
      ids.team = (await callApi(spendgate.url, 'POST', '/team/', { token: admin.token, body: { name: 'Log', description: '' } })).body.data.id;
      for (const field of ['group', 'otherGroup'] as const) {
        ids[field] = (await callApi(spendgate.url, 'POST', '/synthetic-group', { token: admin.token, body: { name: field, description: '', teamId: ids.team } })).body.data.id;
      }
      ids.key = randomUUID();
      const db = spendgate.app.runtime.stores.sql.db;
      await db
        .insertInto('issued_keys')
        .values({ id: ids.key, team_id: ids.team, group_id: ids.group, connection_id: null, kind: 'byok', name: 'prod', key_hash: `hash-${ids.key}`, key_prefix: 'sg_live_log12', created_by: admin.userId, settings: '{}' })
        .execute();
      const base = Date.now() - 2 * 3_600_000;
      const events: NewUsageEvent[] = Array.from({ length: 7 }, (_, index) => {
        const requestId = `req_log_${mode}_${index}`;
        requestIds.push(requestId);
        // Two share a timestamp: the request id orders them.
        return usageEvent({ teamId: ids.team, groupId: ids.group, keyId: ids.key }, new Date(base + Math.min(index, 5) * 60_000), {
          request_id: requestId,
          model: index === 3 ? 'my-private-model' : 'gpt-4o',
          status_code: index === 2 ? 500 : 200,
          streamed: index % 2 === 0,
          input_tokens: BigInt(100 + index),
          output_tokens: 10n,
          cost_micros: index === 3 ? null : BigInt(1_000 + index),
          price_version: index === 3 ? null : '2026-08-21',
          latency_ms: 100 + index,
          key_kind: 'byok',
          billed_micros: 0n,
          billing_rule: 'byok-provider-direct',
          fx_rate_ppm: 790_000n,
          budget_spend_micros: index === 3 ? null : BigInt(800 + index),
          route: 'requested',
        });
      });
      await insertUsageEvents(db, events);
    }, 120_000);
    afterAll(() => spendgate?.close());

    it('lists newest first, page by page, neither skipping nor repeating', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await get('/usage/requests', { teamId: ids.team, limit: '3', cursor });
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        seen.push(...page.body.data.items.map((item: { requestId: string }) => item.requestId));
        cursor = page.body.data.nextCursor ?? undefined;
        pages += 1;
      } while (cursor !== undefined);
      expect(pages).toBe(3);
      expect(seen).toEqual([...requestIds].reverse());
    });

    it('filters, shows unpriced cost as null, and details one request with its billing', async () => {
      const errors = await get('/usage/requests', { teamId: ids.team, status: 'error' });
      expect(errors.body.data.items.map((item: { requestId: string }) => item.requestId)).toEqual([requestIds[2]]);
      const unpriced = await get('/usage/requests', { groupId: ids.group, model: 'my-private-model' });
      expect(unpriced.body.data.items).toEqual([
        expect.objectContaining({ requestId: requestIds[3], unpriced: true, cost: null, costUsd: null, groupName: 'group', keyName: 'prod', keyPrefix: 'sg_live_log12' }),
      ]);
      expect((await get('/usage/requests', { groupId: ids.otherGroup })).body.data.items).toEqual([]);

      const detail = await get(`/usage/requests/${requestIds[1]}`);
      expect(detail.status).toBe(200);
      expect(detail.body.data).toMatchObject({ requestId: requestIds[1], cost: '0.000801', costUsd: '0.001001', billingRule: 'byok-provider-direct', fxRatePpm: '790000', totalTokens: 111, latencyMs: 101 });
    });

    it('refuses a forged cursor or a bad limit naming the field, and hides other teams’ requests', async () => {
      for (const [query, field] of [
        [{ teamId: ids.team, cursor: 'bm90LWEtY3Vyc29y' }, 'cursor'],
        [{ teamId: ids.team, limit: '0' }, 'limit'],
        [{ teamId: ids.team, limit: '201' }, 'limit'],
        [{ teamId: ids.team, status: 'maybe' }, 'status'],
      ] as const) {
        const answer = await get('/usage/requests', query);
        expect(answer.status, JSON.stringify(query)).toBe(400);
        expect(JSON.stringify(answer.body)).toContain(field);
      }
      const outsider = await signUp(spendgate.url, `log-outsider-${mode}@example.com`);
      expect((await get('/usage/requests', { teamId: ids.team }, outsider.token)).status).toBe(404);
      expect((await get(`/usage/requests/${requestIds[0]}`, {}, outsider.token)).status).toBe(404);
      expect((await get('/usage/requests/req_that_never_was')).status).toBe(404);
    });
  });
}
