/**
 * A team's members: name, e-mail, role and when they joined. A team admin changes a
 * member's role in place and removes a member after confirming. Every action has its own
 * loading flag (spec §4): a role being saved disables only that member's role, a removal
 * only that member's button, and both can run while an invitation is sent.
 */
import { TEAM_ROLES, type TeamRole } from '@spendgate/core';
import { useMutation, useMutationState, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { changeRoleMutation, removeMemberMutation, teamMutationKeys } from '../../api/team/mutations.ts';
import { teamKeys } from '../../api/team/queries.ts';
import type { Removal, RoleChange, TeamMember } from '../../api/team/types.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { Avatar } from '../ui/Avatar.tsx';
import { Badge } from '../ui/Badge.tsx';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ROLE_LABELS } from './InviteMemberForm.tsx';
import { isTeamRole } from './validation.ts';

const joinedDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

/** The members a pending mutation of `key` is acting on, by user id. */
function usePendingUserIds(key: readonly string[]): Set<string> {
  const pending = useMutationState({
    filters: { mutationKey: key, status: 'pending' },
    select: (mutation) => (mutation.state.variables as RoleChange | Removal | undefined)?.userId,
  });
  return new Set(pending.filter((userId): userId is string => userId !== undefined));
}

export function TeamMembers({ teamId, members, canManage, currentUserId }: { teamId: string; members: TeamMember[]; canManage: boolean; currentUserId: string | undefined }) {
  const queryClient = useQueryClient();
  const changeRole = useMutation(changeRoleMutation(queryClient));
  const remove = useMutation(removeMemberMutation(queryClient));
  const savingRole = usePendingUserIds(teamMutationKeys.role);
  const removing = usePendingUserIds(teamMutationKeys.remove);
  const [confirming, setConfirming] = useState<TeamMember | null>(null);

  const setRole = (member: TeamMember, role: TeamRole) => changeRole.mutate({ teamId, userId: member.id, role });
  const confirmRemoval = (member: TeamMember) =>
    remove.mutate(
      { teamId, userId: member.id },
      {
        onSuccess: () => {
          setConfirming(null);
          // Leaving: the team is no longer yours to list.
          if (member.id === currentUserId) void queryClient.invalidateQueries({ queryKey: teamKeys.mine() });
        },
      },
    );

  return (
    <section className="settings-panel" aria-labelledby="team-members-title">
      <h2 id="team-members-title" className="settings-panel__title">
        Members <span className="settings-panel__count">{members.length}</span>
      </h2>
      <FormError error={changeRole.error} />
      <ul className="member-list">
        {members.map((member) => {
          const you = member.id === currentUserId;
          return (
            <li key={member.id} className="member" aria-label={member.name || member.email}>
              <Avatar name={member.name} email={member.email} avatar={member.avatar} />
              <div className="member__who">
                <span className="member__name">
                  {member.name || member.email}
                  {you && <Badge>You</Badge>}
                </span>
                <span className="member__email">{member.email}</span>
              </div>
              <span className="member__joined">Joined {joinedDate.format(new Date(member.joinedAt))}</span>
              {canManage ? (
                <div className="member__actions">
                  <label className="visually-hidden" htmlFor={`role-${member.id}`}>
                    Role of {member.name || member.email}
                  </label>
                  <select
                    id={`role-${member.id}`}
                    className="member__role-select"
                    value={member.role}
                    disabled={savingRole.has(member.id)}
                    aria-busy={savingRole.has(member.id)}
                    onChange={(event) => isTeamRole(event.target.value) && setRole(member, event.target.value)}
                  >
                    {TEAM_ROLES.map((role) => (
                      <option key={role} value={role}>
                        {ROLE_LABELS[role]}
                      </option>
                    ))}
                  </select>
                  <span className="member__status" role="status">
                    {savingRole.has(member.id) ? 'Updating role…' : ''}
                  </span>
                  <button
                    type="button"
                    className="button button--ghost button--small"
                    disabled={removing.has(member.id)}
                    onClick={() => {
                      remove.reset();
                      setConfirming(member);
                    }}
                  >
                    {removing.has(member.id) ? 'Removing…' : you ? 'Leave team' : 'Remove'}
                  </button>
                </div>
              ) : (
                <span className="member__role">
                  <Badge>{ROLE_LABELS[member.role]}</Badge>
                </span>
              )}
            </li>
          );
        })}
      </ul>
      {confirming && (
        <ConfirmDialog
          title={confirming.id === currentUserId ? 'Leave this team?' : `Remove ${confirming.name || confirming.email}?`}
          confirmLabel={removing.has(confirming.id) ? 'Removing…' : confirming.id === currentUserId ? 'Leave team' : 'Remove member'}
          destructive
          busy={removing.has(confirming.id)}
          error={remove.error?.message}
          onConfirm={() => confirmRemoval(confirming)}
          onCancel={() => setConfirming(null)}
        >
          {confirming.id === currentUserId
            ? 'You will lose access to its connections, groups and keys.'
            : `${confirming.email} will lose access to the team's connections, groups and keys, and their seat is freed.`}
        </ConfirmDialog>
      )}
    </section>
  );
}
