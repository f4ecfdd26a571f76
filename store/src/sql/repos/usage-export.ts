// What a usage export reads: a team's usage events page by page (keyset on time and
// request id, so a team of any size streams with flat memory and no page costs more than
// the one before), and a day's rollup cells summed per group, key, provider, model and key
// kind. Group and key names come along; every amount and token count is an exact decimal
// string (bigint as text), never a float.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../schema.ts';
import { type UsageFilter, usageConditions } from './usage-filter.ts';


/** One usage event as an export writes it. */
export interface ExportedEvent {
  requestId: string;
  occurredAt: Date;
  /** Null (with keyId) for the AI advisor's wording, the team's usage without a key. */
  groupId: string | null;
  groupName: string | null;
  keyId: string | null;
  keyName: string | null;
  keyKind: string;
  provider: string;
  model: string;
  endpoint: string;
  statusCode: number;
  estimated: boolean;
  inputTokens: bigint;
  cachedReadTokens: bigint;
  cacheWrite5mTokens: bigint;
  cacheWrite1hTokens: bigint;
  outputTokens: bigint;
  reasoningTokens: bigint;
  /** USD micros at the provider's list price; null when the request could not be priced. */
  costMicros: bigint | null;
  /** GBP micros the request counted on budgets; null when unpriced. */
  budgetSpendMicros: bigint | null;
  /** GBP micros Spendgate charges for it; null when unpriced. */
  billedMicros: bigint | null;
  latencyMs: number;
}

/** What an export row measures, whichever its granularity (one request, or a day's cell). */
export interface UsageMeasures {
  requests: bigint;
  errors: bigint;
  estimatedRequests: bigint;
  unpricedRequests: bigint;
  inputTokens: bigint;
  cachedReadTokens: bigint;
  cacheWrite5mTokens: bigint;
  cacheWrite1hTokens: bigint;
  outputTokens: bigint;
  reasoningTokens: bigint;
  /** USD micros at list price; null when nothing of the row could be priced. */
  costMicros: bigint | null;
  /** GBP micros counted on budgets; null when nothing of the row could be priced. */
  budgetSpendMicros: bigint | null;
  /** GBP micros Spendgate charges; null when nothing of the row could be priced. */
  billedMicros: bigint | null;
}

/** One day's usage of one group, key, provider and model (and the key's kind). */
export interface ExportedDayCell extends UsageMeasures {
  /** Null (with keyId) for the AI advisor's wording. */
  groupId: string | null;
  groupName: string | null;
  keyId: string | null;
  keyName: string | null;
  keyKind: string;
  provider: string;
  model: string;
  latencySumMs: bigint;
  latencyMaxMs: number;
}

const optionalBigint = (value: string | null) => (value === null ? null : BigInt(value));

interface EventRow {
  request_id: string;
  occurred_at: Date | string;
  cursor_at: string;
  group_id: string | null;
  group_name: string | null;
  key_id: string | null;
  key_name: string | null;
  key_kind: string;
  provider: string;
  model: string;
  endpoint: string;
  status_code: number;
  estimated: boolean;
  input_tokens: string;
  cached_read_tokens: string;
  cache_write_5m_tokens: string;
  cache_write_1h_tokens: string;
  output_tokens: string;
  reasoning_tokens: string;
  cost_micros: string | null;
  budget_spend_micros: string | null;
  billed_micros: string | null;
  latency_ms: number;
}

/**
 * The matching events, oldest first, `pageSize` at a time. Each page starts after the
 * last row of the one before (its time as the database's text, to the microsecond, and
 * its request id), so only one page is ever held.
 */
export async function* usageEventPages(db: Kysely<Database>, filter: UsageFilter, pageSize = 1_000): AsyncGenerator<ExportedEvent[]> {
  let after: { at: string; requestId: string } | undefined;
  for (;;) {
    const cursor = after === undefined ? sql`true` : sql`(events.occurred_at, events.request_id) > (${after.at}::timestamptz, ${after.requestId})`;
    const { rows } = await sql<EventRow>`
      select events.request_id, events.occurred_at, events.occurred_at::text as cursor_at,
             events.group_id, groups.name as group_name, events.key_id, keys.name as key_name, events.key_kind,
             events.provider, events.model, events.endpoint, events.status_code, events.estimated,
             events.input_tokens::text as input_tokens, events.cached_read_tokens::text as cached_read_tokens,
             events.cache_write_5m_tokens::text as cache_write_5m_tokens, events.cache_write_1h_tokens::text as cache_write_1h_tokens,
             events.output_tokens::text as output_tokens, events.reasoning_tokens::text as reasoning_tokens,
             events.cost_micros::text as cost_micros, events.budget_spend_micros::text as budget_spend_micros,
             events.billed_micros::text as billed_micros, events.latency_ms
      from usage_events as events
      left join synthetic_groups as groups on groups.id = events.group_id
      left join issued_keys as keys on keys.id = events.key_id
      where ${usageConditions(filter, 'events', 'occurred_at')} and ${cursor}
      order by events.occurred_at, events.request_id
      limit ${pageSize}`.execute(db);
    if (rows.length === 0) return;
    yield rows.map((row) => ({
      requestId: row.request_id,
      occurredAt: new Date(row.occurred_at),
      groupId: row.group_id,
      groupName: row.group_name,
      keyId: row.key_id,
      keyName: row.key_name,
      keyKind: row.key_kind,
      provider: row.provider,
      model: row.model,
      endpoint: row.endpoint,
      statusCode: row.status_code,
      estimated: row.estimated,
      inputTokens: BigInt(row.input_tokens),
      cachedReadTokens: BigInt(row.cached_read_tokens),
      cacheWrite5mTokens: BigInt(row.cache_write_5m_tokens),
      cacheWrite1hTokens: BigInt(row.cache_write_1h_tokens),
      outputTokens: BigInt(row.output_tokens),
      reasoningTokens: BigInt(row.reasoning_tokens),
      costMicros: optionalBigint(row.cost_micros),
      budgetSpendMicros: optionalBigint(row.budget_spend_micros),
      billedMicros: optionalBigint(row.billed_micros),
      latencyMs: Number(row.latency_ms),
    }));
    if (rows.length < pageSize) return;
    const last = rows.at(-1)!;
    after = { at: last.cursor_at, requestId: last.request_id };
  }
}

