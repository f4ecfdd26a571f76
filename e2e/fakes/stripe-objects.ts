/**
 * The objects the Stripe fake answers, each built whole by one function typed as the `stripe`
 * SDK's own type for it (generated from Stripe's OpenAPI description of the API version the
 * SDK pins), so the typecheck refuses an object missing a field Stripe always sends, or a
 * field of the wrong type or enum. `Wire<T>` is that type as JSON carries it (Stripe's
 * decimals travel as strings). Every object has its `object`, its id prefix and
 * `livemode: false`; lists are `{object: 'list', data, has_more, url}`.
 */
import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';

/** The API version the fake speaks: the one the SDK sends in `Stripe-Version`. */
export const FAKE_STRIPE_API_VERSION = '2026-10-28.endive';

/** A Stripe type as it travels in JSON: decimals are strings. */
export type Wire<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends Stripe.Decimal
    ? string
    : T extends (infer Item)[]
      ? Wire<Item>[]
      : T extends object
        ? { [K in keyof T]: Wire<T[K]> }
        : T;

export type WireCustomer = Wire<Stripe.Customer>;
export type WirePaymentMethod = Wire<Stripe.PaymentMethod>;
export type WirePrice = Wire<Stripe.Price>;
export type WireProduct = Wire<Stripe.Product>;
export type WireSession = Wire<Stripe.Checkout.Session>;
export type WireSetupIntent = Wire<Stripe.SetupIntent>;
export type WireSubscription = Wire<Stripe.Subscription>;
export type WireSubscriptionItem = Wire<Stripe.SubscriptionItem>;
export type WireInvoice = Wire<Stripe.Invoice>;
export type WireInvoiceLine = Wire<Stripe.InvoiceLineItem>;
export type WireInvoiceItem = Wire<Stripe.InvoiceItem>;
export type WireEvent = Wire<Stripe.EventBase>;
export type WireList<T> = { object: 'list'; data: T[]; has_more: boolean; url: string };

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `<prefix>_` and 24 random base-62 characters, as Stripe's ids look (cus_…, sub_…). */
export function stripeId(prefix: string, length = 24): string {
  return `${prefix}_${[...randomBytes(length)].map((byte) => BASE62[byte % 62]).join('')}`;
}

export function list<T>(data: T[], url: string, hasMore = false): WireList<T> {
  return { object: 'list', data, has_more: hasMore, url };
}

