/**
 * /verify: the six-digit code sent by e-mail.
 *   ?purpose=reset — a password-reset code: it is checked when the new password is set,
 *                    so this screen passes it on to /update-password;
 *   otherwise      — confirms the signed-in account's e-mail; the full session it answers
 *                    replaces the unverified one and the dashboard opens.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { sendEmailOtpMutation, sendPasswordResetMutation, verifyEmailOtpMutation } from '../../api/auth/mutations.ts';
import { useSession } from '../../shared/session.ts';
import { AuthCard, FormError, TextField } from './AuthCard.tsx';

export function VerifyScreen() {
  const search = useSearch({ strict: false });
  const session = useSession();
  const email = search.email ?? session.user?.email ?? '';
  const resetting = search.purpose === 'reset';
  const navigate = useNavigate();
  const verify = useMutation(verifyEmailOtpMutation(useQueryClient()));
  const resend = useMutation(resetting ? sendPasswordResetMutation() : sendEmailOtpMutation());
  const [otp, setOtp] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (resetting) {
      void navigate({ to: '/update-password', search: { email, otp } });
      return;
    }
    verify.mutate({ email, otp }, { onSuccess: (answer) => navigate({ to: answer.user ? '/dashboard' : '/login' }) });
  };

  return (
    <AuthCard
      title="Check your e-mail"
      subtitle={email ? `We sent a six-digit code to ${email}. It expires in 10 minutes.` : 'Enter the six-digit code we sent you.'}
      footer={
        <Link to={resetting ? '/forgot-password' : '/login'} className="text-link">
          Start again
        </Link>
      }
    >
      <form className="auth__form" onSubmit={submit} aria-label="Verify">
        <TextField
          label="Verification code"
          id="otp"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          maxLength={6}
          required
          value={otp}
          onChange={(e) => setOtp(e.target.value.replace(/\D/g, ''))}
        />
        <FormError error={verify.error ?? resend.error} />
        {resend.isSuccess && (
          <p className="alert alert--success" role="status">
            A new code is on its way.
          </p>
        )}
        <button type="submit" className="button button--primary button--block" disabled={verify.isPending || !email}>
          {verify.isPending ? 'Verifying…' : resetting ? 'Continue' : 'Verify'}
        </button>
        <button type="button" className="button button--ghost button--block" disabled={resend.isPending || !email} onClick={() => resend.mutate(email)}>
          Send a new code
        </button>
      </form>
    </AuthCard>
  );
}
