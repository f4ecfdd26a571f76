// Usage rollups: the sums of the usage events per team, hour (UTC) or day (the team's
// time zone), and dimension. The meter adds a batch's events to them in the statement
// that records the events (usage.ts), so they agree with the events at every commit;
// recomputeRollups rebuilds any window from the events, reconcileRollups finds the
// cells that disagree with the events and rebuilds their days, and rebuildNextRollupDays
// regroups a team's days for the time zone it moved to.
import { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKETS } from '@spendgate/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../schema.ts';
import type { Db } from './db.ts';
import { type UsageFilter, usageConditions } from './usage-filter.ts';

/** What a rollup cell is keyed by, beside its team, grain and bucket. */
const DIMENSIONS = ['group_id', 'key_id', 'connection_id', 'provider', 'model', 'key_kind'] as const;

/** The summed columns, in the order CELL_MEASURES computes them. */
const MEASURES = [
  'requests',
  'errors',
  'estimated_requests',
  'unpriced_requests',
  'input_tokens',
  'cached_read_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'output_tokens',
  'reasoning_tokens',
  'cost_micros',
  'billed_micros',
  'budget_spend_micros',
  'latency_sum_ms',
  'latency_max_ms',
  'latency_histogram',
] as const;

/** The measures a merge of cells sums. */
const SUMMED_MEASURES = MEASURES.filter((column) => column !== 'latency_max_ms' && column !== 'latency_histogram');

/**
 * The first level of a rollup: the events grouped once by hour, day, cell and latency
 * bucket (width_bucket: the number of bounds at or below the latency, as core's
 * latencyBucket counts), each group with its sums. A group per bucket costs one
 * comparison chain per event; the cells (second level) are made from these few rows.
 */
function eventGroups(source: RawBuilder<unknown>, where: RawBuilder<unknown> = sql`true`) {
  return sql`
    select events.team_id,
      date_trunc('hour', events.occurred_at, 'UTC') as hour,
      date_trunc('day', events.occurred_at, teams.time_zone) as day,
      ${DIMENSION_REFS},
      width_bucket(events.latency_ms, ${sql.raw(`array[${LATENCY_BUCKET_BOUNDS_MS.join(', ')}]`)}) as latency_bucket,
      count(*) as requests,
      count(*) filter (where events.status_code >= 400) as errors,
      count(*) filter (where events.estimated) as estimated_requests,
      count(*) filter (where events.cost_micros is null) as unpriced_requests,
      sum(events.input_tokens) as input_tokens, sum(events.cached_read_tokens) as cached_read_tokens,
      sum(events.cache_write_5m_tokens) as cache_write_5m_tokens, sum(events.cache_write_1h_tokens) as cache_write_1h_tokens,
      sum(events.output_tokens) as output_tokens, sum(events.reasoning_tokens) as reasoning_tokens,
      coalesce(sum(events.cost_micros), 0) as cost_micros, coalesce(sum(events.billed_micros), 0) as billed_micros,
      coalesce(sum(events.budget_spend_micros), 0) as budget_spend_micros,
      sum(events.latency_ms) as latency_sum_ms, max(events.latency_ms) as latency_max_ms
    from ${source} as events join teams on teams.id = events.team_id
    where ${where}
    group by events.team_id, 2, 3, ${DIMENSION_REFS}, latency_bucket`;
}

/** The cells' measures from event groups: sums, the maximum, and the groups' counts placed in their latency bucket. */
const CELL_MEASURES = sql.join([
  ...SUMMED_MEASURES.map((column) => sql`sum(${sql.ref(column)})`),
  sql`max(latency_max_ms)`,
  sql`array[${sql.join(Array.from({ length: LATENCY_BUCKETS }, (_, bucket) => sql`coalesce(sum(requests) filter (where latency_bucket = ${sql.lit(bucket)}), 0)`))}]::bigint[]`,
]);

const COLUMNS = sql.join(['team_id', 'grain', 'bucket_start', ...DIMENSIONS, ...MEASURES].map((column) => sql.ref(column)));
const DIMENSION_REFS = sql.join(DIMENSIONS.map((column) => sql.ref(`events.${column}`)));
const GROUP_DIMENSIONS = sql.join(DIMENSIONS.map((column) => sql.ref(column)));

