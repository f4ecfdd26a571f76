/**
 * /dashboard/settings/account: the signed-in account as the API has it (GET /auth/profile):
 * its name, its avatar (an uploaded picture, shrunk in the browser, or an https URL), its
 * e-mail and whether that is verified (with a way to verify it), how it signs in
 * (GET /auth/sign-in-methods: password, Google, its teams' identity providers) and a
 * password change (for an account without a password, the way to set one). Each form
 * saves on its own, with its own loading flag and message.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type ChangeEvent, type FormEvent, useState } from 'react';
import { changePasswordMutation, sendEmailOtpMutation, updateProfileMutation } from '../../api/auth/mutations.ts';
import { profileQuery, signInMethodsQuery, signInOptionsQuery } from '../../api/auth/queries.ts';
import type { ProfileAnswer, SignInMethods } from '../../api/auth/types.ts';
import { FormError } from '../auth/AuthCard.tsx';
import { hasProblems, type Problems } from '../team/validation.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { TextInput } from '../ui/Field.tsx';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { ACCEPTED_IMAGE_TYPES, AvatarImageError, avatarFromFile } from './avatar-image.ts';
import { validateAvatarUrl, validateName, validatePasswordChange } from './validation.ts';
import '../../styles/settings.css';
import { Badge } from '../ui/Badge.tsx';

type User = ProfileAnswer['user'];

export function AccountScreen() {
  const profile = useQuery(profileQuery());
  return (
    <ScreenFrame title="Account" description="How you sign in and how your team sees you.">
      {profile.isPending ? (
        <LoadingState label="Loading your account…" />
      ) : profile.isError ? (
        <ErrorState error={profile.error} onRetry={() => profile.refetch()} retrying={profile.isRefetching} />
      ) : (
        <div className="settings-stack">
          <ProfileForm key={profile.data.user.id} user={profile.data.user} />
          <AvatarSettings user={profile.data.user} />
          <EmailVerification user={profile.data.user} />
          <SignInMethodsPanel />
        </div>
      )}
    </ScreenFrame>
  );
}

const linkedDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });

/** How the account signs in, then the password panel that fits it: a change, or how to set one. */
function SignInMethodsPanel() {
  const methods = useQuery(signInMethodsQuery());
  if (methods.isPending) return <LoadingState label="Loading how you sign in…" />;
  if (methods.isError) return <ErrorState error={methods.error} title="How you sign in could not be loaded" onRetry={() => methods.refetch()} retrying={methods.isFetching} />;
  return (
    <>
      <SignInMethodList methods={methods.data} />
      {methods.data.password ? <PasswordForm /> : <NoPassword />}
    </>
  );
}

