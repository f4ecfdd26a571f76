/**
 * Team mutations (spec §7 Teams) and their cache transitions (spec §4): creating a team
 * or accepting an invitation adds the team to the list if it is not there yet; changing
 * a role replaces the matching member; removing a member drops them from the list. Each
 * action is its own mutation, so each has its own loading flag (`isPending`).
 */
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { readUser, saveSession } from '../../shared/session.ts';
import { apiData } from '../client.ts';
import { teamKeys } from './queries.ts';
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

export const inviteMemberMutation = () =>
  mutationOptions({
    mutationKey: teamMutationKeys.invite,
    mutationFn: (invite: TeamInvite) => apiData<TeamInvitation>('POST', '/team/invite', { body: invite, fallback: 'Failed to invite team member' }),
  });

/**
 * Accepts a team invitation: the answer is the invited account's session, which replaces
 * any other (the invitation is for that account; another account's cached answers are
 * dropped), and the team joins the list.
 */
export const acceptTeamInviteMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: teamMutationKeys.accept,
    mutationFn: (accept: TeamAccept) => apiData<TeamInvitationAccepted>('POST', '/team/accept', { body: accept, fallback: 'Failed to accept team invitation' }),
    onSuccess: (accepted) => {
      if (readUser()?.id !== accepted.user.id) queryClient.clear();
      saveSession(accepted.token, accepted.user);
      listTeam(queryClient, accepted.team);
    },
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
    onSuccess: (removed) =>
      queryClient.setQueryData<TeamMember[]>(teamKeys.members(removed.teamId), (members) => members?.filter((listed) => listed.id !== removed.userId)),
  });
