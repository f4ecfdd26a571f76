// Usage events: exactly one row per request. insertUsageEvents claims each request id
// in usage_request_ids and inserts only the events it claimed, in one statement (so one
// transaction and one round trip), so a redelivered event is never counted twice.
import { type Kysely, sql } from 'kysely';
import type { Database, NewUsageEvent } from '../schema.ts';

/**
 * Inserts the events not seen before; returns how many were new. The batch travels as
 * one JSON parameter read back as usage_events rows, so the statement's text depends
 * only on the columns given (PostgreSQL plans it once) and not on the batch's size.
 */
export async function insertUsageEvents(db: Kysely<Database>, events: NewUsageEvent[]): Promise<number> {
  const unique = new Map<string, NewUsageEvent>();
  for (const event of events) unique.set(event.request_id, event);
  if (unique.size === 0) return 0;
  // One pass over the rows: the columns given, and bigints as their exact digits (JSON.stringify with a replacer costs twice as much).
  const columnNames = new Set<string>();
  const rows: Record<string, unknown>[] = [];
  for (const event of unique.values()) {
    const row: Record<string, unknown> = {};
    for (const column in event) {
      columnNames.add(column);
      const value = event[column as keyof NewUsageEvent];
      row[column] = typeof value === 'bigint' ? value.toString() : value;
    }
    rows.push(row);
  }
  const columns = sql.join([...columnNames].map((column) => sql.ref(column)));
  const { numAffectedRows } = await sql`
    with batch as (select * from json_populate_recordset(null::usage_events, ${JSON.stringify(rows)}::json)),
    claimed as (
      insert into usage_request_ids (request_id) select request_id from batch
      on conflict (request_id) do nothing returning request_id
    )
    insert into usage_events (${columns})
    select ${columns} from batch where request_id in (select request_id from claimed)
  `.execute(db);
  return Number(numAffectedRows ?? 0n);
}

export interface UsageTotals {
  requests: number;
  inputTokens: bigint;
  cachedReadTokens: bigint;
  cacheWriteTokens: bigint;
  outputTokens: bigint;
  reasoningTokens: bigint;
  /** Sum over priced events only. */
  costMicros: bigint;
  unpricedRequests: number;
  estimatedRequests: number;
}

/** Totals for one group of one team over [from, to). */
export function sumGroupUsage(
  db: Kysely<Database>,
  scope: { teamId: string; groupId: string; from: Date; to: Date },
): Promise<UsageTotals> {
  return sumUsage(db, scope);
}

/** Totals of one team over [from, to), narrowed to a group and/or a connection when named. */
export async function sumUsage(
  db: Kysely<Database>,
  scope: { teamId: string; groupId?: string; connectionId?: string; from: Date; to: Date },
): Promise<UsageTotals> {
  let query = db
    .selectFrom('usage_events')
    .select([
      sql<bigint>`count(*)`.as('requests'),
      sql<bigint>`coalesce(sum(input_tokens), 0)::bigint`.as('inputTokens'),
      sql<bigint>`coalesce(sum(cached_read_tokens), 0)::bigint`.as('cachedReadTokens'),
      sql<bigint>`coalesce(sum(cache_write_5m_tokens + cache_write_1h_tokens), 0)::bigint`.as('cacheWriteTokens'),
      sql<bigint>`coalesce(sum(output_tokens), 0)::bigint`.as('outputTokens'),
      sql<bigint>`coalesce(sum(reasoning_tokens), 0)::bigint`.as('reasoningTokens'),
      sql<bigint>`coalesce(sum(cost_micros), 0)::bigint`.as('costMicros'),
      sql<bigint>`count(*) filter (where cost_micros is null)`.as('unpricedRequests'),
      sql<bigint>`count(*) filter (where estimated)`.as('estimatedRequests'),
    ])
    .where('team_id', '=', scope.teamId)
    .where('occurred_at', '>=', scope.from)
    .where('occurred_at', '<', scope.to);
  if (scope.groupId) query = query.where('group_id', '=', scope.groupId);
  if (scope.connectionId) query = query.where('connection_id', '=', scope.connectionId);
  const row = await query.executeTakeFirstOrThrow();
  return {
    requests: Number(row.requests),
    inputTokens: row.inputTokens,
    cachedReadTokens: row.cachedReadTokens,
    cacheWriteTokens: row.cacheWriteTokens,
    outputTokens: row.outputTokens,
    reasoningTokens: row.reasoningTokens,
    costMicros: row.costMicros,
    unpricedRequests: Number(row.unpricedRequests),
    estimatedRequests: Number(row.estimatedRequests),
  };
}

export async function listUsageEvents(db: Kysely<Database>, teamId: string) {
  return db.selectFrom('usage_events').selectAll().where('team_id', '=', teamId).orderBy('occurred_at').execute();
}

/**
 * What a budget has counted in a window: the GBP micros settled on the ledger for the
 * team's events in [from, to) (unbounded when null), narrowed to the budget's key or group.
 * The spend ledger starts its counters from this.
 */
export async function sumBudgetSpend(
  db: Kysely<Database>,
  budget: { teamId: string; scope: 'key' | 'group' | 'team'; scopeId: string; from: Date | null; to: Date | null },
): Promise<bigint> {
  let query = db
    .selectFrom('usage_events')
    .select(sql<bigint>`coalesce(sum(budget_spend_micros), 0)::bigint`.as('spent'))
    .where('team_id', '=', budget.teamId);
  if (budget.scope === 'key') query = query.where('key_id', '=', budget.scopeId);
  if (budget.scope === 'group') query = query.where('group_id', '=', budget.scopeId);
  if (budget.from) query = query.where('occurred_at', '>=', budget.from);
  if (budget.to) query = query.where('occurred_at', '<', budget.to);
  return BigInt((await query.executeTakeFirstOrThrow()).spent);
}
