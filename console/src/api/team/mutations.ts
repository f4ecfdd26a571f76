/**
 * Team mutations (spec §7 Teams) and their cache transitions (spec §4): creating a team
 * or accepting an invitation adds the team to the list if it is not there yet; changing
 * a role replaces the matching member; removing a member drops them from the list. Each
 * action is its own mutation, so each has its own loading flag (`isPending`).
 */
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { readUser, saveSession } from '../../shared/session.ts';
import { apiData } from '../client.ts';
import { invitationPreviewQuery, teamKeys } from './queries.ts';
import type {
  NewTeam,
  Removal,
  RoleChange,
  Team,
  TeamAccept,
  TeamInvitation,
  TeamInvitationAccepted,
  TeamInvite,
  TeamMember,
  TeamMemberRemoved,
} from './types.ts';

/** The mutations' keys: a screen finds the pending ones (useMutationState) to show each member's own flag. */
export const teamMutationKeys = {
  create: ['team', 'create'],
  invite: ['team', 'invite'],
  accept: ['team', 'accept'],
  role: ['team', 'role'],
  remove: ['team', 'remove'],
  resend: ['team', 'resend-invitation'],
  revoke: ['team', 'revoke-invitation'],
} as const;

/** Adds `team` to the cached list of the user's teams unless it is listed already. */
function listTeam(queryClient: QueryClient, team: Team): void {
  queryClient.setQueryData<Team[]>(teamKeys.mine(), (teams) => (teams === undefined ? teams : teams.some((listed) => listed.id === team.id) ? teams : [...teams, team]));
}

export const createTeamMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.create,
    mutationFn: (team: NewTeam) => apiData<Team>('POST', '/team/', { body: team, fallback: 'Failed to create team' }),
    onSuccess: (team) => listTeam(queryClient, team),
  });

/** An invitation holds a seat until it is accepted, revoked or expires: the seats and the pending list are fetched again. */
function invitationsChanged(queryClient: QueryClient, teamId: string) {
  void queryClient.invalidateQueries({ queryKey: teamKeys.seats(teamId) });
  void queryClient.invalidateQueries({ queryKey: teamKeys.invitations(teamId) });
}

export const inviteMemberMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.invite,
    mutationFn: (invite: TeamInvite) => apiData<TeamInvitation>('POST', '/team/invite', { body: invite, fallback: 'Failed to invite team member' }),
    onSuccess: (invitation) => invitationsChanged(queryClient, invitation.teamId),
  });

/** Mails a pending invitation again, with a new link (the old one stops working). */
export const resendInvitationMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.resend,
    mutationFn: (invitation: Pick<TeamInvitation, 'id' | 'teamId'>) =>
      apiData<TeamInvitation>('POST', `/team/invitations/${invitation.id}/resend`, { fallback: 'Failed to resend invitation' }),
    onSuccess: (invitation) => invitationsChanged(queryClient, invitation.teamId),
  });

/** Withdraws a pending invitation: it leaves the list and its seat is free. */
export const revokeInvitationMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.revoke,
    mutationFn: (invitation: Pick<TeamInvitation, 'id' | 'teamId'>) =>
      apiData<TeamInvitation>('DELETE', `/team/invitations/${invitation.id}/revoke`, { fallback: 'Failed to revoke invitation' }),
    onSuccess: (revoked) => {
      queryClient.setQueryData<TeamInvitation[]>(teamKeys.invitations(revoked.teamId), (pending) => pending?.filter((listed) => listed.id !== revoked.id));
      void queryClient.invalidateQueries({ queryKey: teamKeys.seats(revoked.teamId) });
    },
  });

/**
 * After an accepted invitation: the answer is the invited account's session, which
 * replaces any other (the invitation is for that account; another account's cached
 * answers are dropped), and the team joins the list.
 */
function startAcceptedSession(queryClient: QueryClient, accepted: TeamInvitationAccepted): void {
  if (readUser()?.id !== accepted.user.id) queryClient.clear();
  saveSession(accepted.token, accepted.user);
  listTeam(queryClient, accepted.team);
}

const accept = (input: TeamAccept) => apiData<TeamInvitationAccepted>('POST', '/team/accept', { body: input, fallback: 'Failed to accept team invitation' });

/** Accepts a team invitation from its e-mailed link (register or login with ?invite=). */
export const acceptTeamInviteMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.accept,
    mutationFn: accept,
    onSuccess: (accepted) => startAcceptedSession(queryClient, accepted),
  });

/**
 * A signed-in user joins a team with an invitation's link: only one meant for their own
 * e-mail (accepting another's would sign in as that account), checked before accepting.
 */
export const joinTeamMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.accept,
    mutationFn: async (input: { token: string; password: string }) => {
      const invitation = await queryClient.fetchQuery(invitationPreviewQuery(input.token));
      const email = readUser()?.email?.toLowerCase();
      if (email !== undefined && invitation.email !== email) {
        throw new Error(`This invitation is for ${invitation.email}. Log out, then open its link to join as that account.`);
      }
      return accept(input);
    },
    onSuccess: (accepted) => startAcceptedSession(queryClient, accepted),
  });

export const changeRoleMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.role,
    mutationFn: (change: RoleChange) => apiData<TeamMember>('PATCH', '/team/role', { body: change, fallback: 'Failed to update team member role' }),
    onSuccess: (member, change) =>
      queryClient.setQueryData<TeamMember[]>(teamKeys.members(change.teamId), (members) => members?.map((listed) => (listed.id === member.id ? member : listed))),
  });

export const removeMemberMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.remove,
    mutationFn: (removal: Removal) => apiData<TeamMemberRemoved>('DELETE', '/team/member', { body: removal, fallback: 'Failed to remove team member' }),
    onSuccess: (removed) => {
      queryClient.setQueryData<TeamMember[]>(teamKeys.members(removed.teamId), (members) => members?.filter((listed) => listed.id !== removed.userId));
      // Their seat is free again.
      void queryClient.invalidateQueries({ queryKey: teamKeys.seats(removed.teamId) });
    },
  });
