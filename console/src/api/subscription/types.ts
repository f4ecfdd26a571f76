// Subscription plans as GET /subscription/plans answers them, and a checkout as
// GET /subscription/checkout/{sessionId} does.
export interface Plan {
  id: string;
  name: string;
  slug: string;
  description: string;
  /** Monthly price in pounds, as the server sends it (number or decimal string). */
  price: number | string | null;
  features: string[];
  createdAt: string;
}

/** A payment provider's checkout: only `paymentStatus: 'paid'` means money was taken. */
export interface CheckoutSession {
  id: string;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required';
}
