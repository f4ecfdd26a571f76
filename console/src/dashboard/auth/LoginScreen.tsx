// /login: e-mail and password; on success the session is stored and the dashboard opens,
// or, for an account whose e-mail is not verified yet, a new code is sent and /verify opens.
// "Sign in with Google" (when the server has it on) signs in with a Google account.
// "Sign in with SSO" asks only for the e-mail and sends the browser to the identity provider
// of its domain (it comes back to /sso/callback); a password sign-in the server refuses
// because the domain must use single sign-on turns into that form with the address kept.
// With ?invite= (a team invitation's link) logging in accepts the invitation and opens the team;
// with ?next= (a path of this site, e.g. a group invitation's link) a verified account goes there.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useState } from 'react';
import { loginMutation, sendEmailOtpMutation } from '../../api/auth/mutations.ts';
import { ApiError } from '../../api/client.ts';
import { startSsoMutation } from '../../api/sso/mutations.ts';
import { internalPath } from '../../shared/next-path.ts';
import { AuthCard, FormError, TextField } from './AuthCard.tsx';
import { GoogleSignIn } from './GoogleSignIn.tsx';
import { InvitedSignIn } from './InvitedSignIn.tsx';

export function LoginScreen() {
  const { invite } = useSearch({ strict: false });
  if (invite) return <InvitedSignIn token={invite} purpose="login" fallback={(notice) => <LoginForm notice={notice} />} />;
  return <LoginForm />;
}

const signsInWithSso = (error: Error | null) => error instanceof ApiError && (error.body as { code?: unknown } | undefined)?.code === 'sso_required';

/** The e-mail only: the browser goes to the identity provider that signs its domain in. */
function SsoForm({ email, setEmail, notice, onPassword }: { email: string; setEmail: (email: string) => void; notice?: ReactNode; onPassword: () => void }) {
  const start = useMutation(startSsoMutation());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    start.mutate(email, { onSuccess: ({ url }) => window.location.assign(url) });
  };
  return (
    <form className="auth__form" onSubmit={submit} aria-label="Sign in with SSO">
      {notice}
      <TextField label="Work email" id="sso-email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} hint="We send you to your organisation's sign-in page." />
      <FormError error={start.error} />
      <button type="submit" className="button button--primary button--block" disabled={start.isPending || start.isSuccess}>
        {start.isPending || start.isSuccess ? 'Opening your sign-in page…' : 'Continue with SSO'}
      </button>
      <button type="button" className="button button--ghost button--block" onClick={onPassword}>
        Sign in with a password instead
      </button>
    </form>
  );
}

function LoginForm({ notice }: { notice?: ReactNode }) {
  const navigate = useNavigate();
  const next = internalPath(useSearch({ strict: false }).next);
  const login = useMutation(loginMutation(useQueryClient()));
  const sendCode = useMutation(sendEmailOtpMutation());
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [withSso, setWithSso] = useState(false);

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
      {withSso || signsInWithSso(login.error) ? (
        <SsoForm
          email={email}
          setEmail={setEmail}
          notice={signsInWithSso(login.error) && <FormError error={login.error} />}
          onPassword={() => {
            login.reset();
            setWithSso(false);
          }}
        />
      ) : (
      <>
      <GoogleSignIn purpose="signin" onSignedIn={() => (next ? navigate({ href: next }) : navigate({ to: '/dashboard' }))} />
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
        <button type="button" className="button button--ghost button--block" onClick={() => setWithSso(true)}>
          Sign in with SSO
        </button>
      </form>
      </>
      )}
    </AuthCard>
  );
}
