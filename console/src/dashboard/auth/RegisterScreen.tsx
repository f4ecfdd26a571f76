// /register: name, e-mail and password (or a Google account, when the server has Google
// sign-in on), for the plan named by ?plan= when there is one.
// The server mails a code with the new account; /verify takes it and opens the dashboard.
// Leaving the e-mail field asks whether the address already has an account, and if it
// has, points to /login.
// With ?invite= (a team invitation's link) it signs up the invited e-mail into that team.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useState } from 'react';
import { registerMutation } from '../../api/auth/mutations.ts';
import { emailCheckQuery } from '../../api/auth/queries.ts';
import { plansQuery } from '../../api/subscription/queries.ts';
import { AuthCard, FormError, TextField } from './AuthCard.tsx';
import { GoogleSignIn } from './GoogleSignIn.tsx';
import { InvitedSignIn } from './InvitedSignIn.tsx';

export function RegisterScreen() {
  const { plan: planId, invite } = useSearch({ strict: false });
  if (invite) return <InvitedSignIn token={invite} purpose="register" fallback={(notice) => <RegisterForm planId={planId} notice={notice} />} />;
  return <RegisterForm planId={planId} />;
}

function RegisterForm({ planId, notice }: { planId: string | undefined; notice?: ReactNode }) {
  const plans = useQuery({ ...plansQuery(), enabled: planId !== undefined });
  const planName = plans.data?.find((plan) => plan.id === planId)?.name;
  const navigate = useNavigate();
  const register = useMutation(registerMutation(useQueryClient()));
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // The address last left complete in the field: the one asked about (null until then).
  const [checkedEmail, setCheckedEmail] = useState<string | null>(null);
  const emailCheck = useQuery({ ...emailCheckQuery(checkedEmail ?? ''), enabled: checkedEmail !== null });
  const hasAccount = emailCheck.data?.exists === true && checkedEmail === email.trim().toLowerCase();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    register.mutate(
      { name, email, password, planId },
      { onSuccess: ({ user }) => (user.emailVerified ? navigate({ to: '/dashboard' }) : navigate({ to: '/verify', search: { email: user.email } })) },
    );
  };

  return (
    <AuthCard
      title="Create your account"
      subtitle={
        planName ? (
          <>
            You're signing up for the <strong>{planName}</strong> plan. The first 60 days are free.
          </>
        ) : (
          'The first 60 days are free. No credit card required.'
        )
      }
      footer={
        <>
          Already have an account?{' '}
          <Link to="/login" className="text-link">
            Log in
          </Link>
        </>
      }
    >
      {notice}
      <GoogleSignIn purpose="signup" planId={planId} onSignedIn={() => navigate({ to: '/dashboard' })} />
      <form className="auth__form" onSubmit={submit} aria-label="Register">
        <TextField label="Full name" id="name" autoComplete="name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <TextField
          label="Work email"
          id="email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          onBlur={(e) => e.target.validity.valid && email.trim() !== '' && setCheckedEmail(email.trim().toLowerCase())}
        />
        {hasAccount && (
          <p className="alert alert--info" role="status">
            An account with this e-mail already exists.{' '}
            <Link to="/login" className="text-link">
              Log in instead
            </Link>
          </p>
        )}
        <TextField
          label="Password"
          id="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <FormError error={register.error} />
        <button type="submit" className="button button--primary button--block" disabled={register.isPending}>
          {register.isPending ? 'Creating your account…' : 'Create account'}
        </button>
      </form>
    </AuthCard>
  );
}
