// Usage events: exactly one row per request. insertUsageEvents claims each request id
// in usage_request_ids and inserts only the events it claimed, adding them to their
// rollups (usage-rollups.ts), in one statement (so one transaction and one round trip),
// so a redelivered event is never counted twice.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database, NewUsageEvent } from '../schema.ts';
import { type UsageFilter, usageConditions } from './usage-filter.ts';
import { addToRollupsCtes } from './usage-rollups.ts';

/** usage_events' columns and their SQL types, as a batch's rows are read back. */
const USAGE_EVENT_COLUMNS: Record<keyof NewUsageEvent, string> = {
  request_id: 'text',
  occurred_at: 'timestamptz',
  team_id: 'uuid',
  group_id: 'uuid',
  key_id: 'uuid',
  connection_id: 'uuid',
  provider: 'text',
  model: 'text',
  endpoint: 'text',
  status_code: 'integer',
  streamed: 'boolean',
  estimated: 'boolean',
  input_tokens: 'bigint',
  cached_read_tokens: 'bigint',
  cache_write_5m_tokens: 'bigint',
  cache_write_1h_tokens: 'bigint',
  output_tokens: 'bigint',
  reasoning_tokens: 'bigint',
  cost_micros: 'bigint',
  currency: 'text',
  price_version: 'text',
  latency_ms: 'integer',
  key_kind: 'text',
  billed_micros: 'bigint',
  billed_currency: 'text',
  fx_rate_ppm: 'bigint',
  billing_rule: 'text',
  budget_spend_micros: 'bigint',
  route: 'text',
  body_hmac: 'text',
  requested_output_tokens: 'integer',
  requested_model: 'text',
};
const COLUMN_NAMES = Object.keys(USAGE_EVENT_COLUMNS) as (keyof NewUsageEvent)[];

/**
 * Inserts the events not seen before; returns how many were new. The batch travels as
 * one JSON parameter, each row an array of its values (half the bytes of keyed objects,
 * and cheaper to read back: ~25 % less database CPU per event than
 * json_populate_recordset), so the statement's text depends only on the columns given
 * (PostgreSQL plans it once) and not on the batch's size. A column no event gives keeps
 * its default.
 */
export async function insertUsageEvents(db: Kysely<Database>, events: NewUsageEvent[]): Promise<number> {
  const unique = new Map<string, NewUsageEvent>();
  for (const event of events) unique.set(event.request_id, event);
  if (unique.size === 0) return 0;
  const columns = COLUMN_NAMES.filter((column) => {
    for (const event of unique.values()) if (event[column] !== undefined) return true;
    return false;
  });
  // Bigints as their exact digits (JSON.stringify with a replacer costs twice as much).
  const rows: unknown[][] = [];
  for (const event of unique.values()) {
    const row: unknown[] = [];
    for (const column of columns) {
      const value = event[column];
      row.push(typeof value === 'bigint' ? value.toString() : value);
    }
    rows.push(row);
  }
  const names = sql.join(columns.map((column) => sql.ref(column)));
  const values = sql.join(columns.map((column, index) => sql`(value->>${sql.lit(index)})::${sql.raw(USAGE_EVENT_COLUMNS[column])} as ${sql.ref(column)}`));
  const { rows: counted } = await sql<{ inserted: number }>`
    with batch as (select ${values} from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) as value),
    claimed as (
      insert into usage_request_ids (request_id) select request_id from batch order by request_id
      on conflict (request_id) do nothing returning request_id
    ),
    inserted as (
      insert into usage_events (${names})
      select ${names} from batch where request_id in (select request_id from claimed)
      returning *
    ),
    ${addToRollupsCtes('inserted')}
    select count(*)::integer as inserted from inserted
  `.execute(db);
  return counted[0]?.inserted ?? 0;
}

/** When the team's first request was recorded; undefined before any. */
export async function firstUsageAt(db: Kysely<Database>, teamId: string): Promise<Date | undefined> {
  const row = await db.selectFrom('usage_events').select(sql<Date | null>`min(occurred_at)`.as('first')).where('team_id', '=', teamId).executeTakeFirst();
  return row?.first ? new Date(row.first) : undefined;
}

export async function listUsageEvents(db: Kysely<Database>, teamId: string) {
  return db.selectFrom('usage_events').selectAll().where('team_id', '=', teamId).orderBy('occurred_at').execute();
}

const HOUR_MS = 3_600_000;
const hourFloor = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
const hourCeiling = (at: Date) => new Date(Math.ceil(at.getTime() / HOUR_MS) * HOUR_MS);

/**
 * What a budget has counted in a window: the GBP micros settled on the ledger for the
 * team's events in [from, to) (unbounded when null), narrowed to the budget's key or group.
 * The spend ledger starts its counters from this, and the alert check reads it each minute.
 *
 * Read from the rollups, which the meter writes in the statement that records the events
 * (so they agree at every commit and nothing is behind), hence the cost grows with the
 * window's hours, not its requests: the whole UTC hours of the window from the hourly
 * cells, and the events of the part-hours at its edges (a time zone whose offset is not
 * whole hours, e.g. +05:30) from usage_events, all in one statement (one snapshot). Not
 * the daily cells, except for an unbounded window: they are cut at the team's midnights
 * in the time zone it had when they were written, which a later change of zone leaves
 * where they were. Events pruned past their retention still count in their cells.
 */
