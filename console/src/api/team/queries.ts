// Team queries: the signed-in user's teams (GET /team/), shared by every screen that
// needs the team a connection, group or key belongs to.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { Team } from './types.ts';

export const teamKeys = {
  all: ['team'] as const,
  mine: () => [...teamKeys.all, 'mine'] as const,
};

export const myTeamsQuery = () =>
  queryOptions({
    queryKey: teamKeys.mine(),
    queryFn: ({ signal }) => apiData<Team[]>('GET', '/team/', { signal, fallback: 'Failed to get user teams' }),
  });