/** A cell already there takes the new events' measures added (maximum for the maximum). */
const ADD_TO_CELL = sql.join(
  MEASURES.map((column) => {
    const ref = sql.ref(column);
    if (column === 'latency_max_ms') return sql`${ref} = greatest(usage_rollups.${ref}, excluded.${ref})`;
    if (column === 'latency_histogram') {
      return sql`${ref} = (select array_agg(mine + theirs order by bucket) from unnest(usage_rollups.${ref}, excluded.${ref}) with ordinality as counts(mine, theirs, bucket))`;
    }
    return sql`${ref} = usage_rollups.${ref} + excluded.${ref}`;
  }),
);

type Grain = 'hour' | 'day';

/** SELECT of the rollup rows of one grain from event groups (`groups`: a relation eventGroups made). */
function rollupRows(grain: Grain, groups: RawBuilder<unknown>) {
  const bucket = sql.ref(grain === 'hour' ? 'hour' : 'day');
  return sql`
    select team_id, ${sql.lit(grain)}, ${bucket}, ${GROUP_DIMENSIONS}, ${CELL_MEASURES}
    from ${groups} as groups
    group by team_id, ${bucket}, ${GROUP_DIMENSIONS}`;
}

/** The rollup rows of one grain of the usage events matching `where` (on `events`). */
function rollupRowsOfEvents(grain: Grain, where: RawBuilder<unknown>) {
  return rollupRows(grain, sql`(${eventGroups(sql.table('usage_events'), where)})`);
}

/** The cell key, in the one order every writer locks cells in. */
const CELL_ORDER = sql.join(['team_id', 'grain', 'bucket_start', ...DIMENSIONS].map((column) => sql.ref(column)));

/**
 * Data-modifying CTEs that add the events of the CTE `inserted` (usage_events' columns)
 * to their hourly and daily cells, grouping them once; usage.ts appends them to the
 * statement that records the events. One INSERT writes both grains in the cell key's
 * order, so meters writing at once lock shared cells in the same order and never
 * deadlock (two INSERTs, or rows in the batch's order, did under 4 writers on PostgreSQL).
 */
export function addToRollupsCtes(inserted: string): RawBuilder<unknown> {
  const groups = sql.table('rollup_groups');
  return sql`
    rollup_groups as (${eventGroups(sql.table(inserted))}),
    added_to_rollups as (
      insert into usage_rollups (${COLUMNS})
      select * from (${rollupRows('hour', groups)} union all ${rollupRows('day', groups)}) as cells (${COLUMNS})
      order by ${CELL_ORDER}
      on conflict on constraint usage_rollups_cell do update set ${ADD_TO_CELL}
    )`;
}

/** The hours and days a window of a team's events touches: whole days in its time zone, and the UTC hours they span. */
async function windowOf(db: Kysely<Database>, teamId: string, from: Date, to: Date) {
  // 26 hours past a local midnight is the next day in any time zone, DST included.
  const { rows } = await sql<{ day_start: Date; day_end: Date }>`
    select date_trunc('day', ${from}::timestamptz, time_zone) as day_start,
           date_trunc('day', date_trunc('day', ${to}::timestamptz - interval '1 microsecond', time_zone) + interval '26 hours', time_zone) as day_end
    from teams where id = ${teamId}`.execute(db);
  const days = rows[0];
  if (days === undefined) return undefined;
  const dayStart = new Date(days.day_start);
  const dayEnd = new Date(days.day_end);
  return { dayStart, dayEnd, hourStart: floorToHour(dayStart), hourEnd: floorToHour(new Date(dayEnd.getTime() + HOUR_MS - 1)) };
}

const HOUR_MS = 3_600_000;

function floorToHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

/**
 * Rebuilds a team's rollups for the days (in its time zone) that [from, to) touches, and
 * the UTC hours they span, from the usage events: idempotent. New events wait for it
 * (usage_events is locked against writes, and other rebuilds, while it runs) so none is
 * counted twice or lost.
 */
