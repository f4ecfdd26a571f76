/**
 * One synthetic group's details, the current group (`?group=`): its name and description
 * with your role, its usage over a date range, its members, its invitations, and the
 * keys and budget issued for it. Buttons your role may not use are not shown (spec §6):
 * admins edit, delete and manage members and invitations; maintainers edit and manage
 * keys; observers read.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { deleteGroupMutation, updateGroupMutation } from '../../api/groups/mutations.ts';
import { groupQuery } from '../../api/groups/queries.ts';
import { groupPermissions, type SyntheticGroup } from '../../api/groups/types.ts';
import { notify } from '../../shared/notifications.ts';
import { GroupBudget } from '../budgets/BudgetEntries.tsx';
import { GroupKeys } from '../keys/GroupKeys.tsx';
import { DescriptionField } from './DescriptionField.tsx';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { TextInput } from '../ui/Field.tsx';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { GroupInvitations } from './GroupInvitations.tsx';
import { GroupMembers } from './GroupMembers.tsx';
import { GroupUsagePanel } from './GroupUsagePanel.tsx';
import { RoleBadge } from './RoleBadge.tsx';
import type { GroupsSearch } from './search.ts';
import { hasProblems, NAME_MAX, type Problems, validateGroup } from './validation.ts';

function BackToList() {
  return (
    <Link to="/dashboard/synthetic-groups" className="text-link group-back">
      ← All groups
    </Link>
  );
}

export function GroupDetails({ groupId, search }: { groupId: string; search: GroupsSearch }) {
  const group = useQuery(groupQuery(groupId));

  if (group.isPending || group.isError) {
    return (
      <ScreenFrame title="Synthetic group" description="A group's usage, members and keys.">
        <BackToList />
        {group.isPending ? <LoadingState label="Loading the group…" /> : <ErrorState error={group.error} onRetry={() => group.refetch()} retrying={group.isFetching} />}
      </ScreenFrame>
    );
  }
  return <LoadedGroup group={group.data} search={search} />;
}

function LoadedGroup({ group, search }: { group: SyntheticGroup; search: GroupsSearch }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const may = groupPermissions(group.role);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation(deleteGroupMutation(queryClient));

  function confirmDelete() {
    remove.mutate(group.id, {
      onSuccess: () => {
        notify(`Group ${group.name} deleted`, 'success');
        // It was the current group: the list shows again.
        void navigate({ to: '/dashboard/synthetic-groups', replace: true });
      },
    });
  }

  return (
    <ScreenFrame
      title={group.name}
      description={group.description || 'No description.'}
      actions={
        (may.edit || may.delete) && (
          <>
            {may.edit && !editing && (
              <button type="button" className="button button--ghost" onClick={() => setEditing(true)}>
                Edit group
              </button>
            )}
            {may.delete && (
              <button type="button" className="button button--danger" onClick={() => setDeleting(true)}>
                Delete group
              </button>
            )}
          </>
        )
      }
    >
      <div className="group-details__bar">
        <BackToList />
        <RoleBadge role={group.role} />
      </div>
      {editing && <EditGroupForm group={group} onDone={() => setEditing(false)} />}
      <GroupUsagePanel groupId={group.id} search={search} />
      <GroupMembers group={group} />
      {may.manageMembers && <GroupInvitations groupId={group.id} />}
      {/* Keys and budgets of the group: console/src/dashboard/keys/ and budgets/ (their own engineer). */}
      <div className="group-details__more">
        <GroupKeys groupId={group.id} role={group.role} />
        <GroupBudget groupId={group.id} role={group.role} />
      </div>
      {deleting && (
        <ConfirmDialog
          title={`Delete ${group.name}?`}
          confirmLabel="Delete group"
          destructive
          busy={remove.isPending}
          error={remove.error?.message}
          onConfirm={confirmDelete}
          onCancel={() => {
            setDeleting(false);
            remove.reset();
          }}
        >
          Its keys stop working at once and its members lose access. Its past usage stays on the team's records.
        </ConfirmDialog>
      )}
    </ScreenFrame>
  );
}

function EditGroupForm({ group, onDone }: { group: SyntheticGroup; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(group.name);
  const [description, setDescription] = useState(group.description);
  const [problems, setProblems] = useState<Problems<'name' | 'description'>>({});
  const update = useMutation(updateGroupMutation(queryClient));

  function save(event: FormEvent) {
    event.preventDefault();
    const found = validateGroup({ name, description });
    setProblems(found);
    if (hasProblems(found)) return;
    update.mutate(
      { groupId: group.id, name: name.trim(), description: description.trim() },
      {
        onSuccess: () => {
          notify('Group updated', 'success');
          onDone();
        },
      },
    );
  }

  return (
    <form className="group-panel group-form" onSubmit={save} noValidate aria-label="Edit group">
      <h2 className="group-panel__title">Edit group</h2>
      <TextInput label="Group name" id="edit-group-name" value={name} maxLength={NAME_MAX} onChange={(event) => setName(event.target.value)} error={problems.name} required />
      <DescriptionField id="edit-group-description" value={description} onChange={setDescription} error={problems.description} />
      {update.error && (
        <p className="alert alert--error" role="alert">
          {update.error.message}
        </p>
      )}
      <div className="group-form__actions">
        <button type="button" className="button button--ghost" onClick={onDone} disabled={update.isPending}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={update.isPending} aria-busy={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}
