// Subscription answers (spec §7). Plans as GET /subscription/plans answers them, a checkout
// as GET /subscription/checkout/{sessionId} does; the account's subscription, its payment
// methods, invoices and this period's usage as the Stripe-facing and billing calls do.
// Money is integer micro-units as decimal strings (`…Micros`), invoices in whole pence
// (`…Pence`); dates are ISO 8601.

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

/** POST /subscription/create-checkout-session: where to send the person to pay. */
export interface CheckoutStart {
  id: string;
  url: string;
}

export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'paused' | 'canceled';

/** GET /subscription/current (and the answer of change-plan and cancel). */
export interface CurrentSubscription {
  id: string;
  planId: string;
  plan: string;
  planName: string;
  status: SubscriptionStatus;
  trialEnd: string | null;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  /** Cancelled for the end of the period: it stays as it is until then. */
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  /** Whether a card is saved to pay with when the trial ends. */
  hasPaymentMethod: boolean;
}

export interface PaymentMethod {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  isDefault: boolean;
}

/** POST /subscription/create-setup-intent: a SetupIntent to confirm with a card. */
export interface SetupIntent {
  id: string;
  clientSecret: string;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void';

/** One invoice of GET /subscription/billing. */
export interface Invoice {
  id: string;
  number: string;
  status: InvoiceStatus;
  periodStart: string;
  periodEnd: string;
  currency: 'GBP';
  totalPence: string;
  createdAt: string;
}

export type InvoiceLineKind =
  | 'plan'
  | 'optimised-uplift'
  | 'optimised-minimum-fee'
  | 'byom-routing-fee'
  | 'advisor-insights'
  | 'extra-keys'
  | 'extra-groups'
  | 'extra-seats';

export interface InvoiceLine {
  id: string;
  kind: InvoiceLineKind;
  description: string;
  quantity: string;
  /** The price of one, when the line has one price (a fee, a key a month). */
  unitMicros: string | null;
  amountPence: string;
}

/** GET /subscription/invoice/{invoiceId}. */
export interface InvoiceDetail extends Invoice {
  lines: InvoiceLine[];
}

export type AllowanceKind = 'keys' | 'groups' | 'seats' | 'advisor-insights';
export type RequestFeeKind = 'optimised-uplift' | 'optimised-minimum-fee' | 'byom-routing-fee';

/** One allowance of the plan: what is used, what the plan includes (null: unlimited) and what the rest costs so far. */
export interface AllowanceUsage {
  kind: AllowanceKind;
  used: number;
  included: number | null;
  chargeMicros: string;
}

export interface RequestFeeUsage {
  kind: RequestFeeKind;
  requests: string;
  chargeMicros: string;
}

/** GET /subscription/usage?period=current: this billing period against the plan's allowances. */
export interface SubscriptionUsage {
  plan: string;
  periodStart: string;
  periodEnd: string;
  allowances: AllowanceUsage[];
  requestFees: RequestFeeUsage[];
  totalMicros: string;
}