export async function recomputeRollups(db: Kysely<Database>, scope: { teamId: string; from: Date; to: Date }): Promise<void> {
  if (scope.to <= scope.from) return;
  await db.transaction().execute(async (trx) => {
    await sql`lock table usage_events in share row exclusive mode`.execute(trx);
    const window = await windowOf(trx, scope.teamId, scope.from, scope.to);
    if (window === undefined) return;
    for (const [grain, start, end] of [
      ['hour', window.hourStart, window.hourEnd],
      ['day', window.dayStart, window.dayEnd],
    ] as const) {
      await trx
        .deleteFrom('usage_rollups')
        .where('team_id', '=', scope.teamId)
        .where('grain', '=', grain)
        .where('bucket_start', '>=', start)
        .where('bucket_start', '<', end)
        .execute();
      const inWindow = sql`events.team_id = ${scope.teamId} and events.occurred_at >= ${start} and events.occurred_at < ${end}`;
      await sql`insert into usage_rollups (${COLUMNS}) ${rollupRowsOfEvents(grain, inWindow)}`.execute(trx);
    }
  });
}

/** A rollup cell that disagrees with the events it sums. */
export interface RollupDifference {
  teamId: string;
  grain: Grain;
  bucketStart: Date;
}

/**
 * Compares every rollup cell whose bucket starts in [from, to) with the events' sums (a
 * cell missing on either side counts), rebuilds the days of each team that differ, and
 * returns what differed.
 */
export async function reconcileRollups(db: Kysely<Database>, window: { from: Date; to: Date }): Promise<RollupDifference[]> {
  const cellColumns = sql.join(['team_id', 'grain', 'bucket_start', ...DIMENSIONS, ...MEASURES].map((column) => sql.ref(column)));
  const fromEvents = (grain: Grain) =>
    rollupRowsOfEvents(grain, sql`events.occurred_at >= ${window.from}::timestamptz - interval '1 day' and events.occurred_at < ${window.to}::timestamptz + interval '1 day'`);
  const { rows } = await sql<{ team_id: string; grain: Grain; bucket_start: Date }>`
    with expected (${cellColumns}) as (${fromEvents('hour')} union all ${fromEvents('day')}),
    expected_in_window as (select * from expected where bucket_start >= ${window.from} and bucket_start < ${window.to}),
    stored as (select ${cellColumns} from usage_rollups where bucket_start >= ${window.from} and bucket_start < ${window.to}),
    differing as ((select * from expected_in_window except all select * from stored) union all (select * from stored except all select * from expected_in_window))
    select distinct team_id, grain, bucket_start from differing order by team_id, bucket_start`.execute(db);
  const differences = rows.map((row) => ({ teamId: row.team_id, grain: row.grain, bucketStart: new Date(row.bucket_start) }));
  const byTeam = new Map<string, { from: Date; to: Date }>();
  for (const { teamId, bucketStart } of differences) {
    const span = byTeam.get(teamId);
    const end = new Date(bucketStart.getTime() + HOUR_MS);
    if (span === undefined) byTeam.set(teamId, { from: bucketStart, to: end });
    else {
      if (bucketStart < span.from) span.from = bucketStart;
      if (end > span.to) span.to = end;
    }
  }
  for (const [teamId, span] of byTeam) await recomputeRollups(db, { teamId, ...span });
  return differences;
}

/** Which rollup cells a usage read sums: the usage filter's, of one grain. */
export interface RollupFilter extends UsageFilter {
  grain: Grain;
}

/** The sums of some rollup cells; money in micro-units, counts and tokens exact. */
export interface RollupSums {
  requests: bigint;
  errors: bigint;
  estimatedRequests: bigint;
  unpricedRequests: bigint;
  inputTokens: bigint;
  cachedReadTokens: bigint;
  cacheWriteTokens: bigint;
  outputTokens: bigint;
  reasoningTokens: bigint;
  costMicros: bigint;
  billedMicros: bigint;
  budgetSpendMicros: bigint;
  latencySumMs: bigint;
  latencyMaxMs: number;
  latencyHistogram: number[];
}

