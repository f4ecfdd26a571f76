// Auth queries: the signed-in account as the API has it now (GET /auth/profile) and how it
// signs in (GET /auth/sign-in-methods); the ways to sign in the server offers besides a
// password (GET /auth/sign-in-options); whether an address already has an account
// (POST /auth/check-email, asked once per address).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { EmailCheck, ProfileAnswer, SignInMethods, SignInOptions } from './types.ts';

export const authKeys = {
  all: ['auth'] as const,
  profile: () => [...authKeys.all, 'profile'] as const,
  signInOptions: () => [...authKeys.all, 'sign-in-options'] as const,
  signInMethods: () => [...authKeys.all, 'sign-in-methods'] as const,
  emailCheck: (email: string) => [...authKeys.all, 'check-email', email] as const,
};

export const profileQuery = () =>
  queryOptions({
    queryKey: authKeys.profile(),
    queryFn: ({ signal }) => apiData<ProfileAnswer>('GET', '/auth/profile', { signal, fallback: 'Failed to fetch profile' }),
  });

export const signInMethodsQuery = () =>
  queryOptions({
    queryKey: authKeys.signInMethods(),
    queryFn: ({ signal }) => apiData<SignInMethods>('GET', '/auth/sign-in-methods', { signal, fallback: 'Failed to get how you sign in' }),
  });

/** Server configuration: fetched once per page. */
export const signInOptionsQuery = () =>
  queryOptions({
    queryKey: authKeys.signInOptions(),
    queryFn: ({ signal }) => apiData<SignInOptions>('GET', '/auth/sign-in-options', { signal, fallback: 'Failed to get the ways to sign in' }),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** Whether `email` (lower-case) has an account; the server throttles asking, so an answer is kept for the page's life. */
export const emailCheckQuery = (email: string) =>
  queryOptions({
    queryKey: authKeys.emailCheck(email),
    queryFn: () => apiData<EmailCheck>('POST', '/auth/check-email', { body: { email }, fallback: 'Email check failed' }),
    staleTime: Number.POSITIVE_INFINITY,
  });
