// Subscription answers (spec §7). Plans as GET /subscription/plans answers them, a checkout
// as GET /subscription/checkout/{sessionId} does; the account's subscription, its payment
// methods, invoices and this period's usage as the Stripe-facing and billing calls do
// (gateway/src/api/answers.ts).
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

/** POST /subscription/create-checkout-session: Stripe Checkout's page for the session, where the browser goes. */
export interface CheckoutStart {
  sessionId: string;
  url: string;
}

export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'paused' | 'canceled';

/** GET /subscription/current (and, with more, the answer of change-plan and cancel): the account's own subscription. */
export interface CurrentSubscription {
  id: string;
  /** The plan's slug. */
  plan: string;
  planName: string;
  status: SubscriptionStatus;
  trialEnd: string | null;
  isTrialing: boolean;
  currentPeriodStart: string | null;
  currentPeriodEnd: string | null;
  /** Cancelled for the end of the period: it stays as it is until then. */
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  /** Whether a default card is saved (what billing after the trial needs). */
  hasPaymentMethod: boolean;
}

/** A saved card; `id` is its Stripe payment method id (pm_…). */
export interface PaymentMethod {
  id: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  isDefault: boolean;
  createdAt: string;
}

/** POST /subscription/create-setup-intent: what Stripe.js needs to collect a card. */
export interface SetupIntent {
  setupIntentId: string;
  clientSecret: string;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void';

export type InvoiceLineKind =
  | 'plan'
  | 'optimised-uplift'
  | 'optimised-minimum-fee'
  | 'byom-routing-fee'
  | 'advisor-insights'
  | 'extra-keys'
  | 'extra-groups'
  | 'extra-seats'
  | 'recorded-usage';

/** What usage recorded through POST /subscription/record-usage counts. */
export type RecordedMeter = 'byom-requests' | 'optimised-minimum-requests' | 'advisor-insights';

/** The plan a subscription is on. */
export interface PlanRef {
  slug: string;
  name: string;
}

/** One line of an invoice, or of a period priced so far. */
export interface InvoiceLine {
  kind: InvoiceLineKind;
  /** The meter a recorded-usage line counts; null for every other line. */
  meter: RecordedMeter | null;
  /** The team whose usage it counts; null for the plan fee. */
  teamId: string | null;
  planSlug: string | null;
  windowStart: string;
  windowEnd: string;
  description: string;
  /** Requests, insights, 1 for a plan, or the most extra units live at once. */
  quantity: number;
  unitAmountMicros: string | null;
  amountMicros: string;
  amountPence: number;
  /** Requests in it whose cost was unknown: counted, billed nothing. */
  unpricedRequests: number;
  /** An adjustment line: usage of an earlier invoice's window recorded after it was built, billed here; null for every other line. */
  adjusts: { invoiceId: string; number: string; arrivedFrom: string } | null;
}

/** One invoice of GET /subscription/billing, newest period first. */
export interface Invoice {
  id: string;
  /** Given when it is finalised, gap-free per year (SG-2026-000001); null for a draft. */
  number: string | null;
  status: InvoiceStatus;
  currency: 'GBP';
  periodStart: string;
  periodEnd: string;
  billedUntil: string;
  /** The sum of the lines' pence. */
  totalPence: number;
  createdAt: string;
  finalizedAt: string | null;
  paidAt: string | null;
  voidedAt: string | null;
  /** The nightly proof: when it last recounted the invoice and whether every line still equalled what it counts. */
  proof: { checkedAt: string | null; ok: boolean | null };
}

/** GET /subscription/invoice/{invoiceId}. */
export interface InvoiceDetail extends Invoice {
  lines: (InvoiceLine & {
    id: string;
    counts: 'usage-events' | 'advisor-insights' | 'usage-records' | 'plan-units' | null;
    itemsUrl: string | null;
    proof: { foundQuantity: number | null; foundMicros: string | null };
  })[];
}

/** A plan allowance of a team: `included` null is unlimited; `extra` the units past it. */
export interface Allowance {
  used: number;
  included: number | null;
  extra: number;
  canAddMore: boolean;
}

export interface Allowances {
  seats: Allowance;
  syntheticGroups: Allowance;
  optimisedKeys: Allowance;
}

/** GET /subscription/usage?period=current: the billing period priced as its invoice would be, with each team's allowances. */
export interface SubscriptionUsage {
  /** `until`: how far it is counted; `trial`: the free trial, of which nothing is charged. */
  period: { start: string; end: string; until: string; trial: boolean };
  plan: PlanRef;
  status: SubscriptionStatus;
  charged: boolean;
  currency: 'GBP';
  lines: InvoiceLine[];
  totalPence: number;
  teams: { teamId: string; name: string; allowances: Allowances }[];
}
