// The overview's usage queries (spec §7, read from the rollups): totals, the spend series,
// this month beside last, distributions and the request log, each with its spec §8
// fallback message. Keys nest under ['usage'] so one prefix refreshes them all; each
// refreshes itself every USAGE_POLL_MS so new requests show without a reload.
import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { DataFreshness, DistributionDimension, Granularity, RequestLogPage, UsageDistribution, UsageFilters, UsageMonthToDate, UsageSeries, UsageTotals } from './types.ts';

export const USAGE_FAILED = 'Failed to fetch usage';
export const COST_FAILED = 'Failed to fetch cost';
export const CHART_FAILED = 'Failed to fetch chart cost data';
export const MONTH_CHART_FAILED = 'Failed to fetch chart cost data for this month';

/**
 * How often the overview's usage refreshes: the meter records a request within 5 s, and
 * each call reads the rollups (tens of milliseconds at 10M events), so a tab open on
 * the overview costs the server little. React Query stops while the tab is hidden.
 */
export const USAGE_POLL_MS = 5_000;

/** The REQUEST_LOG_PAGE the overview asks for. */
export const REQUEST_LOG_LIMIT = 20;

export const usageKeys = {
  all: ['usage'] as const,
  summary: (filters: UsageFilters) => [...usageKeys.all, 'summary', filters] as const,
  series: (filters: UsageFilters, granularity: Granularity) => [...usageKeys.all, 'series', filters, granularity] as const,
  month: (filters: UsageFilters) => [...usageKeys.all, 'month', filters] as const,
  distribution: (filters: UsageFilters, by: DistributionDimension) => [...usageKeys.all, 'distribution', filters, by] as const,
  requests: (filters: UsageFilters) => [...usageKeys.all, 'requests', filters] as const,
  freshness: () => [...usageKeys.all, 'freshness'] as const,
};

const polled = { refetchInterval: USAGE_POLL_MS, placeholderData: keepPreviousData } as const;

export const usageSummaryQuery = (filters: UsageFilters) =>
  queryOptions({
    queryKey: usageKeys.summary(filters),
    queryFn: ({ signal }) => apiData<UsageTotals>('GET', '/usage/group/specific', { signal, query: { ...filters }, fallback: USAGE_FAILED }),
    ...polled,
  });

export const usageSeriesQuery = (filters: UsageFilters, granularity: Granularity) =>
  queryOptions({
    queryKey: usageKeys.series(filters, granularity),
    queryFn: ({ signal }) => apiData<UsageSeries>('GET', '/usage/cost/group', { signal, query: { ...filters, granularity }, fallback: CHART_FAILED }),
    ...polled,
  });

/** This month against last: the calendar's months, so the date range does not apply. */
export const usageMonthQuery = (filters: UsageFilters) =>
  queryOptions({
    queryKey: usageKeys.month(filters),
    queryFn: ({ signal }) => apiData<UsageMonthToDate>('GET', '/usage/cost/group/specific', { signal, query: { ...filters }, fallback: MONTH_CHART_FAILED }),
    ...polled,
  });

export const usageDistributionQuery = (filters: UsageFilters, by: DistributionDimension) =>
  queryOptions({
    queryKey: usageKeys.distribution(filters, by),
    queryFn: ({ signal }) => apiData<UsageDistribution>('GET', '/usage/distribution/group', { signal, query: { ...filters, by }, fallback: COST_FAILED }),
    ...polled,
  });

/** How far behind the figures may be, when they are read from a lagging database replica. */
export const dataFreshnessQuery = () =>
  queryOptions({
    queryKey: usageKeys.freshness(),
    queryFn: ({ signal }) => apiData<DataFreshness>('GET', '/usage/freshness', { signal, fallback: USAGE_FAILED }),
    ...polled,
  });

/** The request log, newest first, a page at a time through the API's keyset cursor; its first page refreshes itself (not once more are open, which would reload them all). */
export const requestLogQuery = (filters: UsageFilters) =>
  infiniteQueryOptions({
    queryKey: usageKeys.requests(filters),
    queryFn: ({ signal, pageParam }) =>
      apiData<RequestLogPage>('GET', '/usage/requests', { signal, query: { ...filters, limit: REQUEST_LOG_LIMIT, cursor: pageParam }, fallback: USAGE_FAILED }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    refetchInterval: (query) => ((query.state.data?.pages.length ?? 1) === 1 ? USAGE_POLL_MS : false),
    placeholderData: keepPreviousData,
  });
