// /dashboard/billing/success: where a checkout returns after payment; it says what the
// server answers for the checkout (CheckoutResult), never a payment taken for granted.
import { CheckoutResult } from './CheckoutResult.tsx';

export function BillingSuccessScreen() {
  return <CheckoutResult returnedFrom="success" />;
}
