// The team overview query (GET /usage/team?teamId=).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { TeamOverview } from './types.ts';

export const overviewKeys = {
  all: ['overview'] as const,
  team: (teamId: string) => [...overviewKeys.all, teamId] as const,
};

/**
 * `pollMs`: refetch that often (false: only on demand). The overview polls while the
 * team's setup is incomplete, so the first metered request shows without a reload.
 */
export const teamOverviewQuery = (teamId: string, pollMs: number | false = false) =>
  queryOptions({
    queryKey: overviewKeys.team(teamId),
    queryFn: ({ signal }) => apiData<TeamOverview>('GET', '/usage/team', { signal, query: { teamId }, fallback: 'Failed to fetch usage' }),
    refetchInterval: pollMs,
  });
