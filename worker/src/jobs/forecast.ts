// forecast: each team's and group's daily spend (GBP budget spend from the daily rollups,
// in the team's calendar days) forecast for the rest of this month and next month, with
// the month-end projections and the scope's rolling-origin backtest over its last 8
// weeks, stored for the overview. The forecaster runs in slices with a turn of the event
// loop between them (the worker shares its process with the gateway when embedded).
import { addDays, backtestSteps, forecastSteps, localDay, localDayStart, projectionHorizon, projectMonths, sliced } from '@spendgate/core';
import { firstSpendDay, forecastScopes, type Logger, saveBacktest, saveForecast, type SqlStore, spendSeriesMicros } from '@spendgate/store';

/** History older than this many days is not read: two years hold every weekly pattern worth keeping. */
export const FORECAST_HISTORY_DAYS = 730;
export const BACKTEST_WEEKS = 8;
const DAY_MS = 86_400_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createForecastProcessor(deps: { sql: Pick<SqlStore, 'db'>; log: Logger; now?: () => Date }) {
  const { db } = deps.sql;
  return async (payload: { teamId?: string }): Promise<void> => {
    const now = deps.now?.() ?? new Date();
    let made = 0;
    for (const scope of await forecastScopes(db)) {
      if (payload.teamId !== undefined && scope.teamId !== payload.teamId) continue;
      const today = localDay(now, scope.timeZone);
      const todayStart = localDayStart(today, scope.timeZone);
      const first = await firstSpendDay(db, scope);
      if (first === null || first >= todayStart) continue;
      const earliest = new Date(todayStart.getTime() - FORECAST_HISTORY_DAYS * DAY_MS);
      const from = first > earliest ? first : localDayStart(localDay(earliest, scope.timeZone), scope.timeZone);
      const spend = await spendSeriesMicros(db, { teamId: scope.teamId, groupId: scope.groupId, from, to: todayStart, grain: 'day' });
      const actualByDay = new Map(spend.map((day) => [localDay(day.start, scope.timeZone), day.micros]));
      const values: number[] = [];
      for (let day = localDay(from, scope.timeZone); day < today; day = addDays(day, 1)) {
        values.push(Number(actualByDay.get(day) ?? 0n));
      }
      const forecast = await sliced(forecastSteps({ values, horizon: projectionHorizon(today), seasonalCandidates: [7] }), nextTurn);
      const scopeId = scope.groupId ?? scope.teamId;
      for (const month of projectMonths(today, actualByDay, forecast)) {
        await saveForecast(db, {
          scopeId,
          teamId: scope.teamId,
          groupId: scope.groupId,
          madeAt: now,
          method: forecast.method,
          fallback: forecast.fallback,
          ...month,
          days: month.days.map((day) => ({
            date: day.date,
            actualMicros: day.actualMicros?.toString() ?? null,
            forecastMicros: day.forecastMicros?.toString() ?? null,
            lower80Micros: day.lower80Micros?.toString() ?? null,
            upper80Micros: day.upper80Micros?.toString() ?? null,
            lower95Micros: day.lower95Micros?.toString() ?? null,
            upper95Micros: day.upper95Micros?.toString() ?? null,
          })),
        });
      }
      const backtest = await sliced(backtestSteps(values, BACKTEST_WEEKS), nextTurn);
      if (backtest) {
        await saveBacktest(db, {
          scope_id: scopeId,
          team_id: scope.teamId,
          group_id: scope.groupId,
          made_at: now,
          weeks: backtest.origins,
          days: backtest.points,
          mase: backtest.mase,
          coverage80: backtest.coverage80,
          coverage95: backtest.coverage95,
          wape: backtest.wape,
        });
      }
      made++;
    }
    deps.log.info({ scopes: made }, 'forecast: daily spend forecast for each team and group');
  };
}
