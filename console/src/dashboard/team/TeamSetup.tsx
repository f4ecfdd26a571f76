/**
 * For a user without a team (and for one who wants another): create a team, of which
 * they become the admin, or join one with the invitation link a team admin e-mailed them.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { createTeamMutation, joinTeamMutation } from '../../api/team/mutations.ts';
import type { Team } from '../../api/team/types.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { TextInput } from '../ui/Field.tsx';
import { hasProblems, invitationToken, type Problems, validateJoin, validateNewTeam } from './validation.ts';

export function CreateTeamForm({ onCreated }: { onCreated: (team: Team) => void }) {
  const create = useMutation(createTeamMutation(useQueryClient()));
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [problems, setProblems] = useState<Problems<'name' | 'description'>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateNewTeam({ name, description });
    setProblems(found);
    if (hasProblems(found)) return;
    create.mutate({ name: name.trim(), description: description.trim() }, { onSuccess: onCreated });
  };

  return (
    <form className="settings-panel team-form" onSubmit={submit} aria-label="Create a team" noValidate>
      <h2 className="settings-panel__title">Create a team</h2>
      <p className="settings-panel__text">Connections, groups, keys and budgets belong to a team. You will be its admin.</p>
      <TextInput label="Team name" id="team-name" autoComplete="organization" value={name} onChange={(e) => setName(e.target.value)} error={problems.name} />
      <TextInput
        label="Description (optional)"
        id="team-description"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={problems.description}
      />
      <FormError error={create.error} />
      <button type="submit" className="button button--primary" disabled={create.isPending}>
        {create.isPending ? 'Creating team…' : 'Create team'}
      </button>
    </form>
  );
}

export function JoinTeamForm({ onJoined }: { onJoined: (team: Team) => void }) {
  const accept = useMutation(joinTeamMutation(useQueryClient()));
  const [invitation, setInvitation] = useState('');
  const [password, setPassword] = useState('');
  const [problems, setProblems] = useState<Problems<'invitation' | 'password'>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateJoin({ invitation, password });
    setProblems(found);
    const token = invitationToken(invitation);
    if (hasProblems(found) || token === undefined) return;
    accept.mutate({ token, password }, { onSuccess: (accepted) => onJoined(accepted.team) });
  };

  return (
    <form className="settings-panel team-form" onSubmit={submit} aria-label="Join a team" noValidate>
      <h2 className="settings-panel__title">Join a team</h2>
      <p className="settings-panel__text">Ask a team admin to invite your e-mail, then paste the link from the invitation here (or open it).</p>
      <TextInput
        label="Invitation link"
        id="join-invitation"
        placeholder="https://…/register?invite=…"
        value={invitation}
        onChange={(e) => setInvitation(e.target.value)}
        error={problems.invitation}
      />
      <TextInput
        label="Your password"
        id="join-password"
        type="password"
        autoComplete="current-password"
        hint="Accepting signs you in again: it confirms the invitation is yours."
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={problems.password}
      />
      <FormError error={accept.error} />
      <button type="submit" className="button button--primary" disabled={accept.isPending}>
        {accept.isPending ? 'Joining…' : 'Join team'}
      </button>
    </form>
  );
}
