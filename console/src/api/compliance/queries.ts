// Compliance readiness reads: a team's retention settings (team admins).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { TeamRetention } from './types.ts';

export const complianceKeys = {
  retention: (teamId: string) => ['compliance', teamId, 'retention'] as const,
};

export const retentionQuery = (teamId: string) =>
  queryOptions({
    queryKey: complianceKeys.retention(teamId),
    queryFn: ({ signal }) => apiData<TeamRetention>('GET', `/teams/${teamId}/retention`, { signal, fallback: 'Failed to get the retention settings' }),
  });