/** The histograms of many cells added bucket by bucket. */
const HISTOGRAM_SUMS = sql.join(
  Array.from({ length: LATENCY_BUCKETS }, (_, index) => sql`coalesce(sum(latency_histogram[${sql.lit(index + 1)}]), 0)`),
);

const SUMS = sql`
  coalesce(sum(requests), 0) as requests, coalesce(sum(errors), 0) as errors,
  coalesce(sum(estimated_requests), 0) as estimated_requests, coalesce(sum(unpriced_requests), 0) as unpriced_requests,
  coalesce(sum(input_tokens), 0) as input_tokens, coalesce(sum(cached_read_tokens), 0) as cached_read_tokens,
  coalesce(sum(cache_write_5m_tokens + cache_write_1h_tokens), 0) as cache_write_tokens,
  coalesce(sum(output_tokens), 0) as output_tokens, coalesce(sum(reasoning_tokens), 0) as reasoning_tokens,
  coalesce(sum(cost_micros), 0) as cost_micros, coalesce(sum(billed_micros), 0) as billed_micros,
  coalesce(sum(budget_spend_micros), 0) as budget_spend_micros,
  coalesce(sum(latency_sum_ms), 0) as latency_sum_ms, coalesce(max(latency_max_ms), 0) as latency_max_ms,
  array[${HISTOGRAM_SUMS}]::bigint[] as latency_histogram`;

interface SumsRow {
  requests: string;
  errors: string;
  estimated_requests: string;
  unpriced_requests: string;
  input_tokens: string;
  cached_read_tokens: string;
  cache_write_tokens: string;
  output_tokens: string;
  reasoning_tokens: string;
  cost_micros: string;
  billed_micros: string;
  budget_spend_micros: string;
  latency_sum_ms: string;
  latency_max_ms: number | string;
  latency_histogram: (string | number)[] | null;
}

function toSums(row: SumsRow): RollupSums {
  return {
    requests: BigInt(row.requests),
    errors: BigInt(row.errors),
    estimatedRequests: BigInt(row.estimated_requests),
    unpricedRequests: BigInt(row.unpriced_requests),
    inputTokens: BigInt(row.input_tokens),
    cachedReadTokens: BigInt(row.cached_read_tokens),
    cacheWriteTokens: BigInt(row.cache_write_tokens),
    outputTokens: BigInt(row.output_tokens),
    reasoningTokens: BigInt(row.reasoning_tokens),
    costMicros: BigInt(row.cost_micros),
    billedMicros: BigInt(row.billed_micros),
    budgetSpendMicros: BigInt(row.budget_spend_micros),
    latencySumMs: BigInt(row.latency_sum_ms),
    latencyMaxMs: Number(row.latency_max_ms),
    latencyHistogram: (row.latency_histogram ?? []).map(Number),
  };
}

function matching(filter: RollupFilter): RawBuilder<unknown> {
  return sql`${usageConditions(filter, 'usage_rollups', 'bucket_start')} and usage_rollups.grain = ${filter.grain}`;
}

/** The sums of the matching cells. */
export async function sumRollups(db: Kysely<Database>, filter: RollupFilter): Promise<RollupSums> {
  const { rows } = await sql<SumsRow>`select ${SUMS} from usage_rollups where ${matching(filter)}`.execute(db);
  return toSums(rows[0]!);
}

/** The sums per bucket (hour or day start) of the matching cells, buckets with none left out. */
export async function rollupSeries(db: Kysely<Database>, filter: RollupFilter): Promise<{ bucketStart: Date; sums: RollupSums }[]> {
  const { rows } = await sql<SumsRow & { bucket_start: Date | string }>`
    select bucket_start, ${SUMS} from usage_rollups where ${matching(filter)} group by bucket_start order by bucket_start`.execute(db);
  return rows.map((row) => ({ bucketStart: new Date(row.bucket_start), sums: toSums(row) }));
}

/** What a distribution groups the matching cells by. */
export const ROLLUP_DIMENSIONS = { model: 'model', provider: 'provider', key: 'key_id', group: 'group_id', connection: 'connection_id' } as const;
export type RollupDimension = keyof typeof ROLLUP_DIMENSIONS;

