// Team queries: the signed-in user's teams (GET /team/), shared by every screen that
// needs the team a connection, group or key belongs to, and a team's members.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { Team, TeamMember } from './types.ts';

export const teamKeys = {
  all: ['team'] as const,
  mine: () => [...teamKeys.all, 'mine'] as const,
  members: (teamId: string) => [...teamKeys.all, teamId, 'members'] as const,
};

export const myTeamsQuery = () =>
  queryOptions({
    queryKey: teamKeys.mine(),
    queryFn: ({ signal }) => apiData<Team[]>('GET', '/team/', { signal, fallback: 'Failed to get user teams' }),
  });

export const teamMembersQuery = (teamId: string) =>
  queryOptions({
    queryKey: teamKeys.members(teamId),
    queryFn: ({ signal }) => apiData<TeamMember[]>('GET', `/team/members/${teamId}`, { signal, fallback: 'Failed to get team members' }),
  });
