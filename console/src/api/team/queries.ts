// Team queries: the signed-in user's teams (GET /team/), shared by every screen that
// needs the team a connection, group or key belongs to; a team's members, seats and
// pending invitations; what an invitation's token opens.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { Team, TeamInvitation, TeamInvitationPreview, TeamMember, TeamSeats } from './types.ts';

export const teamKeys = {
  all: ['team'] as const,
  mine: () => [...teamKeys.all, 'mine'] as const,
  members: (teamId: string) => [...teamKeys.all, teamId, 'members'] as const,
  invitation: (token: string) => [...teamKeys.all, 'invitation', token] as const,
  seats: (teamId: string) => [...teamKeys.all, teamId, 'seats'] as const,
  invitations: (teamId: string) => [...teamKeys.all, teamId, 'invitations'] as const,
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

export const teamSeatsQuery = (teamId: string) =>
  queryOptions({
    queryKey: teamKeys.seats(teamId),
    queryFn: ({ signal }) => apiData<TeamSeats>('GET', `/team/${teamId}/seats`, { signal, fallback: 'Failed to get team members' }),
  });

/** The team's invitations waiting for an answer (team admins). */
export const pendingInvitationsQuery = (teamId: string) =>
  queryOptions({
    queryKey: teamKeys.invitations(teamId),
    queryFn: ({ signal }) => apiData<TeamInvitation[]>('GET', `/team/${teamId}/invitations`, { signal, fallback: 'Failed to fetch invitations' }),
  });

/** The invitation a token opens (public: the token is the proof). A bad token is not retried. */
export const invitationPreviewQuery = (token: string) =>
  queryOptions({
    queryKey: teamKeys.invitation(token),
    queryFn: ({ signal }) => apiData<TeamInvitationPreview>('POST', '/team/invitation', { body: { token }, signal, fallback: 'Failed to accept team invitation' }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
