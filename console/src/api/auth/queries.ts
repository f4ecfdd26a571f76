// Auth queries: the signed-in account as the API has it now (GET /auth/profile).
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { ProfileAnswer } from './types.ts';

export const authKeys = {
  all: ['auth'] as const,
  profile: () => [...authKeys.all, 'profile'] as const,
};

export const profileQuery = () =>
  queryOptions({
    queryKey: authKeys.profile(),
    queryFn: ({ signal }) => apiData<ProfileAnswer>('GET', '/auth/profile', { signal, fallback: 'Failed to fetch profile' }),
  });
