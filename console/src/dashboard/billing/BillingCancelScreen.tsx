// /dashboard/billing/cancel: where a cancelled checkout returns; it says what the server
// answers for the checkout (CheckoutResult).
import { CheckoutResult } from './CheckoutResult.tsx';

export function BillingCancelScreen() {
  return <CheckoutResult returnedFrom="cancel" />;
}
