/**
 * /dashboard/addgroup: creating a synthetic group in one of your teams, with its name,
 * description, and the team members to put in it with their roles (spec §6). The new
 * group becomes current: its details open (spec §4). A team must exist first.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { addMembersMutation, createGroupMutation } from '../../api/groups/mutations.ts';
import { GROUP_ROLE_LABELS, GROUP_ROLES, type GroupRole } from '../../api/groups/types.ts';
import { myTeamsQuery, teamMembersQuery } from '../../api/team/queries.ts';
import type { Team } from '../../api/team/types.ts';
import { notify } from '../../shared/notifications.ts';
import { useSession } from '../../shared/session.ts';
import { SelectInput, TextInput } from '../ui/Field.tsx';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { DescriptionField } from './DescriptionField.tsx';
import { groupDetailsSearch } from './search.ts';
import { hasProblems, NAME_MAX, type Problems, validateGroup } from './validation.ts';
import './groups.css';

export function AddGroupScreen() {
  const teams = useQuery(myTeamsQuery());
  return (
    <ScreenFrame title="Add a synthetic group" description="Name the group, choose its members and their roles.">
      {teams.isPending ? (
        <LoadingState label="Loading your teams…" />
      ) : teams.isError ? (
        <ErrorState error={teams.error} onRetry={() => teams.refetch()} retrying={teams.isFetching} />
      ) : teams.data.length === 0 ? (
        <EmptyState
          icon="users"
          title="Create a team first"
          text="A group belongs to a team: its members can join the group and its spend counts on the team."
          action={
            <Link to="/dashboard/settings/team" className="button button--primary">
              Set up a team
            </Link>
          }
        />
      ) : (
        <CreateGroupForm teams={teams.data} />
      )}
    </ScreenFrame>
  );
}

function CreateGroupForm({ teams }: { teams: Team[] }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [teamId, setTeamId] = useState(teams[0]!.id);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<Record<string, GroupRole>>({});
  const [problems, setProblems] = useState<Problems<'name' | 'description'>>({});
  const create = useMutation(createGroupMutation(queryClient));
  const addMembers = useMutation(addMembersMutation(queryClient));
  const busy = create.isPending || addMembers.isPending;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = validateGroup({ name, description });
    setProblems(found);
    if (hasProblems(found)) return;
    const group = await create.mutateAsync({ teamId, name: name.trim(), description: description.trim() }).catch(() => undefined);
    if (!group) return;
    const users = Object.entries(chosen).map(([userId, role]) => ({ userId, role }));
    if (users.length > 0) {
      // The group exists now: a failure here is reported and the group opens anyway, where members can be added again.
      await addMembers.mutateAsync({ groupId: group.id, users }).catch((error: Error) => notify(error.message, 'error'));
    }
    notify(`Group ${group.name} created`, 'success');
    await navigate({ to: '/dashboard/synthetic-groups', search: groupDetailsSearch(group.id) as never });
  }

  return (
    <form className="group-panel group-form" onSubmit={submit} noValidate aria-label="New synthetic group">
      {teams.length > 1 && (
        <SelectInput
          label="Team"
          id="group-team"
          value={teamId}
          onChange={(event) => {
            setTeamId(event.target.value);
            setChosen({});
          }}
        >
          {teams.map((team) => (
            <option key={team.id} value={team.id}>
              {team.name}
            </option>
          ))}
        </SelectInput>
      )}
      <TextInput label="Group name" id="group-name" value={name} maxLength={NAME_MAX} onChange={(event) => setName(event.target.value)} error={problems.name} required />
      <DescriptionField
        id="group-description"
        value={description}
        onChange={setDescription}
        error={problems.description}
        hint="Optional: the team, product or customer whose spend it collects."
      />
      <MemberPicker teamId={teamId} chosen={chosen} onChange={setChosen} />
      {(create.error || addMembers.error) && (
        <p className="alert alert--error" role="alert">
          {(create.error ?? addMembers.error)!.message}
        </p>
      )}
      <div className="group-form__actions">
        <Link to="/dashboard/synthetic-groups" className="button button--ghost">
          Cancel
        </Link>
        <button type="submit" className="button button--primary" disabled={busy} aria-busy={busy}>
          {busy ? 'Creating…' : 'Create group'}
        </button>
      </div>
    </form>
  );
}

/** The team's other members, each with a box to put them in the group and their role there. */
function MemberPicker({ teamId, chosen, onChange }: { teamId: string; chosen: Record<string, GroupRole>; onChange: (chosen: Record<string, GroupRole>) => void }) {
  const members = useQuery(teamMembersQuery(teamId));
  const me = useSession().user?.id;
  const others = members.data?.filter((member) => member.id !== me) ?? [];

  return (
    <fieldset className="group-member-picker">
      <legend className="form-field__label">Members</legend>
      <p className="form-field__help">You are the group's admin. Add colleagues from the team now, or invite anyone by e-mail once the group exists.</p>
      {members.isPending ? (
        <LoadingState label="Loading team members…" />
      ) : members.isError ? (
        <ErrorState error={members.error} onRetry={() => members.refetch()} retrying={members.isFetching} />
      ) : others.length === 0 ? (
        <p className="group-member-picker__empty">No one else is in this team yet.</p>
      ) : (
        <ul className="group-member-picker__list">
          {others.map((member) => {
            const role = chosen[member.id];
            return (
              <li key={member.id} className="group-member-picker__row">
                <label className="group-member-picker__who">
                  <input
                    type="checkbox"
                    checked={role !== undefined}
                    onChange={(event) => {
                      const { [member.id]: _left, ...rest } = chosen;
                      onChange(event.target.checked ? { ...rest, [member.id]: 'OBSERVER' } : rest);
                    }}
                  />
                  <span>
                    <strong>{member.name}</strong> <span className="group-muted">{member.email}</span>
                  </span>
                </label>
                {role !== undefined && (
                  <select aria-label={`Role of ${member.name}`} value={role} onChange={(event) => onChange({ ...chosen, [member.id]: event.target.value as GroupRole })}>
                    {GROUP_ROLES.map((option) => (
                      <option key={option} value={option}>
                        {GROUP_ROLE_LABELS[option]}
                      </option>
                    ))}
                  </select>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </fieldset>
  );
}
