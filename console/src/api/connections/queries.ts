// Provider and connection queries (spec §7: GET /provider, GET /provider/connections,
// GET /provider/connections/{id}/usage) with their key factory.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { UsageTotals } from '../usage/types.ts';
import type { ListedConnection, Provider } from './types.ts';

/** yyyy-mm-dd, both inclusive; an edge left out is the API's default (the last 30 days up to today). */
export interface DateRange {
  startDate?: string;
  endDate?: string;
}

export const connectionKeys = {
  all: ['connections'] as const,
  providers: () => [...connectionKeys.all, 'providers'] as const,
  list: () => [...connectionKeys.all, 'list'] as const,
  usage: (id: string, range: DateRange) => [...connectionKeys.all, 'usage', id, range] as const,
};

/** What the gateway can call: it changes only with a new release. */
export const providersQuery = () =>
  queryOptions({
    queryKey: connectionKeys.providers(),
    queryFn: ({ signal }) => apiData<Provider[]>('GET', '/provider', { signal, fallback: 'Failed to fetch providers' }),
    staleTime: Number.POSITIVE_INFINITY,
  });

/**
 * The connections of every team the user belongs to, each with this month's requests and
 * cost: figures that move with every request, so the list is fetched again whenever the
 * screen opens (the client's default would keep it a minute).
 */
export const connectionsQuery = () =>
  queryOptions({
    queryKey: connectionKeys.list(),
    queryFn: ({ signal }) => apiData<ListedConnection[]>('GET', '/provider/connections', { signal, fallback: 'Failed to fetch connections' }),
    staleTime: 0,
  });

export const connectionUsageQuery = (id: string, range: DateRange) =>
  queryOptions({
    queryKey: connectionKeys.usage(id, range),
    queryFn: ({ signal }) => apiData<UsageTotals>('GET', `/provider/connections/${id}/usage`, { signal, query: { ...range }, fallback: 'Failed to fetch usage' }),
    staleTime: 0,
  });