/** The sums per value of one dimension (null: no connection, the operator's), most budget spend first. */
export async function rollupDistribution(
  db: Kysely<Database>,
  filter: RollupFilter,
  by: RollupDimension,
): Promise<{ value: string | null; sums: RollupSums }[]> {
  const column = sql.ref(ROLLUP_DIMENSIONS[by]);
  const { rows } = await sql<SumsRow & { value: string | null }>`
    select ${column}::text as value, ${SUMS} from usage_rollups where ${matching(filter)}
    group by ${column} order by coalesce(sum(budget_spend_micros), 0) desc, coalesce(sum(requests), 0) desc, 1`.execute(db);
  return rows.map((row) => ({ value: row.value, sums: toSums(row) }));
}

/** The measures of many cells of one day merged into one cell: sums, the maximum, histograms added bucket by bucket. */
const MERGED_MEASURES = sql.join([...SUMMED_MEASURES.map((column) => sql`sum(${sql.ref(column)})`), sql`max(latency_max_ms)`, sql`array[${HISTOGRAM_SUMS}]::bigint[]`]);

/** Local days a rollup-rebuild job regroups in one transaction (usage_events is locked against writes while it runs). */
export const REBUILD_DAYS_PER_RUN = 7;

/**
 * After a team's time zone changed (in `db`'s transaction), asks for its daily rollups to
 * be regrouped on the new zone's midnights: from its first local day with usage to
 * today. Answers what the rollup-rebuild job needs, or undefined when the team has no usage.
 */
export async function requestRollupRebuild(db: Db, teamId: string, at: Date): Promise<{ requestedAt: Date } | undefined> {
  const { rows } = await sql<{ time_zone: string; first_day: string | null; days: number | null }>`
    select teams.time_zone,
      (min(date_trunc('day', hours.bucket_start, teams.time_zone)) at time zone teams.time_zone)::date::text as first_day,
      ((max(date_trunc('day', hours.bucket_start, teams.time_zone)) at time zone teams.time_zone)::date
        - (min(date_trunc('day', hours.bucket_start, teams.time_zone)) at time zone teams.time_zone)::date + 1) as days
    from teams left join usage_rollups as hours on hours.team_id = teams.id and hours.grain = 'hour'
    where teams.id = ${teamId} group by teams.time_zone`.execute(db);
  const team = rows[0];
  if (team?.first_day == null || team.days == null) {
    await db.deleteFrom('rollup_rebuilds').where('team_id', '=', teamId).execute();
    return undefined;
  }
  const rebuild = { time_zone: team.time_zone, first_day: team.first_day, days: Number(team.days), days_rebuilt: 0, requested_at: at, rebuilt_at: null };
  await db
    .insertInto('rollup_rebuilds')
    .values({ team_id: teamId, ...rebuild })
    .onConflict((conflict) => conflict.column('team_id').doUpdateSet(rebuild))
    .execute();
  return { requestedAt: at };
}

/** Rebuilds not finished (under way, or left by a restart). */
export async function unfinishedRollupRebuilds(db: Kysely<Database>) {
  return db.selectFrom('rollup_rebuilds').select(['team_id', 'requested_at', 'days_rebuilt']).where('rebuilt_at', 'is', null).orderBy('team_id').execute();
}

/** How far a team's rebuild has got. */
export interface RollupRebuildProgress {
  timeZone: string;
  days: number;
  daysRebuilt: number;
  requestedAt: Date;
  rebuiltAt: Date | null;
}

export async function findRollupRebuild(db: Db, teamId: string): Promise<RollupRebuildProgress | undefined> {
  const row = await db.selectFrom('rollup_rebuilds').selectAll().where('team_id', '=', teamId).executeTakeFirst();
  return row && { timeZone: row.time_zone, days: row.days, daysRebuilt: row.days_rebuilt, requestedAt: new Date(row.requested_at), rebuiltAt: row.rebuilt_at && new Date(row.rebuilt_at) };
}

