// Auth queries: the signed-in account as the API has it now (GET /auth/profile), and the
// ways to sign in the server offers besides a password (GET /auth/sign-in-options).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { ProfileAnswer, SignInOptions } from './types.ts';

export const authKeys = {
  all: ['auth'] as const,
  profile: () => [...authKeys.all, 'profile'] as const,
  signInOptions: () => [...authKeys.all, 'sign-in-options'] as const,
};

export const profileQuery = () =>
  queryOptions({
    queryKey: authKeys.profile(),
    queryFn: ({ signal }) => apiData<ProfileAnswer>('GET', '/auth/profile', { signal, fallback: 'Failed to fetch profile' }),
  });

/** Server configuration: fetched once per page. */
export const signInOptionsQuery = () =>
  queryOptions({
    queryKey: authKeys.signInOptions(),
    queryFn: ({ signal }) => apiData<SignInOptions>('GET', '/auth/sign-in-options', { signal, fallback: 'Failed to get the ways to sign in' }),
    staleTime: Number.POSITIVE_INFINITY,
  });
