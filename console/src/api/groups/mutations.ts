/**
 * Synthetic-group mutations and the cache changes spec §4 gives each: creating appends
 * the group to the lists and makes it current (its detail cached); updating replaces it;
 * deleting removes it; adding, removing and re-roling members change the member lists of
 * the listed and the current group; sending invitations or accepting one refetches the
 * group lists; resending or revoking one refetches that group's invitations. Accepting an
 * invitation needs a signed-in user (spec §5).
 */
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { readToken } from '../../shared/session.ts';
import { ApiError, apiData } from '../client.ts';
import { groupKeys } from './queries.ts';
import type { AddedMembers, GroupInvitation, GroupMember, GroupRole, MemberRemoved, MemberRoleChanged, SyntheticGroup } from './types.ts';

export const NOT_SIGNED_IN_FOR_INVITE = 'Please log in to Continue!';
/** Reported when a failed invitation carries no message of its own (spec §8). */
export const INVITATIONS_FAILED = 'Failed to send one or more invitations.';

const groupPath = (groupId: string) => `/synthetic-group/${encodeURIComponent(groupId)}`;

/** Applies `change` to the group wherever it is cached: in every list and as the current group. */
export function updateCachedGroup(queryClient: QueryClient, groupId: string, change: (group: SyntheticGroup) => SyntheticGroup): void {
  queryClient.setQueriesData<SyntheticGroup[]>({ queryKey: groupKeys.lists() }, (groups) => groups?.map((group) => (group.id === groupId ? change(group) : group)));
  queryClient.setQueryData<SyntheticGroup>(groupKeys.detail(groupId), (group) => group && change(group));
}

export const createGroupMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'create'],
    mutationFn: (input: { teamId: string; name: string; description: string }) =>
      apiData<SyntheticGroup>('POST', '/synthetic-group', { body: input, fallback: 'Failed to create group' }),
    onSuccess: (group) => {
      queryClient.setQueriesData<SyntheticGroup[]>({ queryKey: groupKeys.lists() }, (groups) => groups && [...groups.filter((listed) => listed.id !== group.id), group]);
      queryClient.setQueryData(groupKeys.detail(group.id), group);
    },
  });

export const updateGroupMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'update'],
    mutationFn: ({ groupId, ...changes }: { groupId: string; name: string; description: string }) =>
      apiData<SyntheticGroup>('PUT', groupPath(groupId), { body: changes, fallback: 'Failed to update group' }),
    onSuccess: (group) => updateCachedGroup(queryClient, group.id, () => group),
  });

export const deleteGroupMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'delete'],
    mutationFn: (groupId: string) => apiData<{ id: string }>('DELETE', groupPath(groupId), { fallback: 'Failed to delete group' }),
    onSuccess: ({ id }) => {
      queryClient.setQueriesData<SyntheticGroup[]>({ queryKey: groupKeys.lists() }, (groups) => groups?.filter((group) => group.id !== id));
      queryClient.removeQueries({ queryKey: groupKeys.detail(id) });
    },
  });

export const addMembersMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'members', 'add'],
    mutationFn: ({ groupId, users }: { groupId: string; users: { userId: string; role: GroupRole }[] }) =>
      apiData<AddedMembers>('POST', `/synthetic-group/member/${encodeURIComponent(groupId)}`, { body: { users }, fallback: 'Failed to add users to group' }),
    onSuccess: ({ addedUsers }, { groupId }) => {
      const joinedAt = new Date().toISOString();
      const added: GroupMember[] = addedUsers.map(({ user, role }) => ({ user, role, joinedAt }));
      updateCachedGroup(queryClient, groupId, (group) => ({ ...group, syntheticGroupUsers: [...group.syntheticGroupUsers, ...added] }));
    },
  });

