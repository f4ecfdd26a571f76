// Forecasts of daily spend: the spec's call (a caller's own daily costs forecast on the
// spot) and, later in this file, the forecasts the worker stores for each team and group.
// The forecaster (core/src/forecast) runs in slices with a turn of the event loop between
// them, so a three-year series never holds a request that arrives meanwhile.

import { forecastSteps, type SeriesForecast, sliced } from '@spendgate/core';

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
