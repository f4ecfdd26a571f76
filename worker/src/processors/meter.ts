// meter: writes usage events to the database exactly once (each request id is claimed
// in the same transaction as its row), so a redelivered job changes nothing.
import type { NewUsageEvent, SqlStore } from '@spendgate/store';
import { insertUsageEvents } from '@spendgate/store';
import type { UsageEventJob } from '../jobs.ts';

export function usageEventRow(job: UsageEventJob): NewUsageEvent {
  const { usage } = job;
  return {
    request_id: job.requestId,
    occurred_at: job.occurredAt,
    team_id: job.teamId,
    group_id: job.groupId,
    key_id: job.keyId,
    connection_id: job.connectionId,
    provider: job.provider,
    model: job.model,
    endpoint: job.endpoint,
    status_code: job.statusCode,
    streamed: job.streamed,
    estimated: job.estimated,
    input_tokens: BigInt(usage.inputTokens),
    cached_read_tokens: BigInt(usage.cachedReadTokens),
    cache_write_5m_tokens: BigInt(usage.cacheWrite5mTokens),
    cache_write_1h_tokens: BigInt(usage.cacheWrite1hTokens),
    output_tokens: BigInt(usage.outputTokens),
    reasoning_tokens: BigInt(usage.reasoningTokens),
    cost_micros: job.costMicros === null ? null : BigInt(job.costMicros),
    currency: job.currency,
    price_version: job.priceVersion,
    latency_ms: job.latencyMs,
    key_kind: job.keyKind,
    billed_micros: job.billedMicros === null ? null : BigInt(job.billedMicros),
    billed_currency: 'GBP',
    fx_rate_ppm: BigInt(job.fxRatePpm),
    billing_rule: job.billingRule,
    budget_spend_micros: BigInt(job.budgetSpendMicros),
    route: job.route,
  };
}

export interface MeterBatching {
  /** Events written in one statement at most. */
  maxBatch: number;
  /** How long the first event of a batch waits for others. */
  maxWaitMs: number;
}

/**
 * The meter job handler. Events arriving together are written in one transaction (a
 * batch of up to `maxBatch`, or whatever came within `maxWaitMs`); each job completes
 * only once its batch is committed, so delivery stays at least once and a failed
 * batch is retried job by job.
 */
export function createMeterProcessor(
  deps: { sql: Pick<SqlStore, 'db'> },
  // A transaction costs about as much as tens of rows, and the embedded database runs
  // on the gateway's event loop: fewer, larger batches leave it more time for requests.
  batching: MeterBatching = { maxBatch: 256, maxWaitMs: 50 },
) {
  let pending: { row: NewUsageEvent; done: (error?: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | undefined;

  const flush = async () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    try {
      await insertUsageEvents(deps.sql.db, batch.map((entry) => entry.row));
      for (const entry of batch) entry.done();
    } catch (error) {
      for (const entry of batch) entry.done(error);
    }
  };

  return (job: UsageEventJob): Promise<void> =>
    new Promise((resolve, reject) => {
      pending.push({ row: usageEventRow(job), done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (pending.length >= batching.maxBatch) void flush();
      else timer ??= setTimeout(flush, batching.maxWaitMs);
    });
}