/**
 * Regroups the next REBUILD_DAYS_PER_RUN local days of a team's rebuild on its time
 * zone's midnights, in one transaction with its progress, and answers the progress
 * (undefined when there is nothing left to do). Idempotent: a run repeated after its
 * commit moves on to the next days.
 *
 * The day cells are made from the hour cells (UTC hours, kept past the events'
 * retention): a day of a whole-hour zone (DST included) is exactly its hours. In a zone
 * whose midnight falls inside a UTC hour (India, Nepal, …) that hour is split between two
 * days from its usage events when they all remain (their count is the hour's requests);
 * past the events' retention the hour counts whole on the day it starts in. Totals never
 * change. Day cells are deleted by where they start and hours regrouped by the day they
 * fall in, the first run taking everything before its days and the last everything
 * after, so each cell of the old zone goes and each hour counts once. New events wait
 * while a run holds the lock; recorded after the change, they are on the new midnights.
 */
export async function rebuildNextRollupDays(db: Kysely<Database>, teamId: string): Promise<RollupRebuildProgress | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`lock table usage_events in share row exclusive mode`.execute(trx);
    const rebuild = await trx.selectFrom('rollup_rebuilds').selectAll().where('team_id', '=', teamId).forUpdate().executeTakeFirst();
    if (rebuild === undefined || rebuild.rebuilt_at !== null) return undefined;
    const zone = rebuild.time_zone;
    const until = Math.min(rebuild.days, rebuild.days_rebuilt + REBUILD_DAYS_PER_RUN);
    const dayStart = (day: number) => sql`((${rebuild.first_day}::date + ${day}::integer)::timestamp at time zone ${zone})`;
    const from = rebuild.days_rebuilt === 0 ? undefined : dayStart(rebuild.days_rebuilt);
    const to = until === rebuild.days ? undefined : dayStart(until);
    const within = (at: RawBuilder<unknown>) => sql<boolean>`${from === undefined ? sql`true` : sql`${at} >= ${from}`} and ${to === undefined ? sql`true` : sql`${at} < ${to}`}`;
    const dayOf = (at: RawBuilder<unknown>) => sql`date_trunc('day', ${at}, ${zone})`;

    await trx.deleteFrom('usage_rollups').where('team_id', '=', teamId).where('grain', '=', 'day').where(within(sql.ref('bucket_start'))).execute();
    const hourEnd = sql`bucket_start + interval '1 hour' - interval '1 microsecond'`;
    await sql`
      with split_hours as (
        select bucket_start as hour from usage_rollups
        where team_id = ${teamId} and grain = 'hour' and ${dayOf(sql.ref('bucket_start'))} <> ${dayOf(hourEnd)}
          and (${within(dayOf(sql.ref('bucket_start')))} or ${within(dayOf(hourEnd))})
        group by bucket_start
        having sum(requests) = (select count(*) from usage_events as events
          where events.team_id = ${teamId} and events.occurred_at >= bucket_start and events.occurred_at < bucket_start + interval '1 hour')
      ),
      cells (${COLUMNS}) as (
        select team_id, 'day', ${dayOf(sql.ref('bucket_start'))}, ${GROUP_DIMENSIONS}, ${sql.join(MEASURES.map((column) => sql.ref(column)))}
        from usage_rollups
        where team_id = ${teamId} and grain = 'hour' and ${within(dayOf(sql.ref('bucket_start')))}
          and bucket_start not in (select hour from split_hours)
        union all
        ${rollupRowsOfEvents(
          'day',
          sql`events.team_id = ${teamId} and date_trunc('hour', events.occurred_at, 'UTC') in (select hour from split_hours)
            and ${within(dayOf(sql.ref('events.occurred_at')))}`,
        )}
      )
      insert into usage_rollups (${COLUMNS})
      select team_id, 'day', bucket_start, ${GROUP_DIMENSIONS}, ${MERGED_MEASURES}
      from cells group by team_id, bucket_start, ${GROUP_DIMENSIONS}`.execute(trx);

    const rebuiltAt = until === rebuild.days ? new Date() : null;
    await trx.updateTable('rollup_rebuilds').set({ days_rebuilt: until, rebuilt_at: rebuiltAt }).where('team_id', '=', teamId).execute();
    return { timeZone: zone, days: rebuild.days, daysRebuilt: until, requestedAt: new Date(rebuild.requested_at), rebuiltAt };
  });
}
