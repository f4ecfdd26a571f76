// meter: writes usage events to the database exactly once (each request id is claimed
// in the same statement as its row), so a redelivered event changes nothing.
import type { NewUsageEvent, SqlStore, UsageBatchJob, UsageEventJob } from '@spendgate/store';
import { insertUsageEvents } from '@spendgate/store';

/** The event's row; the job's token counts (safe integers) and amounts (exact decimal strings) go as they are. */
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
    input_tokens: usage.inputTokens,
    cached_read_tokens: usage.cachedReadTokens,
    cache_write_5m_tokens: usage.cacheWrite5mTokens,
    cache_write_1h_tokens: usage.cacheWrite1hTokens,
    output_tokens: usage.outputTokens,
    reasoning_tokens: usage.reasoningTokens,
    cost_micros: job.costMicros,
    currency: job.currency,
    price_version: job.priceVersion,
    latency_ms: job.latencyMs,
    key_kind: job.keyKind,
    billed_micros: job.billedMicros,
    billed_currency: 'GBP',
    fx_rate_ppm: job.fxRatePpm,
    billing_rule: job.billingRule,
    budget_spend_micros: job.budgetSpendMicros,
    route: job.route,
    body_hmac: job.bodyHmac ?? null,
    requested_output_tokens: job.requestedOutputTokens ?? null,
    requested_model: job.requestedModel ?? null,
  };
}

/**
 * The meter job handler: writes a batch of events in one statement. When that fails,
 * each event is written alone, so one that cannot be written holds back no other; the
 * job then fails (and is retried) for it. The job completes only once its events are
 * committed, so delivery stays at least once.
 */
export function createMeterProcessor(deps: { sql: Pick<SqlStore, 'db'> }) {
  const write = (events: UsageEventJob[]) => insertUsageEvents(deps.sql.db, events.map(usageEventRow));
  return async ({ events }: UsageBatchJob): Promise<void> => {
    try {
      await write(events);
    } catch (error) {
      if (events.length === 1) throw error;
      const failed = (await Promise.allSettled(events.map((event) => write([event])))).find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
  };
}
