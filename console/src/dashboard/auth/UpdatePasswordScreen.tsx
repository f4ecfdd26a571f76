/**
 * /update-password: a new password. After a reset code (?email=&otp=) the code stands
 * for the old password; otherwise the signed-in user gives the current one.
 */
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { changePasswordMutation, resetPasswordMutation } from '../../api/auth/mutations.ts';
import { notify } from '../../shared/notifications.ts';
import { AuthCard, FormError, TextField } from './AuthCard.tsx';

export function UpdatePasswordScreen() {
  const { email, otp } = useSearch({ strict: false });
  const withResetCode = email !== undefined && otp !== undefined;
  const navigate = useNavigate();
  const reset = useMutation(resetPasswordMutation());
  const change = useMutation(changePasswordMutation());
  const update = withResetCode ? reset : change;
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const mismatch = confirmation.length > 0 && confirmation !== newPassword;

  const done = () => {
    notify('Your password has been updated.', 'success');
    void navigate({ to: withResetCode ? '/login' : '/dashboard' });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (mismatch) return;
    if (withResetCode) reset.mutate({ email, otp, newPassword }, { onSuccess: done });
    else change.mutate({ currentPassword, newPassword }, { onSuccess: done });
  };

  return (
    <AuthCard
      title="Choose a new password"
      subtitle="At least 8 characters. Other sessions are signed out when it changes."
      footer={
        <Link to="/login" className="text-link">
          Back to login
        </Link>
      }
    >
      <form className="auth__form" onSubmit={submit} aria-label="Update password">
        {!withResetCode && (
          <TextField
            label="Current password"
            id="currentPassword"
            type="password"
            autoComplete="current-password"
            required
            value={currentPassword}
            onChange={(e) => setCurrentPassword(e.target.value)}
          />
        )}
        <TextField
          label="New password"
          id="newPassword"
          type="password"
          autoComplete="new-password"
          minLength={8}
          required
          value={newPassword}
          onChange={(e) => setNewPassword(e.target.value)}
        />
        <TextField
          label="Confirm new password"
          id="confirmation"
          type="password"
          autoComplete="new-password"
          required
          value={confirmation}
          onChange={(e) => setConfirmation(e.target.value)}
          aria-invalid={mismatch}
        />
        {mismatch && <p className="form-field__error">The passwords do not match.</p>}
        <FormError error={update.error} />
        <button type="submit" className="button button--primary button--block" disabled={update.isPending || mismatch}>
          {update.isPending ? 'Saving…' : 'Update password'}
        </button>
      </form>
    </AuthCard>
  );
}
