// /forgot-password: sends a reset code to the e-mail, then asks for it on /verify.
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { sendPasswordResetMutation } from '../../api/auth/mutations.ts';
import { AuthCard, FormError, TextField } from './AuthCard.tsx';

export function ForgotPasswordScreen() {
  const navigate = useNavigate();
  const send = useMutation(sendPasswordResetMutation());
  const [email, setEmail] = useState('');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate(email, { onSuccess: () => navigate({ to: '/verify', search: { email, purpose: 'reset' } }) });
  };

  return (
    <AuthCard
      title="Reset your password"
      subtitle="Enter your account's e-mail and we'll send you a code to set a new password."
      footer={
        <Link to="/login" className="text-link">
          Back to login
        </Link>
      }
    >
      <form className="auth__form" onSubmit={submit} aria-label="Forgot password">
        <TextField label="Email" id="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <FormError error={send.error} />
        <button type="submit" className="button button--primary button--block" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send reset code'}
        </button>
      </form>
    </AuthCard>
  );
}
