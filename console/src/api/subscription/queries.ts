// Subscription queries. Plans change rarely: once loaded they are not fetched again.
// A checkout is read afresh on each visit of a billing page. The account's subscription,
// payment methods, invoices and usage are read by the subscription screen's panels.
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiData } from '../client.ts';
import type { CheckoutSession, CurrentSubscription, Invoice, InvoiceDetail, PaymentMethod, Plan, SubscriptionUsage } from './types.ts';

export const subscriptionKeys = {
  all: ['subscription'] as const,
  plans: () => [...subscriptionKeys.all, 'plans'] as const,
  checkout: (sessionId: string) => [...subscriptionKeys.all, 'checkout', sessionId] as const,
  current: () => [...subscriptionKeys.all, 'current'] as const,
  paymentMethods: () => [...subscriptionKeys.all, 'payment-methods'] as const,
  invoices: () => [...subscriptionKeys.all, 'invoices'] as const,
  invoice: (invoiceId: string) => [...subscriptionKeys.all, 'invoice', invoiceId] as const,
  usage: (period: string) => [...subscriptionKeys.all, 'usage', period] as const,
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

export const currentSubscriptionQuery = () =>
  queryOptions({
    queryKey: subscriptionKeys.current(),
    queryFn: ({ signal }) => apiData<CurrentSubscription>('GET', '/subscription/current', { signal, fallback: 'Failed to fetch the subscription' }),
  });

export const paymentMethodsQuery = () =>
  queryOptions({
    queryKey: subscriptionKeys.paymentMethods(),
    queryFn: ({ signal }) => apiData<PaymentMethod[]>('GET', '/subscription/payment-methods', { signal, fallback: 'Failed to fetch payment methods' }),
  });

export const invoicesQuery = () =>
  queryOptions({
    queryKey: subscriptionKeys.invoices(),
    queryFn: ({ signal }) => apiData<Invoice[]>('GET', '/subscription/billing', { signal, fallback: 'Failed to fetch billing history' }),
  });

export const invoiceQuery = (invoiceId: string) =>
  queryOptions({
    queryKey: subscriptionKeys.invoice(invoiceId),
    queryFn: ({ signal }) => apiData<InvoiceDetail>('GET', `/subscription/invoice/${encodeURIComponent(invoiceId)}`, { signal, fallback: 'Failed to fetch the invoice' }),
  });

/** `period`: 'current', the billing period under way. */
export const usageQuery = (period = 'current') =>
  queryOptions({
    queryKey: subscriptionKeys.usage(period),
    queryFn: ({ signal }) => apiData<SubscriptionUsage>('GET', '/subscription/usage', { signal, query: { period }, fallback: 'Failed to fetch usage' }),
  });
