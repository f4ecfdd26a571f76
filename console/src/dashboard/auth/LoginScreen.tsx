// /login: e-mail and password; on success the session is stored and the dashboard opens,
// or, for an account whose e-mail is not verified yet, a new code is sent and /verify opens.
// With ?invite= (a team invitation's link) logging in accepts the invitation and opens the team;
// with ?next= (a path of this site, e.g. a group invitation's link) a verified account goes there.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useState } from 'react';
import { loginMutation, sendEmailOtpMutation } from '../../api/auth/mutations.ts';
import { internalPath } from '../../shared/next-path.ts';
import { AuthCard, FormError, TextField } from './AuthCard.tsx';
import { InvitedSignIn } from './InvitedSignIn.tsx';

export function LoginScreen() {
  const { invite } = useSearch({ strict: false });
  if (invite) return <InvitedSignIn token={invite} purpose="login" fallback={(notice) => <LoginForm notice={notice} />} />;
  return <LoginForm />;
}

function LoginForm({ notice }: { notice?: ReactNode }) {
  const navigate = useNavigate();
  const next = internalPath(useSearch({ strict: false }).next);
  const login = useMutation(loginMutation(useQueryClient()));
  const sendCode = useMutation(sendEmailOtpMutation());
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate(
      { email, password },
      {
        onSuccess: ({ user }) => {
          if (user.emailVerified) return next ? navigate({ href: next }) : navigate({ to: '/dashboard' });
          sendCode.mutate(user.email);
          return navigate({ to: '/verify', search: { email: user.email } });
        },
      },
    );
  };

  return (
    <AuthCard
      title="Welcome back"
      subtitle="Log in to see your team's AI usage and spend."
      footer={
        <>
          New to Spendgate?{' '}
          <Link to="/register" className="text-link">
            Create an account
          </Link>
        </>
      }
    >
      {notice}
      <form className="auth__form" onSubmit={submit} aria-label="Login">
        <TextField label="Email" id="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <TextField
          label="Password"
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <p className="auth__aside">
          <Link to="/forgot-password" className="text-link">
            Forgot your password?
          </Link>
        </p>
        <FormError error={login.error} />
        <button type="submit" className="button button--primary button--block" disabled={login.isPending}>
          {login.isPending ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </AuthCard>
  );
}
