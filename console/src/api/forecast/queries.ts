// The stored forecast of a team's or group's month (GET /usage/cost/forecast), tracked per
// period (spec §4), with the spec's fallback message 'Failed to fetch forecast'.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { StoredForecast } from './types.ts';

export const FORECAST_FAILED = 'Failed to fetch forecast';
/** The worker forecasts every 6 hours: a tab left open picks the new one up within the hour. */
export const FORECAST_POLL_MS = 3_600_000;

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
    refetchInterval: FORECAST_POLL_MS,
  });
