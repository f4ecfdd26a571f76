/**
 * A group's members and their roles. Group admins change a role (applied at once), remove
 * a member after a confirmation, and add members of the team; everyone else reads the
 * list (spec §6: maintainers cannot add, update or remove users).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { addMembersMutation, changeMemberRoleMutation, removeMemberMutation } from '../../api/groups/mutations.ts';
import { GROUP_ROLE_LABELS, GROUP_ROLES, type GroupMember, type GroupRole, groupPermissions, type SyntheticGroup } from '../../api/groups/types.ts';
import { teamMembersQuery } from '../../api/team/queries.ts';
import { notify } from '../../shared/notifications.ts';
import { useSession } from '../../shared/session.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { SelectInput } from '../ui/Field.tsx';
import { roleLabel } from './RoleBadge.tsx';

const day = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium' });

function RoleOptions() {
  return GROUP_ROLES.map((role) => (
    <option key={role} value={role}>
      {GROUP_ROLE_LABELS[role]}
    </option>
  ));
}

export function GroupMembers({ group }: { group: SyntheticGroup }) {
  const queryClient = useQueryClient();
  const manage = groupPermissions(group.role).manageMembers;
  const me = useSession().user?.id;
  const changeRole = useMutation(changeMemberRoleMutation(queryClient));
  const remove = useMutation(removeMemberMutation(queryClient));
  const [removing, setRemoving] = useState<GroupMember | null>(null);

  function setRole(member: GroupMember, role: GroupRole) {
    changeRole.mutate(
      { groupId: group.id, userId: member.user.id, role },
      { onSuccess: () => notify(`${member.user.name} is now ${GROUP_ROLE_LABELS[role]}`, 'success') },
    );
  }

  return (
    <section className="group-panel" aria-labelledby="group-members-title">
      <div className="group-panel__head">
        <h2 className="group-panel__title" id="group-members-title">
          Members
        </h2>
      </div>
      {changeRole.error && (
        <p className="alert alert--error" role="alert">
          {changeRole.error.message}
        </p>
      )}
      <div className="group-table-scroll">
        <table className="group-table" aria-label="Members">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col" className="group-table__optional">
                Joined
              </th>
              {manage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {group.syntheticGroupUsers.map((member) => {
              const editable = manage && member.user.id !== me;
              return (
                <tr key={member.user.id}>
                  <td className="group-table__who">
                    <strong>{member.user.name}</strong>
                    <span>{member.user.email}</span>
                  </td>
                  <td>
                    {editable ? (
                      <select
                        aria-label={`Role of ${member.user.name}`}
                        value={member.role}
                        disabled={changeRole.isPending && changeRole.variables?.userId === member.user.id}
                        onChange={(event) => setRole(member, event.target.value as GroupRole)}
                      >
                        <RoleOptions />
                      </select>
                    ) : (
                      roleLabel(member.role)
                    )}
                  </td>
                  <td className="group-table__optional">{day.format(new Date(member.joinedAt))}</td>
                  {manage && (
                    <td className="group-table__actions">
                      {editable && (
                        <button type="button" className="button button--ghost button--small" onClick={() => setRemoving(member)}>
                          Remove <span className="visually-hidden">{member.user.name}</span>
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {manage && <AddMembersForm group={group} />}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.user.name}?`}
          confirmLabel="Remove member"
          destructive
          busy={remove.isPending}
          error={remove.error?.message}
          onConfirm={() =>
            remove.mutate(
              { groupId: group.id, userId: removing.user.id },
              {
                onSuccess: () => {
                  notify(`${removing.user.name} removed from ${group.name}`, 'success');
                  setRemoving(null);
                },
              },
            )
          }
          onCancel={() => {
            setRemoving(null);
            remove.reset();
          }}
        >
          They lose access to this group and its usage. They stay in the team.
        </ConfirmDialog>
      )}
    </section>
  );
}

/** Adds a member of the group's team who is not in the group yet, with a role. */
function AddMembersForm({ group }: { group: SyntheticGroup }) {
  const queryClient = useQueryClient();
  const teamMembers = useQuery(teamMembersQuery(group.teamId));
  const add = useMutation(addMembersMutation(queryClient));
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<GroupRole>('OBSERVER');
  const inGroup = new Set(group.syntheticGroupUsers.map((member) => member.user.id));
  const candidates = teamMembers.data?.filter((member) => !inGroup.has(member.id)) ?? [];

  if (teamMembers.isPending) return null;
  if (teamMembers.isError) {
    return (
      <p className="alert alert--error" role="alert">
        {teamMembers.error.message}
      </p>
    );
  }
  if (candidates.length === 0) return <p className="group-panel__note">Everyone in the team is in this group. Invite others by e-mail below.</p>;

  function submit(event: FormEvent) {
    event.preventDefault();
    const chosen = candidates.find((member) => member.id === userId);
    if (!chosen) return;
    add.mutate(
      { groupId: group.id, users: [{ userId: chosen.id, role }] },
      {
        onSuccess: () => {
          notify(`${chosen.name} added as ${GROUP_ROLE_LABELS[role]}`, 'success');
          setUserId('');
        },
      },
    );
  }

  return (
    <form className="group-inline-form" onSubmit={submit} aria-label="Add a team member">
      <SelectInput label="Team member" id="add-member" value={userId} onChange={(event) => setUserId(event.target.value)}>
        <option value="">Choose a team member</option>
        {candidates.map((member) => (
          <option key={member.id} value={member.id}>
            {member.name} ({member.email})
          </option>
        ))}
      </SelectInput>
      <SelectInput label="Role" id="add-member-role" value={role} onChange={(event) => setRole(event.target.value as GroupRole)}>
        <RoleOptions />
      </SelectInput>
      <button type="submit" className="button button--primary" disabled={!userId || add.isPending} aria-busy={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add member'}
      </button>
      {add.error && (
        <p className="alert alert--error group-inline-form__error" role="alert">
          {add.error.message}
        </p>
      )}
    </form>
  );
}
