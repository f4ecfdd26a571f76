// AI advisor queries: a team's optimisation tips (spec §7's optimization tips list) and its wording setting.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { AdvisorInsights, AdvisorWordingSetting } from './types.ts';

export const advisorKeys = {
  all: ['advisor'] as const,
  team: (teamId: string) => [...advisorKeys.all, teamId] as const,
  wording: (teamId: string) => [...advisorKeys.all, teamId, 'wording'] as const,
};

export const FETCH_WORDING_FAILED = 'Failed to fetch the advisor wording setting';

export const advisorWordingQuery = (teamId: string) =>
  queryOptions({
    queryKey: advisorKeys.wording(teamId),
    queryFn: ({ signal }) => apiData<AdvisorWordingSetting>('GET', `/usage/ai-advisor/wording/${teamId}`, { signal, fallback: FETCH_WORDING_FAILED }),
  });

/** Spec §8's usage fallback for the tips list. */
export const FETCH_TIPS_FAILED = 'Failed to fetch optimization tips';

export const advisorInsightsQuery = (teamId: string) =>
  queryOptions({
    queryKey: advisorKeys.team(teamId),
    queryFn: ({ signal }) => apiData<AdvisorInsights>('GET', '/usage/ai-advisor', { signal, query: { teamId }, fallback: FETCH_TIPS_FAILED }),
  });
