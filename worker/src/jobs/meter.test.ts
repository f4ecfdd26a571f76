// The meter against a real database: batches, exactly-once, failures.
import { listUsageEvents, type SqlStore, type UsageEventJob } from '@spendgate/store';
import { openTestSqlStore, sqlBackends } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMeterProcessor } from './meter.ts';

const TEAM = '00000000-0000-4000-8000-000000000001';

function job(requestId: string): UsageEventJob {
  return {
    requestId,
    occurredAt: '2026-11-20T10:00:00.000Z',
    teamId: TEAM,
    groupId: '00000000-0000-4000-8000-000000000002',
    keyId: '00000000-0000-4000-8000-000000000003',
    connectionId: null,
    provider: 'openai',
    model: 'gpt-4o',
    endpoint: 'chat.completions',
    statusCode: 200,
    streamed: false,
    estimated: false,
    usage: { inputTokens: 10, cachedReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens: 5, reasoningTokens: 0 },
    costMicros: '75',
    currency: 'USD',
    priceVersion: '2026-08-21',
    latencyMs: 3,
    keyKind: 'byok',
    billedMicros: '0',
    billingRule: 'byok-provider-direct',
    fxRatePpm: '750000',
    budgetSpendMicros: '56',
    route: 'requested',
  };
}

for (const backend of sqlBackends) {
  describe(`meter on ${backend}`, () => {
    let sql: SqlStore;
    beforeAll(async () => {
      sql = await openTestSqlStore(backend, new Date('2026-11-20T00:00:00Z'));
    });
    afterAll(() => sql?.close());

    it('writes a batch of events, each exactly once', async () => {
      const meter = createMeterProcessor({ sql });
      const ids = Array.from({ length: 120 }, (_, i) => `batch-${i}`);
      // Redelivered duplicates in the same and in later batches change nothing.
      await meter({ events: [...ids, 'batch-0', 'batch-119'].map(job) });
      await meter({ events: [job('batch-7'), job('batch-120')] });
      const rows = await listUsageEvents(sql.db, TEAM);
      expect(rows.map((row) => row.request_id).sort()).toEqual([...ids, 'batch-120'].sort());
      expect(rows.every((row) => row.cost_micros === 75n && row.billed_micros === 0n && row.fx_rate_ppm === 750_000n)).toBe(true);
    });

    it('writes the body hash and the model and output limit asked, and null for an event without them', async () => {
      const meter = createMeterProcessor({ sql });
      const hash = 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9';
      await meter({ events: [{ ...job('facts-1'), bodyHmac: hash, requestedModel: 'gpt-4o', requestedOutputTokens: 4_096 }, job('facts-2')] });
      const rows = (await listUsageEvents(sql.db, TEAM)).filter((row) => row.request_id.startsWith('facts-'));
      expect(rows.map(({ request_id, body_hmac, requested_model, requested_output_tokens }) => ({ request_id, body_hmac, requested_model, requested_output_tokens }))).toEqual([
        { request_id: 'facts-1', body_hmac: hash, requested_model: 'gpt-4o', requested_output_tokens: 4_096 },
        { request_id: 'facts-2', body_hmac: null, requested_model: null, requested_output_tokens: null },
      ]);
    });

    it('writes the good events of a batch with one that cannot be written, and fails for it', async () => {
      const meter = createMeterProcessor({ sql });
      const bad = { ...job('bad-1'), occurredAt: 'not a date' };
      await expect(meter({ events: [job('good-1'), bad, job('good-2')] })).rejects.toThrow();
      const written = (await listUsageEvents(sql.db, TEAM)).map((row) => row.request_id);
      expect(written).toEqual(expect.arrayContaining(['good-1', 'good-2']));
      expect(written).not.toContain('bad-1');
    });
  });
}
