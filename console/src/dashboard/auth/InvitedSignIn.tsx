/**
 * Register and log in with a team invitation's token (?invite= from the e-mailed link):
 * the invitation says for which e-mail and team it is; accepting it (POST /team/accept)
 * creates that account (already verified: the link came by e-mail) or checks its password,
 * starts its session and opens the team. A token that is invalid, used or expired leaves
 * the ordinary form, with the reason.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiError } from '../../api/client.ts';
import { acceptTeamInviteMutation } from '../../api/team/mutations.ts';
import { invitationPreviewQuery } from '../../api/team/queries.ts';
import type { TeamInvitationAccepted, TeamInvitationPreview } from '../../api/team/types.ts';
import { Spinner } from '../../shared/ui/Spinner.tsx';
import { ROLE_LABELS } from '../team/InviteMemberForm.tsx';
import { AuthCard, FormError, TextField } from './AuthCard.tsx';

type Purpose = 'register' | 'login';

export const INVITATION_UNUSABLE = "This invitation link is invalid, has been used or has expired. Ask the team's admin for a new one.";

/**
 * The invitation behind `token`, for the register or login screen: while it loads, a
 * spinner; when the token opens nothing, the screen's ordinary form (`fallback`) under
 * the reason; else the invited form.
 */
export function InvitedSignIn({ token, purpose, fallback }: { token: string; purpose: Purpose; fallback: (notice: ReactNode) => ReactNode }) {
  const preview = useQuery(invitationPreviewQuery(token));
  if (preview.isPending) {
    return (
      <AuthCard title="Opening your invitation">
        <Spinner label="Opening your invitation…" />
      </AuthCard>
    );
  }
  if (preview.isError) {
    // The API refuses a bad token with 400 (field `token`); anything else is the request failing.
    const refused = preview.error instanceof ApiError && preview.error.status === 400;
    return fallback(
      <p className="alert alert--error" role="alert">
        {refused ? INVITATION_UNUSABLE : preview.error.message}
      </p>,
    );
  }
  // An account accepts by logging in, a new e-mail by signing up: each screen sends to the other when needed.
  const invitation = preview.data;
  if (purpose === 'register' && invitation.accountExists) return <AccountExists token={token} invitation={invitation} />;
  return <AcceptForm token={token} invitation={invitation} purpose={invitation.accountExists ? 'login' : 'register'} />;
}

function invitedTo(invitation: TeamInvitationPreview) {
  return (
    <>
      You're invited to join <strong>{invitation.teamName}</strong> as {ROLE_LABELS[invitation.role]}.
    </>
  );
}

function AccountExists({ token, invitation }: { token: string; invitation: TeamInvitationPreview }) {
  return (
    <AuthCard title="Join your team" subtitle={invitedTo(invitation)}>
      <p className="auth__aside">{invitation.email} already has a Spendgate account: log in to accept the invitation.</p>
      <Link to="/login" search={{ invite: token }} className="button button--primary button--block">
        Log in to join
      </Link>
    </AuthCard>
  );
}

function AcceptForm({ token, invitation, purpose }: { token: string; invitation: TeamInvitationPreview; purpose: Purpose }) {
  const navigate = useNavigate();
  const accept = useMutation(acceptTeamInviteMutation(useQueryClient()));
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const signingUp = purpose === 'register';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    accept.mutate(
      { token, password, ...(signingUp && { name: name.trim() }) },
      { onSuccess: (accepted: TeamInvitationAccepted) => navigate({ to: '/dashboard/settings/team', search: { team: accepted.team.id } }) },
    );
  };

  return (
    <AuthCard
      title={signingUp ? 'Create your account' : 'Log in to join your team'}
      subtitle={invitedTo(invitation)}
      footer={
        signingUp ? (
          <>
            Already have an account?{' '}
            <Link to="/login" className="text-link">
              Log in
            </Link>
          </>
        ) : undefined
      }
    >
      <form className="auth__form" onSubmit={submit} aria-label={signingUp ? 'Register' : 'Login'}>
        {signingUp && (
          <TextField label="Full name" id="name" autoComplete="name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        )}
        <TextField
          label={signingUp ? 'Work email' : 'Email'}
          id="email"
          type="email"
          autoComplete="email"
          value={invitation.email}
          readOnly
          hint="The invitation is for this address."
        />
        <TextField
          label="Password"
          id="password"
          type="password"
          autoComplete={signingUp ? 'new-password' : 'current-password'}
          required
          minLength={signingUp ? 8 : undefined}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <FormError error={accept.error} />
        <button type="submit" className="button button--primary button--block" disabled={accept.isPending}>
          {accept.isPending ? 'Joining the team…' : signingUp ? 'Create account and join' : 'Log in and join'}
        </button>
      </form>
    </AuthCard>
  );
}
