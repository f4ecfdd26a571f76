/**
 * GET /api/usage/export in every run mode: the plain CSV's rows and sums equal the
 * recorded events (to the micro-unit, 2^53+1 included; an unpriced request an empty
 * cell), per request and per day; the FOCUS 1.2 file has every Mandatory column of the
 * spec in its order and rows that keep the spec's rules (UTC ISO 8601 times with Z,
 * currency codes, no null where the spec forbids one, ListCost >= 0) with BilledCost
 * summing to /usage/group/specific's GBP total; bad queries name their field; roles,
 * tenancy and the plan's look-back hold; and 50,000 events stream with flat memory.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { decimalToMicros } from '@spendgate/core';
import { insertUsageEvents, type NewUsageEvent, upsertSubscription } from '@spendgate/store';
import { parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { daysAgo, usageEvent } from '../support/usage-events.ts';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;


/** FOCUS 1.2's Mandatory columns in the spec's order (specification/columns/*.md at tag v1.2, "Feature level | Mandatory"). */
const FOCUS_MANDATORY = [
  'BilledCost',
  'BillingAccountId',
  'BillingAccountName',
  'BillingCurrency',
  'BillingPeriodEnd',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargeClass',
  'ChargeDescription',
  'ChargePeriodEnd',
  'ChargePeriodStart',
  'ContractedCost',
  'EffectiveCost',
  'InvoiceIssuerName',
  'ListCost',
  'PricingQuantity',
  'PricingUnit',
  'ProviderName',
  'PublisherName',
  'ServiceCategory',
  'ServiceName',
];
/** Of those, the ones whose "Allows nulls" is False. */
const FOCUS_NOT_NULL = [
  'BilledCost',
  'BillingAccountId',
  'BillingCurrency',
  'BillingPeriodEnd',
  'BillingPeriodStart',
  'ChargeCategory',
  'ChargePeriodEnd',
  'ChargePeriodStart',
  'ContractedCost',
  'EffectiveCost',
  'InvoiceIssuerName',
  'ListCost',
  'ProviderName',
  'PublisherName',
  'ServiceCategory',
  'ServiceName',
];
const FOCUS_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const CHARGE_CATEGORIES = ['Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment'];

/** A decimal string's micro-units, exactly (an empty cell: 0). */
const micros = (value: string | undefined) => (value === undefined || value === '' ? 0n : decimalToMicros(value)!);
const sumOf = (rows: Record<string, string>[], column: string) => rows.reduce((sum, row) => sum + micros(row[column]), 0n);

