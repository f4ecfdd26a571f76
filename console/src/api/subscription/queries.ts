// Subscription queries. Plans change rarely: once loaded they are not fetched again.
// A checkout is read afresh on each visit of a billing page.
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiData } from '../client.ts';
import type { CheckoutSession, Plan } from './types.ts';

export const subscriptionKeys = {
  all: ['subscription'] as const,
  plans: () => [...subscriptionKeys.all, 'plans'] as const,
  checkout: (sessionId: string) => [...subscriptionKeys.all, 'checkout', sessionId] as const,
};

export const plansQuery = () =>
  queryOptions({
    queryKey: subscriptionKeys.plans(),
    queryFn: ({ signal }) => apiData<Plan[]>('GET', '/subscription/plans', { signal, fallback: 'Failed to fetch plans' }),
    staleTime: Number.POSITIVE_INFINITY,
  });

export const checkoutQuery = (sessionId: string) =>
  queryOptions({
    queryKey: subscriptionKeys.checkout(sessionId),
    queryFn: ({ signal }) =>
      apiData<CheckoutSession>('GET', `/subscription/checkout/${encodeURIComponent(sessionId)}`, { signal, fallback: 'Failed to fetch the checkout' }),
    // An answer in 4xx is the server's word (no such checkout): asking again changes nothing.
    retry: (failures, error) => failures < 1 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
    staleTime: 0,
  });
