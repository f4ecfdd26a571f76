// The stored forecast of a team's or group's month (GET /usage/cost/forecast), tracked per
// period (spec §4), with the spec's fallback message 'Failed to fetch forecast'; asked for
// again soon while there is none yet, hourly once there is.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { StoredForecast } from './types.ts';

export const FORECAST_FAILED = 'Failed to fetch forecast';
/** The worker forecasts every 6 hours: a tab left open picks the new one up within the hour. */
export const FORECAST_POLL_MS = 3_600_000;
/**
 * While a scope has no forecast (the first is being made, asked for by this very read, or
 * a demo team's sample is still landing) the panel asks again soon: 2 s after, each wait
 * half as long again up to 30 s, for at most FIRST_FORECAST_POLLS answers (about 7.5
 * minutes); then hourly.
 */
export const FIRST_FORECAST_POLL_MS = 2_000;
const FIRST_FORECAST_MAX_POLL_MS = 30_000;
export const FIRST_FORECAST_POLLS = 20;

/** How long until the next ask, after `answers` answers of which `last` is the latest (undefined: none, or a failure). */
export function forecastPollMs(last: StoredForecast | undefined, answers: number): number {
  if (last === undefined || last.forecast !== null || answers >= FIRST_FORECAST_POLLS) return FORECAST_POLL_MS;
  return Math.min(Math.round(FIRST_FORECAST_POLL_MS * 1.5 ** Math.max(0, answers - 1)), FIRST_FORECAST_MAX_POLL_MS);
}

export interface ForecastScope {
  teamId: string;
  groupId?: string | undefined;
  /** yyyy-mm; this month when left out. */
  period?: string | undefined;
}

export const forecastKeys = {
  all: ['forecast'] as const,
  period: (scope: ForecastScope) => [...forecastKeys.all, scope.groupId ?? scope.teamId, scope.period ?? 'this-month'] as const,
};

export const storedForecastQuery = (scope: ForecastScope) =>
  queryOptions({
    queryKey: forecastKeys.period(scope),
    queryFn: ({ signal }) =>
      apiData<StoredForecast>('GET', '/usage/cost/forecast', {
        signal,
        query: { ...(scope.groupId ? { groupId: scope.groupId } : { teamId: scope.teamId }), ...(scope.period ? { period: scope.period } : {}) },
        fallback: FORECAST_FAILED,
      }),
    refetchInterval: ({ state }) => forecastPollMs(state.data, state.dataUpdateCount),
  });