export const removeMemberMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'members', 'remove'],
    mutationFn: ({ groupId, userId }: { groupId: string; userId: string }) =>
      apiData<MemberRemoved>('DELETE', `/synthetic-group/member/${encodeURIComponent(groupId)}/${encodeURIComponent(userId)}`, {
        fallback: 'Failed to remove user from group',
      }),
    onSuccess: ({ groupId, userId }) =>
      updateCachedGroup(queryClient, groupId, (group) => ({ ...group, syntheticGroupUsers: group.syntheticGroupUsers.filter((member) => member.user.id !== userId) })),
  });

export const changeMemberRoleMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'members', 'role'],
    mutationFn: ({ groupId, userId, role }: { groupId: string; userId: string; role: GroupRole }) =>
      apiData<MemberRoleChanged>('PATCH', `/synthetic-group/member/${encodeURIComponent(groupId)}/${encodeURIComponent(userId)}`, {
        body: { role },
        fallback: 'Failed to update user role',
      }),
    onSuccess: ({ groupId, userId, role }) =>
      updateCachedGroup(queryClient, groupId, (group) => ({
        ...group,
        syntheticGroupUsers: group.syntheticGroupUsers.map((member) => (member.user.id === userId ? { ...member, role } : member)),
      })),
  });

/** Sending several invitations failed: `message` is the first failure's; `sent` those that went. */
export class InvitationsError extends Error {
  constructor(
    message: string,
    readonly sent: GroupInvitation[],
    readonly failedEmails: string[],
  ) {
    super(message);
    this.name = 'InvitationsError';
  }
}

/**
 * Sends every invitation at once. It counts as failed if any one fails, and then reports
 * the first failure's message (spec §5); either way the group lists are refetched.
 */
export const sendInvitationsMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'invitations', 'send'],
    mutationFn: async ({ groupId, invitations }: { groupId: string; invitations: { email: string; role: GroupRole }[] }) => {
      const results = await Promise.allSettled(
        invitations.map((invitation) => apiData<GroupInvitation>('POST', `${groupPath(groupId)}/invite`, { body: invitation, fallback: 'Failed to send invitations.' })),
      );
      const sent = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      const firstFailure = results.find((result) => result.status === 'rejected');
      if (firstFailure) {
        const reason: unknown = firstFailure.reason;
        const failedEmails = invitations.filter((_, index) => results[index]!.status === 'rejected').map((invitation) => invitation.email);
        throw new InvitationsError(reason instanceof ApiError ? reason.message : INVITATIONS_FAILED, sent, failedEmails);
      }
      return sent;
    },
    onSettled: (_sent, _error, { groupId }) =>
      Promise.all([queryClient.invalidateQueries({ queryKey: groupKeys.lists() }), queryClient.invalidateQueries({ queryKey: groupKeys.invitations(groupId) })]),
  });

const refetchInvitationsOf = (queryClient: QueryClient, invitation: GroupInvitation) =>
  invitation.syntheticGroupId ? queryClient.invalidateQueries({ queryKey: groupKeys.invitations(invitation.syntheticGroupId) }) : undefined;

export const resendInvitationMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'invitations', 'resend'],
    mutationFn: (invitationId: string) =>
      apiData<GroupInvitation>('POST', `/synthetic-group/invitations/${encodeURIComponent(invitationId)}/resend`, { fallback: 'Failed to resend invitation' }),
    onSuccess: (invitation) => refetchInvitationsOf(queryClient, invitation),
  });

export const revokeInvitationMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'invitations', 'revoke'],
    mutationFn: (invitationId: string) =>
      apiData<GroupInvitation>('DELETE', `/synthetic-group/invitations/${encodeURIComponent(invitationId)}/revoke`, { fallback: 'Failed to revoke invitation' }),
    onSuccess: (invitation) => refetchInvitationsOf(queryClient, invitation),
  });

export const acceptInviteMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['groups', 'accept-invite'],
    mutationFn: async (token: string) => {
      if (!readToken()) throw new Error(NOT_SIGNED_IN_FOR_INVITE);
      const answer = await apiData<{ group: SyntheticGroup }>('POST', '/synthetic-group/accept-invite', {
        body: { token },
        fallback: 'Failed to accept the invitation',
      });
      return answer.group;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: groupKeys.lists() }),
  });
