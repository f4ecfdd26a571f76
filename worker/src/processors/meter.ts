// meter: writes a usage event to the database exactly once (the request id is claimed
// in the same transaction), so a redelivered job changes nothing.
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
  };
}

export function createMeterProcessor(deps: { sql: Pick<SqlStore, 'db'> }) {
  return async (job: UsageEventJob): Promise<void> => {
    await insertUsageEvents(deps.sql.db, [usageEventRow(job)]);
  };
}