for (const mode of testModes) {
  describe(`usage export (${mode})`, () => {
    let spendgate: RunningSpendgate;
    const admin = { token: '', userId: '' };
    const ids = { team: '', bigTeam: '', groupA: '', groupB: '', bigGroup: '', keyA: '', keyB: '', bigKey: '' };
    const today = daysAgo(0);

    const exportUrl = (query: Record<string, string>) => `${spendgate.url}/api/usage/export?${new URLSearchParams(query)}`;
    async function download(query: Record<string, string>, token = admin.token) {
      const response = await fetch(exportUrl(query), { headers: { authorization: `Bearer ${token}` } });
      const text = await response.text();
      return { response, text, rows: response.ok ? (parse(text, { columns: true }) as Record<string, string>[]) : [] };
    }
    const header = (text: string) => (parse(text, { to_line: 1 }) as string[][])[0]!;

    const event = (days: number, overrides: Partial<NewUsageEvent> = {}) => usageEvent({ teamId: ids.team, groupId: ids.groupA, keyId: ids.keyA }, days, overrides);

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'usage-export');
      Object.assign(admin, await signUp(spendgate.url, `export-${mode}@example.com`));
      const db = spendgate.app.runtime.stores.sql.db;
      for (const [name, team, group, key, groupName, keyName, kind] of [
        ['Export Ltd', 'team', 'groupA', 'keyA', 'Support', 'support-prod', 'optimised'],
        ['Export Ltd', 'team', 'groupB', 'keyB', 'Search', 'search-byok', 'byok'],
        ['Big Co', 'bigTeam', 'bigGroup', 'bigKey', 'Bulk', 'bulk-prod', 'optimised'],
      ] as const) {
        if (ids[team] === '') ids[team] = (await callApi(spendgate.url, 'POST', '/team/', { token: admin.token, body: { name, description: '' } })).body.data.id;
        ids[group] = (await callApi(spendgate.url, 'POST', '/synthetic-group', { token: admin.token, body: { name: groupName, description: '', teamId: ids[team] } })).body.data.id;
        ids[key] = randomUUID();
        await db
          .insertInto('issued_keys')
          .values({ id: ids[key], team_id: ids[team], group_id: ids[group], connection_id: null, kind, name: keyName, key_hash: `hash-${ids[key]}`, key_prefix: 'sg_live_abcde', created_by: admin.userId, settings: '{}' })
          .execute();
      }
      await upsertSubscription(db, { userId: admin.userId, planSlug: 'growth', status: 'active', trialEnd: null });
      await insertUsageEvents(db, [
        event(0, {}),
        event(0, { model: 'gpt-4o-mini', cost_micros: 9_007_199_254_740_993n, budget_spend_micros: 7_000_000_000_000_001n, billed_micros: 7_000_000_000_000_001n, latency_ms: 2_500 }),
        event(1, { group_id: ids.groupB, key_id: ids.keyB, key_kind: 'byok', provider: 'anthropic', model: 'claude-sonnet-4-5', cached_read_tokens: 400n, cache_write_5m_tokens: 50n, reasoning_tokens: 30n, billed_micros: 0n }),
        event(1, { status_code: 429, input_tokens: 0n, output_tokens: 0n, cost_micros: null, billed_micros: null, budget_spend_micros: null }),
        event(3, { estimated: true }),
        event(40, { cost_micros: 1n, budget_spend_micros: 1n }),
      ]);
    }, 120_000);
    afterAll(() => spendgate?.close());

    it('writes one row per request whose amounts add up to the events to the micro-unit, an unpriced one an empty cell', async () => {
      const query = { teamId: ids.team, startDate: daysAgo(7), endDate: today };
      const { response, text, rows } = await download({ ...query, granularity: 'request' });
      expect(response.status, text).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="spendgate-usage-request-export-ltd-${daysAgo(7)}-to-${today}.csv"`);
      expect(header(text)).toEqual(expect.arrayContaining(['time', 'request_id', 'group_name', 'key_name', 'provider', 'model', 'endpoint', 'status', 'list_cost_usd', 'budget_spend_gbp', 'billed_gbp', 'estimated', 'unpriced', 'latency_ms']));
      expect(rows).toHaveLength(5);
      expect(rows.map((row) => row.time)).toEqual([...rows.map((row) => row.time)].sort());

      const summary = (await callApi(spendgate.url, 'GET', `/usage/group/specific?${new URLSearchParams(query)}`, { token: admin.token })).body.data;
      expect(sumOf(rows, 'budget_spend_gbp').toString()).toBe(summary.totalCostMicros);
      expect(sumOf(rows, 'list_cost_usd').toString()).toBe(summary.totalCostUsdMicros);
      expect(rows.reduce((sum, row) => sum + Number(row.total_tokens), 0)).toBe(summary.totalTokens);

      const big = rows.find((row) => row.model === 'gpt-4o-mini')!;
      expect(big).toMatchObject({ list_cost_usd: '9007199254.740993', budget_spend_gbp: '7000000000.000001', group_name: 'Support', key_name: 'support-prod', unpriced: 'false' });
      const unpriced = rows.find((row) => row.status === '429')!;
      expect(unpriced).toMatchObject({ list_cost_usd: '', budget_spend_gbp: '', billed_gbp: '', unpriced: 'true', total_tokens: '0' });
      expect(rows.find((row) => row.provider === 'anthropic')).toMatchObject({ group_name: 'Search', cached_read_tokens: '400', cache_write_5m_tokens: '50', reasoning_tokens: '30', total_tokens: '1550' });
      expect(rows.filter((row) => row.estimated === 'true')).toHaveLength(1);

      const narrowed = await download({ groupId: ids.groupB, startDate: daysAgo(7), granularity: 'request' });
      expect(narrowed.rows.map((row) => row.key_id)).toEqual([ids.keyB]);
    });

    it('writes one row per day × group × key × provider × model from the rollups, the same totals', async () => {
      const query = { teamId: ids.team, startDate: daysAgo(60), endDate: today };
      const { response, text, rows } = await download({ ...query, granularity: 'day' });
      expect(response.status, text).toBe(200);
      const summary = (await callApi(spendgate.url, 'GET', `/usage/group/specific?${new URLSearchParams(query)}`, { token: admin.token })).body.data;
      expect(rows.reduce((sum, row) => sum + Number(row.requests), 0)).toBe(summary.requests);
      expect(sumOf(rows, 'budget_spend_gbp').toString()).toBe(summary.totalCostMicros);
      expect(sumOf(rows, 'list_cost_usd').toString()).toBe(summary.totalCostUsdMicros);
      // Yesterday: the BYOK request, and gpt-4o's unpriced 429 alone in its cell (an empty cost, not 0).
      const yesterday = rows.filter((row) => row.date === daysAgo(1));
      expect(yesterday).toHaveLength(2);
      expect(yesterday.find((row) => row.model === 'gpt-4o')).toMatchObject({ requests: '1', errors: '1', unpriced_requests: '1', list_cost_usd: '', budget_spend_gbp: '' });
      expect(rows.map((row) => row.date)).toEqual([...rows.map((row) => row.date)].sort());
    });

    it('writes FOCUS 1.2: every mandatory column in the spec’s order, the spec’s rules in every row, BilledCost summing to the GBP total', async () => {
      const query = { teamId: ids.team, startDate: daysAgo(7), endDate: today };
      const summary = (await callApi(spendgate.url, 'GET', `/usage/group/specific?${new URLSearchParams(query)}`, { token: admin.token })).body.data;
      for (const granularity of ['request', 'day']) {
        const { response, text, rows } = await download({ ...query, format: 'focus', granularity });
        expect(response.status, text).toBe(200);
        expect(response.headers.get('content-disposition')).toContain(`spendgate-focus-1.2-${granularity}-export-ltd-`);
        const columns = header(text);
        expect(columns.filter((column) => FOCUS_MANDATORY.includes(column))).toEqual(FOCUS_MANDATORY);
        const own = columns.filter((column) => !/^[A-Z]/.test(column));
        expect(own.every((column) => column.startsWith('x_'))).toBe(true);
        expect(columns).toEqual(expect.arrayContaining(['x_GroupName', 'x_KeyName', 'x_Model', 'ConsumedQuantity', 'ConsumedUnit', 'PricingCurrency', 'SubAccountId', 'SubAccountName']));
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) {
          for (const column of FOCUS_NOT_NULL) expect(row[column], `${column} of ${JSON.stringify(row)}`).not.toBe('');
          for (const column of ['BillingPeriodStart', 'BillingPeriodEnd', 'ChargePeriodStart', 'ChargePeriodEnd']) expect(row[column]).toMatch(FOCUS_TIME);
          expect(row.ChargePeriodStart! < row.ChargePeriodEnd!).toBe(true);
          expect(row.BillingPeriodStart! <= row.ChargePeriodStart! && row.ChargePeriodEnd! <= row.BillingPeriodEnd!).toBe(true);
          expect(row.BillingCurrency).toBe('GBP');
          expect(row.PricingCurrency).toMatch(/^[A-Z]{3}$/);
          expect(CHARGE_CATEGORIES).toContain(row.ChargeCategory);
          expect(['', 'Correction']).toContain(row.ChargeClass);
          for (const cost of ['BilledCost', 'EffectiveCost', 'ListCost', 'ContractedCost']) expect(decimalToMicros(row[cost]!), `${cost} ${row[cost]}`).toBeGreaterThanOrEqual(0n);
          expect(row.ListCost).toBe(row.BilledCost);
          expect(row.PricingUnit === '').toBe(row.PricingQuantity === '');
          expect(row.ConsumedUnit === '').toBe(row.ConsumedQuantity === '');
          expect(row.ConsumedQuantity).not.toBe('');
          expect(row.SubAccountName === '').toBe(row.SubAccountId === '');
          expect(row).toMatchObject({ ServiceCategory: 'AI and Machine Learning', ServiceSubcategory: 'Generative AI', ChargeFrequency: 'Usage-Based', BillingAccountId: ids.team, BillingAccountName: 'Export Ltd' });
          expect(row.InvoiceIssuerName).toBe(row.x_KeyKind === 'byok' ? row.ProviderName : 'Spendgate');
        }
        expect(sumOf(rows, 'BilledCost').toString()).toBe(summary.totalCostMicros);
        expect(rows.find((row) => row.x_Provider === 'anthropic')).toMatchObject({ ProviderName: 'Anthropic', PublisherName: 'Anthropic', InvoiceIssuerName: 'Anthropic', SubAccountName: 'Search', x_KeyName: 'search-byok' });
        const unpriced = rows.find((row) => row.x_UnpricedRequests === '1' && row.x_Requests === '1')!;
        expect(unpriced).toMatchObject({ BilledCost: '0.000000', x_ListCostUsd: '', x_SpendgateBilledCost: '' });
      }
      const perRequest = await download({ ...query, format: 'focus', granularity: 'request' });
      for (const row of perRequest.rows) {
        expect(Date.parse(row.ChargePeriodEnd!) - Date.parse(row.ChargePeriodStart!)).toBe(3_600_000);
        expect(row.x_RequestTime! >= row.ChargePeriodStart! && row.x_RequestTime! < row.ChargePeriodEnd!).toBe(true);
      }
    });

    it('names the field of a bad query, refuses the signed out, other teams and a range beyond the plan', async () => {
      const cases: [Record<string, string>, string][] = [
        [{}, 'teamId'],
        [{ teamId: ids.team, format: 'xlsx' }, 'format'],
        [{ teamId: ids.team, granularity: 'hour' }, 'granularity'],
        [{ teamId: ids.team, startDate: '2026-02-30' }, 'startDate'],
        [{ teamId: ids.team, startDate: today, endDate: daysAgo(2) }, 'endDate'],
        [{ teamId: 'not-a-uuid' }, 'teamId'],
        [{ teamId: ids.team, keyId: 'nope' }, 'keyId'],
      ];
      for (const [query, field] of cases) {
        const { response, text } = await download(query);
        expect(response.status, JSON.stringify(query)).toBe(400);
        expect(JSON.parse(text).field).toBe(field);
      }
      expect((await fetch(exportUrl({ teamId: ids.team }))).status).toBe(401);

      const outsider = await signUp(spendgate.url, `export-outsider-${mode}@example.com`);
      expect((await download({ teamId: ids.team }, outsider.token)).response.status).toBe(404);
      expect((await download({ groupId: ids.groupA }, outsider.token)).response.status).toBe(404);
      expect((await download({ teamId: ids.team, keyId: ids.bigKey })).response.status).toBe(404);

      const db = spendgate.app.runtime.stores.sql.db;
      await upsertSubscription(db, { userId: admin.userId, planSlug: 'developers', status: 'active', trialEnd: null });
      try {
        const beyond = await download({ teamId: ids.team, startDate: daysAgo(10) });
        expect(beyond.response.status).toBe(403);
        expect(JSON.parse(beyond.text).message).toBe(`The Developers plan shows usage of the last 7 days: choose a startDate on or after ${daysAgo(6)}`);
      } finally {
        await upsertSubscription(db, { userId: admin.userId, planSlug: 'growth', status: 'active', trialEnd: null });
      }
    });

    it('streams 50,000 requests with flat memory, every row there', async () => {
      const db = spendgate.app.runtime.stores.sql.db;
      const total = 50_000;
      const start = Date.now() - 2 * 86_400_000;
      for (let offset = 0; offset < total; offset += 2_500) {
        await insertUsageEvents(
          db,
          Array.from({ length: 2_500 }, (_, index) =>
            event(0, { team_id: ids.bigTeam, group_id: ids.bigGroup, key_id: ids.bigKey, occurred_at: new Date(start + (offset + index) * 1_000), budget_spend_micros: 7n }),
          ),
        );
      }
      // The server runs in this process: its heap is counted with the reader's (rows held
      // all at once before writing them grew it by 37 MB when tried).
      const used = () => process.memoryUsage().heapUsed;
      collectGarbage();
      const before = used();
      let peak = before;
      let count = 0;
      let spend = 0n;
      const response = await fetch(exportUrl({ teamId: ids.bigTeam, startDate: daysAgo(3), granularity: 'request' }), { headers: { authorization: `Bearer ${admin.token}` } });
      expect(response.status).toBe(200);
      const records = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream).pipe(parseStream({ columns: true }));
      for await (const record of records as AsyncIterable<Record<string, string>>) {
        count += 1;
        spend += micros(record.budget_spend_gbp);
        if (count % 5_000 === 0) {
          collectGarbage();
          peak = Math.max(peak, used());
        }
      }
      const growthMb = (peak - before) / 1_048_576;
      console.info(`usage export (${mode}): ${count} rows streamed, heap ${(before / 1_048_576).toFixed(1)} MB before, at most +${growthMb.toFixed(1)} MB while streaming`);
      expect(count).toBe(total);
      expect(spend).toBe(7n * BigInt(total));
      expect(growthMb).toBeLessThan(16);
    }, 600_000);
  });
}
