/**
 * Auth mutations. Register, login and a verified e-mail store the session they receive;
 * logout clears it. Each carries the spec's fallback message for when the server gives none.
 */
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { clearSession, readToken, saveSession } from '../../shared/session.ts';
import { apiData } from '../client.ts';
import { authKeys } from './queries.ts';
import type { GoogleSessionAnswer, LoginInput, OtpAnswer, OtpCheck, PasswordChange, PasswordReset, ProfileAnswer, ProfileChanges, RegisterInput, SessionAnswer } from './types.ts';

// The query client comes from the caller (useQueryClient): the dashboard bundle must
// use the site's cache, not a copy of its own.
/** Stores a session the API answered (any sign-in: password, code, Google, single sign-on), with a fresh cache. */
export const startSession = (queryClient: QueryClient) => <A extends SessionAnswer>(answer: A): A => {
  queryClient.clear();
  saveSession(answer.token, answer.user);
  return answer;
};

export const registerMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['auth', 'register'],
    mutationFn: ({ planId, ...user }: RegisterInput) =>
      apiData<SessionAnswer>('POST', '/auth/register', { query: { planId }, body: user, fallback: 'Registration failed' }).then(startSession(queryClient)),
  });

export const loginMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['auth', 'login'],
    mutationFn: (credentials: LoginInput) =>
      apiData<SessionAnswer>('POST', '/auth/login', { body: credentials, fallback: 'Login failed' }).then(startSession(queryClient)),
  });

/** Signs in with the ID token Google's button handed over; a new account starts `planId`'s trial. */
export const googleSignInMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['auth', 'google'],
    mutationFn: ({ token, planId }: { token: string; planId?: string }) =>
      apiData<GoogleSessionAnswer>('POST', '/auth/google', { query: { planId }, body: { token }, fallback: 'Google sign-in failed' }).then(startSession(queryClient)),
  });

/** A code to confirm the e-mail of the signed-in (or just registered) account. */
export const sendEmailOtpMutation = () =>
  mutationOptions({
    mutationKey: ['auth', 'send-email-otp'],
    mutationFn: (email: string) => apiData<null>('POST', '/auth/send-email-otp', { body: { email }, fallback: 'Failed to send OTP' }),
  });

/** Confirms the signed-in account's e-mail; the full session it answers replaces the unverified one. */
export const verifyEmailOtpMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['auth', 'verify-email-otp'],
    mutationFn: (check: OtpCheck) =>
      apiData<OtpAnswer>('POST', '/auth/verify-email-otp', { body: check, fallback: 'OTP verification failed' }).then((answer) => {
        if (answer.user) startSession(queryClient)(answer);
        return answer;
      }),
  });

/** Forgot password, first step: a reset code to the e-mail. */
export const sendPasswordResetMutation = () =>
  mutationOptions({
    mutationKey: ['auth', 'forgot-password'],
    mutationFn: (email: string) => apiData<null>('POST', '/auth/forgot-password', { body: { email }, fallback: 'Failed to send OTP' }),
  });

export const resetPasswordMutation = () =>
  mutationOptions({
    mutationKey: ['auth', 'reset-password'],
    mutationFn: (reset: PasswordReset) => apiData<unknown>('POST', '/auth/reset-password', { body: reset, fallback: 'Password update failed' }),
  });

/** Changes the password: every other session ends, and the new token it answers keeps this one. */
export const changePasswordMutation = () =>
  mutationOptions({
    mutationKey: ['auth', 'update-password'],
    mutationFn: (change: PasswordChange) =>
      apiData<SessionAnswer>('PATCH', '/auth/update-password', { body: change, fallback: 'Password update failed' }).then((answer) => {
        saveSession(answer.token, answer.user);
        return answer;
      }),
  });

/** Changes the name or avatar: the profile and the stored user (the navbar's avatar) follow. */
export const updateProfileMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['auth', 'update-profile'],
    mutationFn: (changes: ProfileChanges) => apiData<ProfileAnswer>('PATCH', '/auth/update-profile', { body: changes, fallback: 'Failed to update profile' }),
    onSuccess: (answer) => {
      queryClient.setQueryData(authKeys.profile(), answer);
      const token = readToken();
      if (token) saveSession(token, answer.user);
    },
  });

/** Signs out: forgets the session and every cached answer. */
export function logout(queryClient: QueryClient): void {
  clearSession();
  queryClient.clear();
}
