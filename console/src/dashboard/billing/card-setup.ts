/**
 * The card seam: how a SetupIntent gets its card. With live Stripe this is Stripe.js
 * Elements (`stripe.confirmCardSetup(intent.clientSecret, { payment_method: { card } })`,
 * whose SetupIntent names the card's payment method); the console loads no remote
 * script, so here the card is one of Stripe's test payment methods, which
 * save-payment-method `{paymentMethodId}` saves in Stripe's test mode or the local fake.
 * Replacing TEST_CARDS' form with Elements' card field is the one change a live
 * deployment needs.
 */
import type { SetupIntent } from '../../api/subscription/types.ts';

export const TEST_CARDS = [
  { id: 'pm_card_visa', label: 'Visa •••• 4242 (test)' },
  { id: 'pm_card_mastercard', label: 'Mastercard •••• 4444 (test)' },
  { id: 'pm_card_amex', label: 'American Express •••• 8431 (test)' },
] as const;

/** Confirms the intent with the test card chosen: the server does it on save. */
export const confirmWithTestCard =
  (paymentMethodId: string) =>
  async (_intent: SetupIntent): Promise<string> =>
    paymentMethodId;
