// The meter against a real (embedded) database: batches, exactly-once, retries.
import { listUsageEvents, type SqlStore } from '@spendgate/store';
import { openTestSqlStore, sqlBackends } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageEventJob } from '../jobs.ts';
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

    it('writes events arriving together in batches, each exactly once', async () => {
      const meter = createMeterProcessor({ sql }, { maxBatch: 50, maxWaitMs: 20 });
      const ids = Array.from({ length: 120 }, (_, i) => `batch-${i}`);
      // Redelivered duplicates in the same and in later batches change nothing.
      await Promise.all([...ids, 'batch-0', 'batch-119'].map((id) => meter(job(id))));
      await meter(job('batch-7'));
      const rows = await listUsageEvents(sql.db, TEAM);
      expect(rows.map((row) => row.request_id).sort()).toEqual([...ids].sort());
      expect(rows.every((row) => row.cost_micros === 75n && row.billed_micros === 0n && row.fx_rate_ppm === 750_000n)).toBe(true);
    });

    it('fails every job of a batch that cannot be written, so each is retried', async () => {
      const meter = createMeterProcessor({ sql }, { maxBatch: 10, maxWaitMs: 5 });
      const bad = { ...job('bad-1'), occurredAt: 'not a date' };
      const results = await Promise.allSettled([meter(job('good-1')), meter(bad)]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
      await meter(job('good-1'));
      expect((await listUsageEvents(sql.db, TEAM)).some((row) => row.request_id === 'good-1')).toBe(true);
    });
  });
}