export function customer(fields: { email: string | null; name: string | null; description: string | null; metadata: Record<string, string>; created: number }): WireCustomer {
  return {
    id: stripeId('cus', 14),
    object: 'customer',
    address: null,
    balance: 0,
    created: fields.created,
    currency: null,
    customer_account: null,
    default_source: null,
    delinquent: false,
    description: fields.description,
    discount: null,
    email: fields.email,
    invoice_prefix: randomBytes(4).toString('hex').toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: fields.metadata,
    name: fields.name,
    next_invoice_sequence: 1,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

/** A test card as Stripe's `pm_card_*` tokens describe it. */
export interface TestCard {
  brand: 'visa' | 'mastercard' | 'amex';
  last4: string;
  funding: 'credit' | 'debit';
  /** Refused when saved (attached, confirmed on a SetupIntent). */
  declinedOnAttach: boolean;
  /** Saved, then every charge fails. */
  declinedOnCharge: boolean;
}

export function cardPaymentMethod(card: TestCard, fields: { created: number; customer: string | null }): WirePaymentMethod {
  return {
    id: stripeId('pm'),
    object: 'payment_method',
    allow_redisplay: 'unspecified',
    billing_details: { address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null }, email: null, name: null, phone: null, tax_id: null },
    card: {
      brand: card.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
      country: 'US',
      display_brand: card.brand,
      exp_month: 12,
      exp_year: new Date(fields.created * 1000).getUTCFullYear() + 3,
      fingerprint: randomBytes(8).toString('hex'),
      funding: card.funding,
      generated_from: null,
      last4: card.last4,
      networks: { available: [card.brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: fields.created,
    customer: fields.customer,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: 'card',
  };
}

export function product(fields: { name: string; created: number }): WireProduct {
  return {
    id: stripeId('prod', 14),
    object: 'product',
    active: true,
    created: fields.created,
    default_price: null,
    description: null,
    images: [],
    livemode: false,
    marketing_features: [],
    metadata: {},
    name: fields.name,
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    tax_details: null,
    type: 'service',
    unit_label: null,
    updated: fields.created,
    url: null,
  };
}

export function price(fields: {
  product: string;
  currency: string;
  unitAmount: number;
  interval: Stripe.Price.Recurring.Interval | null;
  lookupKey: string | null;
  nickname: string | null;
  metadata: Record<string, string>;
  created: number;
}): WirePrice {
  return {
    id: stripeId('price'),
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created: fields.created,
    currency: fields.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: fields.lookupKey,
    metadata: fields.metadata,
    nickname: fields.nickname,
    product: fields.product,
    recurring: fields.interval && { interval: fields.interval, interval_count: 1, meter: null, trial_period_days: null, usage_type: 'licensed' },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: fields.interval ? 'recurring' : 'one_time',
    unit_amount: fields.unitAmount,
    unit_amount_decimal: String(fields.unitAmount),
  };
}

/** The legacy Plan view of a recurring price, as subscription items still carry it. */
function planOf(price: WirePrice): Wire<Stripe.Plan> {
  return {
    id: price.id,
    object: 'plan',
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    interval: price.recurring?.interval ?? 'month',
    interval_count: 1,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  };
}

export function subscriptionItem(fields: { subscription: string; price: WirePrice; quantity: number; periodStart: number; periodEnd: number; created: number }): WireSubscriptionItem {
  return {
    id: stripeId('si', 14),
    object: 'subscription_item',
    billing_thresholds: null,
    created: fields.created,
    current_period_end: fields.periodEnd,
    current_period_start: fields.periodStart,
    current_trial: null,
    discounts: [],
    metadata: {},
    plan: planOf(fields.price),
    price: fields.price,
    quantity: fields.quantity,
    subscription: fields.subscription,
    tax_rates: [],
  };
}

export function subscription(fields: {
  id: string;
  customer: string;
  currency: string;
  items: WireSubscriptionItem[];
  defaultPaymentMethod: string | null;
  metadata: Record<string, string>;
  anchor: number;
  trialStart: number | null;
  trialEnd: number | null;
  created: number;
}): WireSubscription {
  return {
    id: fields.id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: fields.anchor,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: 'classic' },
    billing_schedules: [],
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
    collection_method: 'charge_automatically',
    created: fields.created,
    currency: fields.currency,
    customer: fields.customer,
    customer_account: null,
    days_until_due: null,
    default_payment_method: fields.defaultPaymentMethod,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: { type: 'self' } },
    items: list(fields.items, `/v1/subscription_items?subscription=${fields.id}`),
    latest_invoice: null,
    livemode: false,
    managed_payments: null,
    metadata: fields.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: fields.created,
    status: fields.trialEnd ? 'trialing' : 'incomplete',
    test_clock: null,
    transfer_data: null,
    trial_end: fields.trialEnd,
    trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' } },
    trial_start: fields.trialStart,
  };
}

export function invoiceItem(fields: {
  customer: string;
  amount: number;
  currency: string;
  description: string | null;
  invoice: string | null;
  subscription: string | null;
  subscriptionItem: string | null;
  price: WirePrice | null;
  proration: boolean;
  period: { start: number; end: number };
  metadata: Record<string, string>;
  created: number;
}): WireInvoiceItem {
  return {
    id: stripeId('ii'),
    object: 'invoiceitem',
    amount: fields.amount,
    currency: fields.currency,
    customer: fields.customer,
    customer_account: null,
    date: fields.created,
    description: fields.description,
    discountable: !fields.proration,
    discounts: [],
    invoice: fields.invoice,
    livemode: false,
    metadata: fields.metadata,
    net_amount: fields.amount,
    parent: fields.subscription
      ? { type: 'subscription_details', subscription_details: { subscription: fields.subscription, subscription_item: fields.subscriptionItem ?? undefined } }
      : null,
    period: fields.period,
    pricing: fields.price
      ? { type: 'price_details', price_details: { price: fields.price.id, product: String(fields.price.product) }, unit_amount_decimal: String(fields.amount) }
      : null,
    proration: fields.proration,
    quantity: 1,
    quantity_decimal: '1',
    tax_rates: [],
    test_clock: null,
  };
}

/** An invoice's line for an invoice item (proration or one-off) or a subscription item's period. */
export function invoiceLine(fields: {
  invoice: string;
  amount: number;
  currency: string;
  description: string | null;
  metadata: Record<string, string>;
  period: { start: number; end: number };
  quantity: number;
  price: WirePrice | null;
  subscription: string | null;
  source: { invoiceItem: string; proration: boolean } | { subscriptionItem: string };
}): WireInvoiceLine {
  const fromItem = 'invoiceItem' in fields.source ? fields.source : null;
  const parent: Wire<Stripe.InvoiceLineItem.Parent> = fromItem
    ? {
        type: 'invoice_item_details',
        invoice_item_details: { invoice_item: fromItem.invoiceItem, proration: fromItem.proration, proration_details: { credited_items: null }, subscription: fields.subscription },
        subscription_item_details: null,
      }
    : {
        type: 'subscription_item_details',
        invoice_item_details: null,
        subscription_item_details: {
          invoice_item: null,
          proration: false,
          proration_details: { credited_items: null },
          subscription: fields.subscription,
          subscription_item: (fields.source as { subscriptionItem: string }).subscriptionItem,
        },
      };
  return {
    id: stripeId('il'),
    object: 'line_item',
    amount: fields.amount,
    currency: fields.currency,
    description: fields.description,
    discount_amounts: [],
    discountable: !fromItem?.proration,
    discounts: [],
    invoice: fields.invoice,
    livemode: false,
    metadata: fields.metadata,
    parent,
    period: fields.period,
    pretax_credit_amounts: [],
    pricing: fields.price
      ? { type: 'price_details', price_details: { price: fields.price.id, product: String(fields.price.product) }, unit_amount_decimal: fields.price.unit_amount_decimal }
      : null,
    quantity: fields.quantity,
    quantity_decimal: String(fields.quantity),
    subscription: fields.subscription,
    subtotal: fields.amount,
    taxes: [],
  };
}

export function invoice(fields: {
  customer: WireCustomer;
  currency: string;
  subscription: string | null;
  billingReason: Stripe.Invoice.BillingReason;
  description: string | null;
  metadata: Record<string, string>;
  autoAdvance: boolean;
  /** When Stripe finalizes the draft by itself (a renewal's, an hour after it is made); null when never. */
  finalizesAt: number | null;
  period: { start: number; end: number };
  created: number;
}): WireInvoice {
  const id = stripeId('in');
  return {
    id,
    object: 'invoice',
    account_country: 'GB',
    account_name: 'Spendgate (fake Stripe account)',
    account_tax_ids: null,
    amount_due: 0,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: 0,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: fields.autoAdvance,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: fields.finalizesAt,
    billing_reason: fields.billingReason,
    collection_method: 'charge_automatically',
    created: fields.created,
    currency: fields.currency,
    custom_fields: null,
    customer: fields.customer.id,
    customer_account: null,
    customer_address: null,
    customer_email: fields.customer.email,
    customer_name: fields.customer.name ?? null,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: fields.description,
    discounts: [],
    due_date: null,
    effective_at: null,
    ending_balance: null,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: null,
    invoice_pdf: null,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: list([], `/v1/invoices/${id}/lines`),
    livemode: false,
    metadata: fields.metadata,
    next_payment_attempt: null,
    number: null,
    on_behalf_of: null,
    parent: fields.subscription
      ? { type: 'subscription_details', quote_details: null, subscription_details: { metadata: {}, subscription: fields.subscription } }
      : null,
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: fields.period.end,
    period_start: fields.period.start,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    status: 'draft',
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal: 0,
    subtotal_excluding_tax: 0,
    test_clock: null,
    total: 0,
    total_discount_amounts: [],
    total_excluding_tax: 0,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: null,
  };
}

export function setupIntent(fields: { customer: string | null; usage: 'off_session' | 'on_session'; metadata: Record<string, string>; allowedTypes: ['card'] | null; created: number }): WireSetupIntent {
  const id = stripeId('seti');
  return {
    id,
    object: 'setup_intent',
    allowed_payment_method_types: fields.allowedTypes,
    application: null,
    automatic_payment_methods: fields.allowedTypes ? null : { allow_redirects: 'always', enabled: true },
    cancellation_reason: null,
    client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
    created: fields.created,
    customer: fields.customer,
    description: null,
    excluded_payment_method_types: null,
    flow_directions: null,
    last_setup_error: null,
    latest_attempt: null,
    livemode: false,
    mandate: null,
    metadata: fields.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: { card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    single_use_mandate: null,
    status: 'requires_payment_method',
    usage: fields.usage,
  };
}

export function checkoutSession(fields: {
  mode: Stripe.Checkout.Session.Mode;
  customer: string | null;
  customerEmail: string | null;
  currency: string | null;
  amountTotal: number | null;
  clientReferenceId: string | null;
  successUrl: string;
  cancelUrl: string | null;
  metadata: Record<string, string>;
  hostedUrlBase: string;
  created: number;
  expiresAt: number;
}): WireSession {
  const id = stripeId(`cs_test`, 58);
  return {
    id,
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: fields.amountTotal,
    amount_total: fields.amountTotal,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: fields.cancelUrl,
    client_reference_id: fields.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: fields.created,
    currency: fields.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: fields.customer,
    customer_account: null,
    customer_creation: fields.customer ? null : 'always',
    customer_details: fields.customerEmail ? { address: null, business_name: null, email: fields.customerEmail, individual_name: null, name: null, phone: null, tax_exempt: 'none', tax_ids: null } : null,
    customer_email: fields.customerEmail,
    discounts: [],
    expires_at: fields.expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: fields.metadata,
    mode: fields.mode,
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: fields.mode === 'subscription' ? 'always' : null,
    payment_method_configuration_details: null,
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    payment_status: fields.mode === 'setup' ? 'no_payment_required' : 'unpaid',
    permissions: null,
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: fields.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted_page',
    url: `${fields.hostedUrlBase}/c/pay/${id}`,
    wallet_options: null,
  };
}

export function event(fields: {
  type: Stripe.Event.Type;
  object: unknown;
  previousAttributes: Record<string, unknown> | undefined;
  request: { id: string | null; idempotencyKey: string | null };
  created: number;
}): WireEvent {
  return {
    id: stripeId('evt'),
    object: 'event',
    api_version: FAKE_STRIPE_API_VERSION,
    created: fields.created,
    data: { object: fields.object as object, ...(fields.previousAttributes ? { previous_attributes: fields.previousAttributes } : {}) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: fields.request.id, idempotency_key: fields.request.idempotencyKey },
    type: fields.type,
  };
}
