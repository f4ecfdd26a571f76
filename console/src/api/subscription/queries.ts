// Subscription queries. Plans change rarely: once loaded they are not fetched again.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { Plan } from './types.ts';

export const subscriptionKeys = {
  all: ['subscription'] as const,
  plans: () => [...subscriptionKeys.all, 'plans'] as const,
};

export const plansQuery = () =>
  queryOptions({
    queryKey: subscriptionKeys.plans(),
    queryFn: ({ signal }) => apiData<Plan[]>('GET', '/subscription/plans', { signal, fallback: 'Failed to fetch plans' }),
    staleTime: Number.POSITIVE_INFINITY,
  });