interface DayCellRow {
  group_id: string | null;
  group_name: string | null;
  key_id: string | null;
  key_name: string | null;
  key_kind: string;
  provider: string;
  model: string;
  requests: string;
  errors: string;
  estimated_requests: string;
  unpriced_requests: string;
  input_tokens: string;
  cached_read_tokens: string;
  cache_write_5m_tokens: string;
  cache_write_1h_tokens: string;
  output_tokens: string;
  reasoning_tokens: string;
  cost_micros: string;
  budget_spend_micros: string;
  billed_micros: string;
  latency_sum_ms: string;
  latency_max_ms: number | string;
}

/**
 * The day rollup cells of one day (the bucket starting at `dayStart`, the team's local
 * midnight) summed per group, key, provider, model and key kind (connections folded in),
 * in a stable order.
 */
export async function usageDayCells(db: Kysely<Database>, filter: Omit<UsageFilter, 'from' | 'to'>, dayStart: Date): Promise<ExportedDayCell[]> {
  const { rows } = await sql<DayCellRow>`
    select cells.group_id, groups.name as group_name, cells.key_id, keys.name as key_name, cells.key_kind, cells.provider, cells.model,
           sum(cells.requests)::text as requests, sum(cells.errors)::text as errors,
           sum(cells.estimated_requests)::text as estimated_requests, sum(cells.unpriced_requests)::text as unpriced_requests,
           sum(cells.input_tokens)::text as input_tokens, sum(cells.cached_read_tokens)::text as cached_read_tokens,
           sum(cells.cache_write_5m_tokens)::text as cache_write_5m_tokens, sum(cells.cache_write_1h_tokens)::text as cache_write_1h_tokens,
           sum(cells.output_tokens)::text as output_tokens, sum(cells.reasoning_tokens)::text as reasoning_tokens,
           sum(cells.cost_micros)::text as cost_micros, sum(cells.budget_spend_micros)::text as budget_spend_micros,
           sum(cells.billed_micros)::text as billed_micros, sum(cells.latency_sum_ms)::text as latency_sum_ms, max(cells.latency_max_ms) as latency_max_ms
    from usage_rollups as cells
    left join synthetic_groups as groups on groups.id = cells.group_id
    left join issued_keys as keys on keys.id = cells.key_id
    where ${usageConditions({ ...filter, from: dayStart, to: new Date(dayStart.getTime() + 1) }, 'cells', 'bucket_start')} and cells.grain = 'day'
    group by cells.group_id, groups.name, cells.key_id, keys.name, cells.key_kind, cells.provider, cells.model
    order by groups.name, cells.group_id, keys.name, cells.key_id, cells.provider, cells.model, cells.key_kind`.execute(db);
  return rows.map((row) => {
    // A cell none of whose requests could be priced has no amounts (unknown, never 0).
    const amount = (micros: string) => (row.unpriced_requests === row.requests ? null : BigInt(micros));
    return {
    groupId: row.group_id,
    groupName: row.group_name,
    keyId: row.key_id,
    keyName: row.key_name,
    keyKind: row.key_kind,
    provider: row.provider,
    model: row.model,
    requests: BigInt(row.requests),
    errors: BigInt(row.errors),
    estimatedRequests: BigInt(row.estimated_requests),
    unpricedRequests: BigInt(row.unpriced_requests),
    inputTokens: BigInt(row.input_tokens),
    cachedReadTokens: BigInt(row.cached_read_tokens),
    cacheWrite5mTokens: BigInt(row.cache_write_5m_tokens),
    cacheWrite1hTokens: BigInt(row.cache_write_1h_tokens),
    outputTokens: BigInt(row.output_tokens),
    reasoningTokens: BigInt(row.reasoning_tokens),
    costMicros: amount(row.cost_micros),
    budgetSpendMicros: amount(row.budget_spend_micros),
    billedMicros: amount(row.billed_micros),
    latencySumMs: BigInt(row.latency_sum_ms),
    latencyMaxMs: Number(row.latency_max_ms),
    };
  });
}