export async function sumBudgetSpend(
  db: Kysely<Database>,
  budget: { teamId: string; scope: 'key' | 'group' | 'team'; scopeId: string; from: Date | null; to: Date | null },
): Promise<bigint> {
  const inScope = (table: 'usage_rollups' | 'usage_events') => {
    const column = (name: string) => sql.ref(`${table}.${name}`);
    const scope = budget.scope === 'key' ? sql` and ${column('key_id')} = ${budget.scopeId}` : budget.scope === 'group' ? sql` and ${column('group_id')} = ${budget.scopeId}` : sql``;
    return sql`${column('team_id')} = ${budget.teamId}${scope}`;
  };
  const between = (column: RawBuilder<unknown>, from: Date | null, to: Date | null) =>
    sql.join([sql`true`, ...(from ? [sql`${column} >= ${from}`] : []), ...(to ? [sql`${column} < ${to}`] : [])], sql` and `);
  const cells = (grain: 'hour' | 'day', from: Date | null, to: Date | null) =>
    sql`(select coalesce(sum(budget_spend_micros), 0) from usage_rollups where ${inScope('usage_rollups')} and grain = ${grain} and ${between(sql.ref('bucket_start'), from, to)})`;
  const events = (spans: [Date, Date][]) =>
    spans.length === 0
      ? sql`0`
      : sql`(select coalesce(sum(budget_spend_micros), 0) from usage_events where ${inScope('usage_events')} and (${sql.join(
          spans.map(([from, to]) => sql`(occurred_at >= ${from} and occurred_at < ${to})`),
          sql` or `,
        )}))`;
  let total: RawBuilder<unknown>;
  if (budget.from === null && budget.to === null) total = cells('day', null, null);
  else {
    const hoursFrom = budget.from && hourCeiling(budget.from);
    const hoursTo = budget.to && hourFloor(budget.to);
    if (budget.from && budget.to && hoursFrom! > hoursTo!) total = events([[budget.from, budget.to]]);
    else {
      const edges: [Date, Date][] = [];
      if (budget.from && budget.from < hoursFrom!) edges.push([budget.from, hoursFrom!]);
      if (budget.to && hoursTo! < budget.to) edges.push([hoursTo!, budget.to]);
      total = sql`${cells('hour', hoursFrom, hoursTo)} + ${events(edges)}`;
    }
  }
  const { rows } = await sql<{ spent: string }>`select (${total})::text as spent`.execute(db);
  return BigInt(rows[0]!.spent);
}

/** Which of a team's usage events a request-log page lists, newest first. */
export interface UsageEventFilter extends UsageFilter {
  /** ok: answered below 400; error: 400 or above. */
  status?: 'ok' | 'error' | undefined;
  /** The last event of the previous page (its time as the database's text, to the microsecond): this page starts after it. */
  after?: { at: string; requestId: string } | undefined;
  limit: number;
}

/**
 * One page of a team's request log: its usage events, newest first, with their group's
 * and key's names (null once the group is deleted). Left joins keep the events the
 * driving table, so the page is read from the (team, time) index and stops at `limit`.
 */
export async function requestLogPage(db: Kysely<Database>, filter: UsageEventFilter) {
  let query = db
    .selectFrom('usage_events as e')
    .leftJoin('synthetic_groups as g', 'g.id', 'e.group_id')
    .leftJoin('issued_keys as k', 'k.id', 'e.key_id')
    .selectAll('e')
    .select(['g.name as group_name', 'k.name as key_name', 'k.key_prefix', sql<string>`e.occurred_at::text`.as('cursor_at')])
    .where(usageConditions(filter, 'e', 'occurred_at') as RawBuilder<boolean>);
  if (filter.status !== undefined) query = query.where('e.status_code', filter.status === 'ok' ? '<' : '>=', 400);
  if (filter.after !== undefined) {
    const { at, requestId } = filter.after;
    query = query.where(sql<boolean>`(e.occurred_at, e.request_id) < (${at}::timestamptz, ${requestId})`);
  }
  return query.orderBy('e.occurred_at', 'desc').orderBy('e.request_id', 'desc').limit(filter.limit).execute();
}

/** One usage event by its request id, with its group's and key's names. */
export async function findUsageEvent(db: Kysely<Database>, requestId: string) {
  return db
    .selectFrom('usage_events as e')
    .leftJoin('synthetic_groups as g', 'g.id', 'e.group_id')
    .leftJoin('issued_keys as k', 'k.id', 'e.key_id')
    .selectAll('e')
    .select(['g.name as group_name', 'k.name as key_name', 'k.key_prefix'])
    .where('e.request_id', '=', requestId)
    .executeTakeFirst();
}

