// Stored forecasts of daily spend and their backtests: the worker replaces a scope's rows
// on each run; the control plane reads one scope's month.
import { type Kysely, sql } from 'kysely';
import type { Database, ForecastBacktestsTable, ForecastDayRow } from '../schema.ts';
import { rollupSeries } from './usage-rollups.ts';

export interface ForecastScope {
  teamId: string;
  groupId: string | null;
  timeZone: string;
}

/** Every team and group to forecast, with the team's time zone: not a demo team whose sample is still being recorded (its last days are missing). */
export async function forecastScopes(db: Kysely<Database>): Promise<ForecastScope[]> {
  const teams = await db
    .selectFrom('teams')
    .select(['id', 'time_zone'])
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('demo_fills').select('team_id').whereRef('demo_fills.team_id', '=', 'teams.id').where('filled_at', 'is', null))))
    .orderBy('id')
    .execute();
  const groups = await db.selectFrom('synthetic_groups').select(['id', 'team_id']).orderBy('id').execute();
  const zones = new Map(teams.map((team) => [team.id, team.time_zone]));
  return [
    ...teams.map((team) => ({ teamId: team.id, groupId: null, timeZone: team.time_zone })),
    ...groups.flatMap((group) => {
      const timeZone = zones.get(group.team_id);
      return timeZone === undefined ? [] : [{ teamId: group.team_id, groupId: group.id, timeZone }];
    }),
  ];
}

/** GBP budget spend per team day or UTC hour (the rollups of that grain) in [from, to), buckets without spend left out. */
export async function spendSeriesMicros(db: Kysely<Database>, scope: { teamId: string; groupId: string | null; from: Date; to: Date; grain: 'hour' | 'day' }) {
  const series = await rollupSeries(db, { teamId: scope.teamId, groupId: scope.groupId ?? undefined, from: scope.from, to: scope.to, grain: scope.grain });
  return series.map((bucket) => ({ start: bucket.bucketStart, micros: bucket.sums.budgetSpendMicros }));
}

/** The first day-rollup of a scope, or null when it has none. */
export async function firstSpendDay(db: Kysely<Database>, scope: { teamId: string; groupId: string | null }): Promise<Date | null> {
  let query = db.selectFrom('usage_rollups').select(sql<Date | string | null>`min(bucket_start)`.as('first')).where('team_id', '=', scope.teamId).where('grain', '=', 'day');
  if (scope.groupId !== null) query = query.where('group_id', '=', scope.groupId);
  const row = await query.executeTakeFirst();
  return row?.first == null ? null : new Date(row.first);
}

export interface StoredForecast {
  scopeId: string;
  period: string;
  teamId: string;
  groupId: string | null;
  madeAt: Date;
  method: string;
  fallback: boolean;
  actualMicros: bigint;
  projectedMicros: bigint;
  lower80Micros: bigint;
  upper80Micros: bigint;
  lower95Micros: bigint;
  upper95Micros: bigint;
  days: ForecastDayRow[];
}

export async function saveForecast(db: Kysely<Database>, forecast: StoredForecast): Promise<void> {
  const row = {
    scope_id: forecast.scopeId,
    period: forecast.period,
    team_id: forecast.teamId,
    group_id: forecast.groupId,
    made_at: forecast.madeAt,
    method: forecast.method,
    fallback: forecast.fallback,
    actual_micros: forecast.actualMicros,
    projected_micros: forecast.projectedMicros,
    lower80_micros: forecast.lower80Micros,
    upper80_micros: forecast.upper80Micros,
    lower95_micros: forecast.lower95Micros,
    upper95_micros: forecast.upper95Micros,
    days: JSON.stringify(forecast.days),
  };
  const { scope_id: _scope, period: _period, ...update } = row;
  await db.insertInto('spend_forecasts').values(row).onConflict((c) => c.columns(['scope_id', 'period']).doUpdateSet(update)).execute();
}

export async function readForecast(db: Kysely<Database>, scopeId: string, period: string): Promise<StoredForecast | null> {
  const row = await db.selectFrom('spend_forecasts').selectAll().where('scope_id', '=', scopeId).where('period', '=', period).executeTakeFirst();
  if (!row) return null;
  return {
    scopeId: row.scope_id,
    period: row.period,
    teamId: row.team_id,
    groupId: row.group_id,
    madeAt: new Date(row.made_at),
    method: row.method,
    fallback: row.fallback,
    actualMicros: BigInt(row.actual_micros),
    projectedMicros: BigInt(row.projected_micros),
    lower80Micros: BigInt(row.lower80_micros),
    upper80Micros: BigInt(row.upper80_micros),
    lower95Micros: BigInt(row.lower95_micros),
    upper95Micros: BigInt(row.upper95_micros),
    days: typeof row.days === 'string' ? (JSON.parse(row.days) as ForecastDayRow[]) : row.days,
  };
}

export type StoredBacktest = Omit<ForecastBacktestsTable, 'made_at'> & { made_at: Date };

export async function saveBacktest(db: Kysely<Database>, backtest: StoredBacktest): Promise<void> {
  const { scope_id: _scope, ...update } = backtest;
  await db.insertInto('forecast_backtests').values(backtest).onConflict((c) => c.column('scope_id').doUpdateSet(update)).execute();
}

export async function readBacktest(db: Kysely<Database>, scopeId: string): Promise<StoredBacktest | null> {
  const row = await db.selectFrom('forecast_backtests').selectAll().where('scope_id', '=', scopeId).executeTakeFirst();
  return row ? { ...row, made_at: new Date(row.made_at) } : null;
}
