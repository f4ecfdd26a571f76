// /sso/callback: where a team's identity provider sends the browser back after signing in.
// Its query goes to the API once (a state works once); the session it answers is stored and
// the dashboard opens. A refusal says why, with the way back to /login.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { finishSsoMutation } from '../../api/sso/mutations.ts';
import { AuthCard, FormError } from './AuthCard.tsx';

export function SsoCallbackScreen() {
  const navigate = useNavigate();
  const finish = useMutation(finishSsoMutation(useQueryClient()));
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    const params = Object.fromEntries(new URLSearchParams(window.location.search));
    finish.mutate(params, { onSuccess: () => navigate({ to: '/dashboard', replace: true }) });
  }, [finish, navigate]);

  return (
    <AuthCard
      title="Signing you in"
      subtitle={finish.isError ? 'Your organisation’s sign-in did not go through.' : 'Finishing single sign-on with your organisation…'}
      footer={
        <Link to="/login" className="text-link">
          Back to log in
        </Link>
      }
    >
      <FormError error={finish.error} />
      {!finish.isError && (
        <p className="auth__aside" role="status">
          One moment…
        </p>
      )}
    </AuthCard>
  );
}