function SignInMethodList({ methods }: { methods: SignInMethods }) {
  // Google is listed when linked, or when this server offers it.
  const googleOffered = useQuery(signInOptionsQuery()).data?.google != null;
  return (
    <section className="settings-panel" aria-labelledby="sign-in-methods-title">
      <h2 id="sign-in-methods-title" className="settings-panel__title">
        Sign-in methods
      </h2>
      <ul className="sign-in-methods">
        <li>
          <strong>Password</strong> <Badge tone={methods.password ? 'good' : 'neutral'}>{methods.password ? 'Set' : 'Not set'}</Badge>
        </li>
        {(methods.google || googleOffered) && (
          <li>
            <strong>Google</strong> <Badge tone={methods.google ? 'good' : 'neutral'}>{methods.google ? 'Linked' : 'Not linked'}</Badge>{' '}
            {!methods.google && <span className="settings-panel__text">Signing in with Google once, with this e-mail, links it.</span>}
          </li>
        )}
        {methods.singleSignOn.map((link) => (
          <li key={link.teamId}>
            <strong>Single sign-on for {link.teamName}</strong> <Badge tone="good">Linked</Badge>{' '}
            <span className="settings-panel__text">
              at {new URL(link.issuer).host} since {linkedDate.format(new Date(link.linkedAt))}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** An account made by Google or an identity provider has no password until a reset code sets one. */
function NoPassword() {
  return (
    <section className="settings-panel" aria-labelledby="no-password-title">
      <h2 id="no-password-title" className="settings-panel__title">
        Password
      </h2>
      <p className="settings-panel__text">Your account has no password: you sign in with Google or single sign-on. To add one, have a reset code sent to your e-mail.</p>
      <Link to="/forgot-password" className="button button--ghost">
        Set a password
      </Link>
    </section>
  );
}

function Saved({ show, children }: { show: boolean; children: string }) {
  return show ? (
    <p className="alert alert--success" role="status">
      {children}
    </p>
  ) : null;
}

function ProfileForm({ user }: { user: User }) {
  const update = useMutation(updateProfileMutation(useQueryClient()));
  const [name, setName] = useState(user.name);
  const [problems, setProblems] = useState<Problems<'name'>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validateName(name);
    setProblems(found);
    if (hasProblems(found)) return;
    update.mutate({ name: name.trim() });
  };

  return (
    <form className="settings-panel" onSubmit={submit} aria-label="Profile" noValidate>
      <h2 className="settings-panel__title">Profile</h2>
      <TextInput label="Name" id="account-name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} error={problems.name} />
      <TextInput label="E-mail" id="account-email" type="email" value={user.email} readOnly hint="Your e-mail is how you sign in; it cannot be changed here." />
      <FormError error={update.error} />
      <Saved show={update.isSuccess}>Your name has been saved.</Saved>
      <button type="submit" className="button button--primary" disabled={update.isPending}>
        {update.isPending ? 'Saving…' : 'Save name'}
      </button>
    </form>
  );
}

function AvatarSettings({ user }: { user: User }) {
  const queryClient = useQueryClient();
  // One mutation per way of changing it, so each shows its own progress.
  const upload = useMutation(updateProfileMutation(queryClient));
  const fromUrl = useMutation(updateProfileMutation(queryClient));
  const removal = useMutation(updateProfileMutation(queryClient));
  const [uploadProblem, setUploadProblem] = useState<string>();
  const [url, setUrl] = useState('');
  const [problems, setProblems] = useState<Problems<'avatarUrl'>>({});
  const [preparing, setPreparing] = useState(false);

  const chooseFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setUploadProblem(undefined);
    setPreparing(true);
    try {
      const avatar = await avatarFromFile(file);
      upload.mutate({ avatar });
    } catch (error) {
      setUploadProblem(error instanceof AvatarImageError ? error.message : 'This image could not be used');
    } finally {
      setPreparing(false);
    }
  };

  const useUrl = (event: FormEvent) => {
    event.preventDefault();
    const found = validateAvatarUrl(url);
    setProblems(found);
    if (hasProblems(found)) return;
    fromUrl.mutate({ avatar: url.trim() }, { onSuccess: () => setUrl('') });
  };

  return (
    <section className="settings-panel" aria-labelledby="avatar-title">
      <h2 id="avatar-title" className="settings-panel__title">
        Avatar
      </h2>
      <div className="account-avatar">
        <Avatar name={user.name} email={user.email} avatar={user.avatar} large label={user.avatar ? 'Your avatar' : 'Your initials: no avatar yet'} />
        <div className="account-avatar__choices">
          <div className="form-field">
            <label className="form-field__label" htmlFor="avatar-file">
              Upload a picture
            </label>
            <input
              id="avatar-file"
              type="file"
              accept={ACCEPTED_IMAGE_TYPES.join(',')}
              disabled={preparing || upload.isPending}
              aria-describedby="avatar-file-hint"
              onChange={chooseFile}
            />
            <p id="avatar-file-hint" className="form-field__help">
              {preparing ? 'Preparing the picture…' : upload.isPending ? 'Uploading…' : 'PNG, JPEG, GIF or WebP; it is cropped to a square.'}
            </p>
          </div>
          {uploadProblem && (
            <p className="alert alert--error" role="alert">
              {uploadProblem}
            </p>
          )}
          <FormError error={upload.error} />
          <Saved show={upload.isSuccess}>Your new avatar has been saved.</Saved>
        </div>
      </div>
      <form className="account-avatar__url" onSubmit={useUrl} aria-label="Avatar from a URL" noValidate>
        <TextInput
          label="Or use an image URL"
          id="avatar-url"
          type="url"
          placeholder="https://…"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={problems.avatarUrl}
        />
        <button type="submit" className="button button--ghost" disabled={fromUrl.isPending}>
          {fromUrl.isPending ? 'Saving…' : 'Use this URL'}
        </button>
      </form>
      <FormError error={fromUrl.error} />
      <Saved show={fromUrl.isSuccess}>Your avatar now shows that image.</Saved>
      {user.avatar && (
        <button type="button" className="button button--ghost" disabled={removal.isPending} onClick={() => removal.mutate({ avatar: null })}>
          {removal.isPending ? 'Removing…' : 'Remove avatar'}
        </button>
      )}
      <FormError error={removal.error} />
    </section>
  );
}

function EmailVerification({ user }: { user: User }) {
  const navigate = useNavigate();
  const send = useMutation(sendEmailOtpMutation());
  return (
    <section className="settings-panel" aria-labelledby="verification-title">
      <h2 id="verification-title" className="settings-panel__title">
        E-mail verification{' '}
        {user.emailVerified ? <Badge tone="good">Verified</Badge> : <Badge tone="warning">Not verified</Badge>}
      </h2>
      <p className="settings-panel__text">
        {user.emailVerified
          ? `${user.email} is verified: invitations, alerts and password resets reach you there.`
          : `${user.email} is not verified yet. We will send a six-digit code to it.`}
      </p>
      {!user.emailVerified && (
        <>
          <FormError error={send.error} />
          <button
            type="button"
            className="button button--primary"
            disabled={send.isPending}
            onClick={() => send.mutate(user.email, { onSuccess: () => navigate({ to: '/verify', search: { email: user.email } }) })}
          >
            {send.isPending ? 'Sending code…' : 'Verify my e-mail'}
          </button>
        </>
      )}
    </section>
  );
}

function PasswordForm() {
  const change = useMutation(changePasswordMutation());
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [problems, setProblems] = useState<Problems<'currentPassword' | 'newPassword' | 'confirmation'>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = validatePasswordChange({ currentPassword, newPassword, confirmation });
    setProblems(found);
    if (hasProblems(found)) return;
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: () => {
          setCurrentPassword('');
          setNewPassword('');
          setConfirmation('');
        },
      },
    );
  };

  return (
    <form className="settings-panel" onSubmit={submit} aria-label="Change password" noValidate>
      <h2 className="settings-panel__title">Password</h2>
      <p className="settings-panel__text">Changing it signs you out everywhere else.</p>
      <TextInput
        label="Current password"
        id="current-password"
        type="password"
        autoComplete="current-password"
        value={currentPassword}
        onChange={(e) => setCurrentPassword(e.target.value)}
        error={problems.currentPassword}
      />
      <TextInput
        label="New password"
        id="new-password"
        type="password"
        autoComplete="new-password"
        hint="At least 8 characters, not a common password."
        value={newPassword}
        onChange={(e) => setNewPassword(e.target.value)}
        error={problems.newPassword}
      />
      <TextInput
        label="Confirm new password"
        id="confirm-password"
        type="password"
        autoComplete="new-password"
        value={confirmation}
        onChange={(e) => setConfirmation(e.target.value)}
        error={problems.confirmation}
      />
      <FormError error={change.error} />
      <Saved show={change.isSuccess}>Your password has been changed.</Saved>
      <button type="submit" className="button button--primary" disabled={change.isPending}>
        {change.isPending ? 'Changing password…' : 'Change password'}
      </button>
    </form>
  );
}
