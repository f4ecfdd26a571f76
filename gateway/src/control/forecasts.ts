// Forecasts of daily spend: the spec's call (a caller's own daily costs forecast on the
// spot) and the forecasts the worker stores for each team and group (worker/src/jobs/forecast.ts).
// The forecaster (core/src/forecast) runs in slices with a turn of the event loop between
// them, so a three-year series never holds a request that arrives meanwhile.

import { forecastSteps, localDay, NotFoundError, type SeriesForecast, sliced, ValidationError } from '@spendgate/core';
import { type JobPayloads, type JobQueue, readBacktest, readForecast, type SqlStore } from '@spendgate/store';
import type { Access } from './access.ts';

/** Daily spend's seasonal candidate: the week (detected, not assumed). */
export const DAILY_SEASONS = [7] as const;
export const FORECAST_LIMITS = { historyDays: 1096, daysToForecast: 366 } as const;

const DAY_MS = 86_400_000;
const dayNumber = (isoDate: string) => Date.parse(`${isoDate}T00:00:00Z`) / DAY_MS;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** Amounts to six decimals: the micro-unit every amount in Spendgate is counted in. */
const toMicroUnit = (value: number) => Math.round(value * 1e6) / 1e6;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface DailyCost {
  date: string;
  cost: number;
}

export interface DailyForecast {
  method: string;
  fallback: boolean;
  seasonality: number[];
  forecast: { date: string; cost: number; lower80: number; upper80: number; lower95: number; upper95: number }[];
}

/** A series forecast with a turn of the event loop between slices. */
export function forecastInSlices(values: readonly number[], horizon: number): Promise<SeriesForecast> {
  return sliced(forecastSteps({ values, horizon, seasonalCandidates: DAILY_SEASONS }), nextTurn);
}

/**
 * The next `daysToForecast` days after the last date of `history` (dates ascending, no
 * repeats — the route checks); a day missing between two dates is a day with no spend.
 */
export async function forecastDailyCosts(history: readonly DailyCost[], daysToForecast: number): Promise<DailyForecast> {
  const first = dayNumber((history[0] as DailyCost).date);
  const last = dayNumber((history[history.length - 1] as DailyCost).date);
  const values = new Array<number>(last - first + 1).fill(0);
  for (const { date, cost } of history) values[dayNumber(date) - first] = cost;
  const result = await forecastInSlices(values, daysToForecast);
  return {
    method: result.method,
    fallback: result.fallback,
    seasonality: result.periods,
    forecast: result.point.map((cost, h) => ({
      date: isoDay(last + 1 + h),
      cost: toMicroUnit(cost),
      lower80: toMicroUnit(result.lower80[h] as number),
      upper80: toMicroUnit(result.upper80[h] as number),
      lower95: toMicroUnit(result.lower95[h] as number),
      upper95: toMicroUnit(result.upper95[h] as number),
    })),
  };
}

/** yyyy-mm of a day. */
const periodOf = (day: string) => day.slice(0, 7);

/**
 * The stored forecasts: a team's (its admins) or a group's (who may see the group) month —
 * the forecast, month-end projection, the month budget if one is set, and the backtest.
 * Asked for this month before the scheduled job has forecast it (a new team, a server
 * just started), it asks the worker for the team's forecast now (at most once an hour) —
 * but not while a demo team's sample is still being recorded: its last day asks for it.
 */
export function createForecastService(deps: { sql: SqlStore; access: Access; queue: JobQueue<JobPayloads>; now?: () => Date }) {
  const { db } = deps.sql;
  return {
    async stored(userId: string, query: { teamId?: string | undefined; groupId?: string | undefined; period?: string | undefined }) {
      let teamId = query.teamId;
      if (query.groupId !== undefined) {
        const group = await deps.access.group(query.groupId, userId, 'group.view');
        if (teamId !== undefined && teamId !== group.team_id) throw new NotFoundError('Synthetic group');
        teamId = group.team_id;
      } else if (teamId !== undefined) {
        await deps.access.team(teamId, userId, 'team.usage.view');
      } else {
        throw new ValidationError('teamId', 'teamId or groupId is required');
      }
      const team = await db
        .selectFrom('teams')
        .leftJoin('demo_fills', 'demo_fills.team_id', 'teams.id')
        .select(['teams.time_zone', 'demo_fills.team_id as demo_team_id', 'demo_fills.filled_at'])
        .where('teams.id', '=', teamId)
        .executeTakeFirstOrThrow();
      const sampleBeingRecorded = team.demo_team_id !== null && team.filled_at === null;
      const now = deps.now?.() ?? new Date();
      const thisMonth = periodOf(localDay(now, team.time_zone));
      const period = query.period ?? thisMonth;
      const scopeId = query.groupId ?? teamId;
      // The forecasts the worker made, from a read replica when there is one; the budget below is read fresh.
      const reader = await deps.sql.readDb(userId);
      const forecast = await readForecast(reader, scopeId, period);
      if (forecast === null && period === thisMonth && !sampleBeingRecorded) {
        await deps.queue.enqueue('forecast', { teamId }, { jobId: `forecast-${teamId}-${now.toISOString().slice(0, 13)}` });
      }
      const backtest = await readBacktest(reader, scopeId);
      const budget = await db
        .selectFrom('budgets')
        .select(['id', 'amount_micros', 'mode'])
        .where('team_id', '=', teamId)
        .where('scope', '=', query.groupId ? 'group' : 'team')
        .where('scope_id', '=', scopeId)
        .where('window', '=', 'month')
        .orderBy('amount_micros')
        .executeTakeFirst();
      return {
        teamId,
        groupId: query.groupId ?? null,
        period,
        timeZone: team.time_zone,
        forecast: forecast && {
          madeAt: forecast.madeAt.toISOString(),
          method: forecast.method,
          fallback: forecast.fallback,
          actualMicros: forecast.actualMicros.toString(),
          projectedMicros: forecast.projectedMicros.toString(),
          lower80Micros: forecast.lower80Micros.toString(),
          upper80Micros: forecast.upper80Micros.toString(),
          lower95Micros: forecast.lower95Micros.toString(),
          upper95Micros: forecast.upper95Micros.toString(),
          days: forecast.days,
        },
        budget: budget ? { id: budget.id, amountMicros: BigInt(budget.amount_micros).toString(), mode: budget.mode } : null,
        backtest: backtest && {
          madeAt: backtest.made_at.toISOString(),
          weeks: backtest.weeks,
          days: backtest.days,
          mase: backtest.mase,
          coverage80: backtest.coverage80,
          coverage95: backtest.coverage95,
          wape: backtest.wape,
        },
      };
    },
  };
}

export type ForecastService = ReturnType<typeof createForecastService>;
