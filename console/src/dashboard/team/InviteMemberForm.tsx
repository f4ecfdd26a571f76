// Invites someone to the team by e-mail (team admins), as MEMBER unless the admin picks
// ADMIN; the invitation e-mail carries the link that adds them (/register?invite=).
import { TEAM_ROLES, type TeamRole } from '@spendgate/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { inviteMemberMutation } from '../../api/team/mutations.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { SelectInput, TextInput } from '../ui/Field.tsx';
import { hasProblems, isTeamRole, type Problems, validateInvite } from './validation.ts';

export const DEFAULT_INVITE_ROLE: TeamRole = 'MEMBER';

export const ROLE_LABELS: Record<TeamRole, string> = { ADMIN: 'Admin', MEMBER: 'Member' };

export function InviteMemberForm({ teamId, onInvited }: { teamId: string; onInvited?: () => void }) {
  const invite = useMutation(inviteMemberMutation(useQueryClient()));
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>(DEFAULT_INVITE_ROLE);
  const [problems, setProblems] = useState<Problems<'email' | 'role'>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateInvite({ email, role });
    setProblems(found);
    if (hasProblems(found) || !isTeamRole(role)) return;
    invite.mutate(
      { teamId, email: email.trim(), role },
      {
        onSuccess: () => {
          setEmail('');
          setRole(DEFAULT_INVITE_ROLE);
          onInvited?.();
        },
      },
    );
  };

  return (
    <form className="settings-panel team-form" onSubmit={submit} aria-label="Invite a member" noValidate>
      <h2 className="settings-panel__title">Invite a member</h2>
      <div className="team-form__row">
        <TextInput label="E-mail" id="invite-email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} error={problems.email} />
        <SelectInput label="Role" id="invite-role" value={role} onChange={(e) => setRole(e.target.value)} error={problems.role}>
          {TEAM_ROLES.map((option) => (
            <option key={option} value={option}>
              {ROLE_LABELS[option]}
            </option>
          ))}
        </SelectInput>
        <button type="submit" className="button button--primary team-form__submit" disabled={invite.isPending}>
          {invite.isPending ? 'Sending invitation…' : 'Send invitation'}
        </button>
      </div>
      <FormError error={invite.error} />
      {invite.isSuccess && !invite.isPending && (
        <p className="alert alert--success" role="status">
          Invitation sent to {invite.data.email}. The link in it works once and expires in 7 days.
        </p>
      )}
    </form>
  );
}
