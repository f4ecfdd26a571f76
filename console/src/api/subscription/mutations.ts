/**
 * Subscription mutations (spec §7) and their cache transitions (spec §4): changing the
 * plan or cancelling sets the current subscription from the answer (and this period's
 * usage is read again); removing a payment method filters it out of the list; saving
 * one or making it the default reads the list again (the default moves). A checkout
 * answers the payment page's URL, which the caller opens.
 */
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { subscriptionKeys } from './queries.ts';
import type { CheckoutStart, CurrentSubscription, PaymentMethod, SetupIntent } from './types.ts';

function subscriptionChanged(queryClient: QueryClient, subscription: CurrentSubscription) {
  queryClient.setQueryData(subscriptionKeys.current(), subscription);
  void queryClient.invalidateQueries({ queryKey: subscriptionKeys.usage('current') });
}

export const createCheckoutSessionMutation = () =>
  mutationOptions({
    mutationKey: ['subscription', 'checkout'],
    mutationFn: (planId: string) => apiData<CheckoutStart>('POST', '/subscription/create-checkout-session', { body: { planId }, fallback: 'Failed to start checkout' }),
  });

export const changePlanMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['subscription', 'change-plan'],
    mutationFn: (planId: string) => apiData<CurrentSubscription>('POST', '/subscription/change-plan', { body: { planId }, fallback: 'Failed to change plan' }),
    onSuccess: (subscription) => subscriptionChanged(queryClient, subscription),
  });

/** `immediate`: ends it now; otherwise at the end of the period already paid for. */
export const cancelSubscriptionMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['subscription', 'cancel'],
    mutationFn: (immediate: boolean) => apiData<CurrentSubscription>('POST', '/subscription/cancel', { body: { immediate }, fallback: 'Failed to cancel subscription' }),
    onSuccess: (subscription) => subscriptionChanged(queryClient, subscription),
  });

/**
 * Adds a card: a SetupIntent (create-setup-intent, no body) that `confirmCard` confirms
 * with a card, answering its payment method, which save-payment-method saves (the first
 * card becomes the default). `confirmCard` is the card seam (billing/card-setup.ts): with
 * Stripe.js it is Elements' confirmation.
 */
export const addPaymentMethodMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['subscription', 'add-payment-method'],
    mutationFn: async (confirmCard: (intent: SetupIntent) => Promise<string>) => {
      const intent = await apiData<SetupIntent>('POST', '/subscription/create-setup-intent', { fallback: 'Failed to start adding a card' });
      const paymentMethodId = await confirmCard(intent);
      return apiData<PaymentMethod>('POST', '/subscription/save-payment-method', { body: { paymentMethodId }, fallback: 'Failed to save payment method' });
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: subscriptionKeys.paymentMethods() });
      void queryClient.invalidateQueries({ queryKey: subscriptionKeys.current() });
    },
  });

export const removePaymentMethodMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['subscription', 'remove-payment-method'],
    mutationFn: async (paymentMethodId: string) => {
      await apiData<unknown>('DELETE', `/subscription/payment-method/${encodeURIComponent(paymentMethodId)}`, { fallback: 'Failed to remove payment method' });
      return paymentMethodId;
    },
    onSuccess: (removed) =>
      queryClient.setQueryData<PaymentMethod[]>(subscriptionKeys.paymentMethods(), (methods) => methods?.filter((method) => method.id !== removed)),
  });

export const makeDefaultPaymentMethodMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['subscription', 'default-payment-method'],
    mutationFn: (paymentMethodId: string) =>
      apiData<PaymentMethod>('POST', '/subscription/payment-method', { body: { paymentMethodId }, fallback: 'Failed to update default payment method' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: subscriptionKeys.paymentMethods() }),
  });
