/**
 * A fake of Stripe's API (v1, the API version the `stripe` SDK 23 pins) for the subset
 * Spendgate uses, reached by the SDK through `host`, `port` and `protocol: 'http'`:
 *   customers (create, retrieve, update with `invoice_settings[default_payment_method]`);
 *   products made with prices (`product_data`), prices (create, retrieve, list by `lookup_keys`);
 *   Checkout Sessions in `mode` `subscription` and `setup` (create, retrieve, expire), completed
 *   on the fake's hosted page (`session.url`: choose a test card, pay or save) or by
 *   `completeCheckout` as a card payment would;
 *   SetupIntents (create, confirm with a test card, retrieve); payment methods (attach, detach,
 *   retrieve, list a customer's), Stripe's test tokens `pm_card_visa`, `pm_card_mastercard`,
 *   `pm_card_amex`, `pm_card_chargeDeclined` (refused when saved) and
 *   `pm_card_chargeCustomerFail` (saved; every charge fails);
 *   subscriptions (create, update with `proration_behavior` `create_prorations`, `none` or
 *   `always_invoice`, `cancel_at_period_end`, cancel at once with `invoice_now`/`prorate`, list);
 *   invoices and invoice items (create, add to a draft, finalize, pay, void, list) — a renewal
 *   invoice stays a draft for an hour (its `automatically_finalizes_at`), as Stripe's do;
 *   events (retrieve, list), delivered as webhooks to the URLs given to `forwardTo`, signed as
 *   Stripe signs them: `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload">`
 *   with the fake's `webhookSecret` (one secret, as `stripe listen` uses).
 * Requests are form-encoded with Stripe's brackets (`items[0][price]`, `expand[]`,
 * `metadata[k]`; an empty value unsets); answers carry `Request-Id` and `Stripe-Version`.
 * Errors are Stripe's `{error: {type, code, message, param, doc_url, request_log_url}}`: 400
 * `invalid_request_error` (`parameter_missing`, `parameter_unknown`, `resource_missing`, …),
 * 401 for a wrong key, 402 `card_error`, 404 `resource_missing` or an unknown URL, 500
 * `api_error` (forced with `x-fake-status: 500`). An `Idempotency-Key` replays the first
 * answer to the same parameters (with `Idempotent-Replayed: true`) and refuses other
 * parameters with 400 `idempotency_error`; as at Stripe, an answer refused before it ran
 * (400, 401, 404) is not kept. Time is the fake's clock: `advanceClock` moves it and runs
 * what falls due (renewals, cancellations at period end, drafts finalized and paid).
 * Every object is built by stripe-objects.ts, typed as the SDK's own type for it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type Stripe from 'stripe';
import { FakeHttpError, type FakeProvider, type RecordedRequest, sendJson, singleHeader, startFakeProviderServer } from './fake-provider-kit.ts';
import * as objects from './stripe-objects.ts';
import {
  FAKE_STRIPE_API_VERSION,
  type TestCard,
  type WireCustomer,
  type WireEvent,
  type WireInvoice,
  type WireInvoiceItem,
  type WirePaymentMethod,
  type WirePrice,
  type WireProduct,
  type WireSession,
  type WireSetupIntent,
  type WireSubscription,
  type WireSubscriptionItem,
} from './stripe-objects.ts';

export { FAKE_STRIPE_API_VERSION };

const API_KEY = 'sk_test_51FakeSpendgate000000000000000000000000000000000000000000000000';
const DAY_SECONDS = 86_400;
/** A draft with auto_advance is finalized by Stripe about an hour after it is made. */
const AUTO_FINALIZE_SECONDS = 3_600;
const CHECKOUT_LIFETIME_SECONDS = DAY_SECONDS;

/** Stripe's test payment-method tokens the fake knows. */
export const TEST_CARDS: Record<string, TestCard> = {
  pm_card_visa: { brand: 'visa', last4: '4242', funding: 'credit', declinedOnAttach: false, declinedOnCharge: false },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444', funding: 'credit', declinedOnAttach: false, declinedOnCharge: false },
  pm_card_amex: { brand: 'amex', last4: '8431', funding: 'credit', declinedOnAttach: false, declinedOnCharge: false },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', funding: 'credit', declinedOnAttach: true, declinedOnCharge: true },
  pm_card_chargeCustomerFail: { brand: 'visa', last4: '0341', funding: 'credit', declinedOnAttach: false, declinedOnCharge: true },
};

export interface WebhookDelivery {
  eventId: string;
  type: string;
  url: string;
  /** The endpoint's HTTP status, or 0 when it could not be reached. */
  status: number;
}

export interface FakeStripe extends FakeProvider {
  /** The only secret key the fake accepts. */
  apiKey: string;
  /** What the SDK needs to reach the fake: `new Stripe(apiKey, {...fake.sdkOptions})`. */
  sdkOptions: { host: string; port: number; protocol: 'http' };
  /** Signs every webhook the fake sends (whsec_…). */
  webhookSecret: string;
  /** Every event, oldest first. */
  events: WireEvent[];
  /** Every webhook POST made, in order. */
  deliveries: WebhookDelivery[];
  /** Every API answer the fake ran (not those refused before running), for checks against Stripe's OpenAPI description. */
  answers: { method: string; path: string; status: number; body: unknown }[];
  /** Every object the fake holds, by id (customers, subscriptions, invoices, …). */
  objects: ReadonlyMap<string, { id: string; object: string }>;
  /** Sends every later event (and none before) to `url`, as `stripe listen --forward-to`. */
  forwardTo(url: string): void;
  /** Sends later events nowhere (they can still be sent with `redeliver`). */
  stopForwarding(): void;
  /** Resolves when every webhook so far has been answered. */
  settled(): Promise<void>;
  /** POSTs an event again to `url`: signed at `timestamp` (default now) with `secret` (default the fake's). Returns the status. */
  redeliver(eventId: string, url: string, options?: { timestamp?: number; secret?: string }): Promise<number>;
  /** The fake's clock, unix seconds. */
  now(): number;
  /** Moves the clock on and runs what falls due on the way, in order. */
  advanceClock(seconds: number): Promise<void>;
  /** Completes an open Checkout Session as its hosted page does when paid with `card` (a pm_card_* token). */
  completeCheckout(sessionId: string, card?: string): WireSession;
}

type Param = string | Params | Param[];
interface Params {
  [key: string]: Param;
}

interface RequestContext {
  requestId: string;
  idempotencyKey: string | null;
}

// ---- Errors ----

/** An error in Stripe's shape; `keep` when an idempotent replay should answer it again. */
class StripeApiError extends FakeHttpError {
  constructor(
    status: number,
    error: { type: string; message: string; code?: string; param?: string; decline_code?: string; [more: string]: unknown },
    readonly keep = false,
  ) {
    const docs = error.code ? { doc_url: `https://stripe.com/docs/error-codes/${error.code.replace(/_/g, '-')}` } : {};
    super(status, { error: { ...error, ...docs } });
  }
}

const invalid = (message: string, param?: string, code?: string) =>
  new StripeApiError(400, { type: 'invalid_request_error', message, ...(code ? { code } : {}), ...(param ? { param } : {}) });
const missingParam = (param: string) => invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
const noSuch = (noun: string, id: string, param: string, status = 400) =>
  new StripeApiError(status, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${noun}: '${id}'`, param });
const cardDeclined = (more: Record<string, unknown> = {}) =>
  new StripeApiError(402, { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.', ...more }, true);

// ---- Stripe's form encoding ----

/** `a[b][0][c]=1&expand[]=x` → `{a: {b: [{c: '1'}]}, expand: ['x']}` (objects keyed 0…n become arrays). */
export function parseStripeForm(text: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match) throw invalid(`Invalid parameter name: ${key}`);
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((part) => part[1]!)];
    let node: Params = root;
    path.forEach((segment, index) => {
      const last = index === path.length - 1;
      const name = segment === '' ? String(Object.keys(node).length) : segment;
      if (last) {
        node[name] = value;
        return;
      }
      node[name] ??= {};
      node = node[name] as Params;
    });
  }
  return arraysFromIndices(root) as Params;
}

function arraysFromIndices(value: Param): Param {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const converted = Object.fromEntries(keys.map((key) => [key, arraysFromIndices(value[key]!)]));
  const indices = keys.length > 0 && keys.every((key) => /^\d+$/.test(key));
  return indices ? keys.sort((a, b) => Number(a) - Number(b)).map((key) => converted[key]!) : converted;
}

/** Reads typed parameters, refusing unknown ones and wrong types the way Stripe words it. */
class ParamReader {
  constructor(
    readonly params: Params,
    readonly prefix = '',
  ) {}

  private name(key: string) {
    return this.prefix ? `${this.prefix}[${key}]` : key;
  }

  allowOnly(...keys: string[]): this {
    for (const key of Object.keys(this.params)) if (!keys.includes(key) && key !== 'expand') throw invalid(`Received unknown parameter: ${this.name(key)}`, this.name(key), 'parameter_unknown');
    return this;
  }

  has(key: string): boolean {
    return this.params[key] !== undefined;
  }

  text(key: string): string | undefined {
    const value = this.params[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw invalid(`Invalid string: ${JSON.stringify(value)}`, this.name(key));
    return value;
  }

  requiredText(key: string): string {
    const value = this.text(key);
    if (value === undefined || value === '') throw missingParam(this.name(key));
    return value;
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T | undefined {
    const value = this.text(key);
    if (value === undefined) return undefined;
    if (!values.includes(value as T)) throw invalid(`Invalid ${this.name(key)}: must be one of ${values.join(', ')}`, this.name(key));
    return value as T;
  }

  integer(key: string): number | undefined {
    const value = this.text(key);
    if (value === undefined) return undefined;
    if (!/^-?\d{1,15}$/.test(value)) throw invalid(`Invalid integer: ${value}`, this.name(key));
    return Number(value);
  }

  boolean(key: string): boolean | undefined {
    const value = this.text(key);
    if (value === undefined) return undefined;
    if (value !== 'true' && value !== 'false') throw invalid(`Invalid boolean: ${value}`, this.name(key));
    return value === 'true';
  }

  metadata(key = 'metadata'): Record<string, string> | undefined {
    const value = this.params[key];
    if (value === undefined) return undefined;
    if (value === '') return {};
    if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`Invalid object`, this.name(key));
    const entries = Object.entries(value);
    if (entries.length > 50) throw invalid('Metadata may have at most 50 keys', this.name(key));
    for (const [name, text] of entries) {
      if (typeof text !== 'string') throw invalid('Invalid metadata value', `${this.name(key)}[${name}]`);
      if (name.length > 40) throw invalid(`Metadata keys can have at most 40 characters`, `${this.name(key)}[${name}]`);
      if (text.length > 500) throw invalid(`Metadata values can have at most 500 characters`, `${this.name(key)}[${name}]`);
    }
    return Object.fromEntries(entries.filter(([, text]) => text !== '')) as Record<string, string>;
  }

  object(key: string): ParamReader | undefined {
    const value = this.params[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`Invalid object`, this.name(key));
    return new ParamReader(value, this.name(key));
  }

  list(key: string): ParamReader[] | undefined {
    const value = this.params[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw invalid(`Invalid array`, this.name(key));
    return value.map((item, index) => {
      if (typeof item !== 'object' || Array.isArray(item)) throw invalid(`Invalid object`, `${this.name(key)}[${index}]`);
      return new ParamReader(item, `${this.name(key)}[${index}]`);
    });
  }

  texts(key: string): string[] | undefined {
    const value = this.params[key];
    if (value === undefined) return undefined;
    const items = Array.isArray(value) ? value : [value];
    if (!items.every((item) => typeof item === 'string')) throw invalid(`Invalid array`, this.name(key));
    return items as string[];
  }
}

// ---- Time ----

/** `start` moved on by `months` calendar months (UTC), the day kept or the month's last. */
function addMonths(start: number, months: number): number {
  const date = new Date(start * 1000);
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}

function periodEnd(start: number, interval: Stripe.Price.Recurring.Interval): number {
  if (interval === 'day') return start + DAY_SECONDS;
  if (interval === 'week') return start + 7 * DAY_SECONDS;
  return addMonths(start, interval === 'year' ? 12 : 1);
}

/** round(amount × part / whole), half away from zero, in integers. */
function prorate(amount: number, part: number, whole: number): number {
  const magnitude = (BigInt(Math.abs(amount)) * BigInt(part) * 2n + BigInt(whole)) / (2n * BigInt(whole));
  return Math.sign(amount) * Number(magnitude);
}

const dayLabel = (seconds: number) => new Date(seconds * 1000).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

function withLogUrl(body: unknown, requestId: string): unknown {
  const error = (body as { error: Record<string, unknown> }).error;
  return { error: { ...error, request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}` } };
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

// ---- The fake ----

export async function startFakeStripe(): Promise<FakeStripe> {
  const store = new Map<string, { id: string; object: string }>();
  const events: WireEvent[] = [];
  const deliveries: WebhookDelivery[] = [];
  const answers: FakeStripe['answers'] = [];
  const forwardUrls: string[] = [];
  const idempotent = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const webhookSecret = `whsec_${randomBytes(24).toString('hex')}`;
  let clockOffset = 0;
  let deliveryChain: Promise<void> = Promise.resolve();
  let origin = '';
  let invoiceSequence = 0;
  let context: RequestContext | null = null;

  const now = () => Math.floor(Date.now() / 1000) + clockOffset;

  function put<T extends { id: string; object: string }>(object: T): T {
    store.set(object.id, object);
    return object;
  }
  function find<T>(kind: string, id: string): T | undefined {
    const object = store.get(id);
    return object?.object === kind ? (object as T) : undefined;
  }
  const nouns: Record<string, string> = {
    customer: 'customer',
    payment_method: 'PaymentMethod',
    price: 'price',
    product: 'product',
    'checkout.session': 'checkout.session',
    setup_intent: 'setupintent',
    subscription: 'subscription',
    invoice: 'invoice',
    invoiceitem: 'invoiceitem',
    event: 'event',
  };
  function get<T>(kind: string, id: string, param = 'id', status = 400): T {
    const object = find<T>(kind, id);
    if (!object) throw noSuch(nouns[kind] ?? kind, id, param, status);
    return object;
  }

  // ---- Events and webhooks ----

  function signatureHeader(payload: string, timestamp: number, secret: string): string {
    return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')}`;
  }

  async function post(event: WireEvent, url: string, timestamp: number, secret: string): Promise<number> {
    const payload = JSON.stringify(event, null, 2);
    let status = 0;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signatureHeader(payload, timestamp, secret),
        },
        body: payload,
        signal: AbortSignal.timeout(30_000),
      });
      await response.arrayBuffer();
      status = response.status;
    } catch {
      status = 0;
    }
    deliveries.push({ eventId: event.id, type: event.type, url, status });
    return status;
  }

  function emit(type: Stripe.Event.Type, object: unknown, previousAttributes?: Record<string, unknown>): void {
    const event = objects.event({
      type,
      object: clone(object),
      previousAttributes,
      request: context ? { id: context.requestId, idempotencyKey: context.idempotencyKey } : { id: null, idempotencyKey: null },
      created: now(),
    });
    event.pending_webhooks = forwardUrls.length;
    events.push(put(event));
    for (const url of forwardUrls) {
      deliveryChain = deliveryChain.then(async () => {
        await post(event, url, Math.floor(Date.now() / 1000), webhookSecret);
      });
    }
  }

  /** Sets fields on a stored object and emits `<type>` with the fields' previous values. */
  function update<T extends object>(object: T, changes: Partial<T>, type: Stripe.Event.Type | null): void {
    const previous: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(changes)) {
      const before = (object as Record<string, unknown>)[key];
      if (JSON.stringify(before) !== JSON.stringify(value)) previous[key] = clone(before);
    }
    Object.assign(object, changes);
    if (type && Object.keys(previous).length > 0) emit(type, object, previous);
  }

  // ---- Customers and payment methods ----

  function defaultPaymentMethodOf(customer: WireCustomer): string | null {
    return customer.invoice_settings.default_payment_method as string | null;
  }

  /** Saves a test card (a pm_card_* token) or an unattached payment method to the customer. */
  function attach(paymentMethodId: string, customer: WireCustomer, param: string): WirePaymentMethod {
    const card = TEST_CARDS[paymentMethodId];
    if (card) {
      if (card.declinedOnAttach) throw cardDeclined({ param });
      const created = put(objects.cardPaymentMethod(card, { created: now(), customer: customer.id }));
      emit('payment_method.attached', created);
      return created;
    }
    const paymentMethod = get<WirePaymentMethod>('payment_method', paymentMethodId, param);
    if (paymentMethod.customer === customer.id) return paymentMethod;
    if (paymentMethod.customer) throw invalid('The payment method you provided has already been attached to a customer.', param);
    update(paymentMethod, { customer: customer.id }, null);
    emit('payment_method.attached', paymentMethod);
    return paymentMethod;
  }

  function attachedPaymentMethod(customer: WireCustomer, id: string, param: string): WirePaymentMethod {
    const paymentMethod = find<WirePaymentMethod>('payment_method', id);
    if (!paymentMethod || paymentMethod.customer !== customer.id) {
      throw new StripeApiError(400, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `The customer does not have a payment method with the ID ${id}. The payment method must be attached to the customer.`,
        param,
      });
    }
    return paymentMethod;
  }

  function cardOf(paymentMethod: WirePaymentMethod): TestCard {
    return Object.values(TEST_CARDS).find((card) => card.last4 === paymentMethod.card?.last4 && card.brand === paymentMethod.card?.brand)!;
  }

  // ---- Invoices ----

  function recomputeTotals(invoice: WireInvoice): void {
    const total = invoice.lines.data.reduce((sum, line) => sum + line.amount, 0);
    Object.assign(invoice, {
      subtotal: total,
      subtotal_excluding_tax: total,
      total,
      total_excluding_tax: total,
      amount_due: Math.max(total, 0),
      amount_remaining: Math.max(total, 0) - invoice.amount_paid,
    });
  }

  function addItemToInvoice(invoice: WireInvoice, item: WireInvoiceItem): void {
    const priceId = item.pricing?.price_details?.price;
    invoice.lines.data.push(
      objects.invoiceLine({
        invoice: invoice.id,
        amount: item.amount,
        currency: item.currency,
        description: item.description,
        metadata: item.metadata ?? {},
        period: item.period,
        quantity: item.quantity,
        price: priceId ? (find<WirePrice>('price', typeof priceId === 'string' ? priceId : priceId.id) ?? null) : null,
        subscription: item.parent?.subscription_details?.subscription ?? null,
        source: { invoiceItem: item.id, proration: item.proration },
      }),
    );
    item.invoice = invoice.id;
    recomputeTotals(invoice);
  }

  function createInvoice(customer: WireCustomer, fields: { subscription: WireSubscription | null; billingReason: Stripe.Invoice.BillingReason; description: string | null; metadata: Record<string, string>; autoAdvance: boolean; pendingItems: boolean; period?: { start: number; end: number } }): WireInvoice {
    const created = now();
    const invoice = put(
      objects.invoice({
        customer,
        currency: fields.subscription?.currency ?? 'gbp',
        subscription: fields.subscription?.id ?? null,
        billingReason: fields.billingReason,
        description: fields.description,
        metadata: fields.metadata,
        autoAdvance: fields.autoAdvance,
        finalizesAt: fields.autoAdvance ? created + AUTO_FINALIZE_SECONDS : null,
        period: fields.period ?? { start: created, end: created },
        created,
      }),
    );
    if (fields.pendingItems) {
      for (const item of pendingItems(customer.id, fields.subscription?.id ?? null)) addItemToInvoice(invoice, item);
    }
    return invoice;
  }

  function pendingItems(customerId: string, subscriptionId: string | null): WireInvoiceItem[] {
    return [...store.values()].filter((object): object is WireInvoiceItem => {
      if (object.object !== 'invoiceitem') return false;
      const item = object as WireInvoiceItem;
      const itemSubscription = item.parent?.subscription_details?.subscription ?? null;
      return item.customer === customerId && item.invoice === null && (itemSubscription === null || itemSubscription === subscriptionId);
    });
  }

  function addSubscriptionLines(invoice: WireInvoice, subscription: WireSubscription, period: { start: number; end: number }): void {
    for (const item of subscription.items.data) {
      const price = item.price;
      const product = find<WireProduct>('product', String(price.product));
      const quantity = item.quantity ?? 1;
      invoice.lines.data.push(
        objects.invoiceLine({
          invoice: invoice.id,
          amount: (price.unit_amount ?? 0) * quantity,
          currency: price.currency,
          description: `${quantity} × ${product?.name ?? 'Subscription'} (at £${((price.unit_amount ?? 0) / 100).toFixed(2)} / ${price.recurring?.interval ?? 'month'})`,
          metadata: {},
          period,
          quantity,
          price,
          subscription: subscription.id,
          source: { subscriptionItem: item.id },
        }),
      );
    }
    recomputeTotals(invoice);
  }

  function finalize(invoice: WireInvoice): void {
    if (invoice.status !== 'draft') throw invalid(`This invoice is already finalized, you can't re-finalize a non-draft invoice.`, undefined, 'invoice_not_editable');
    const customer = get<WireCustomer>('customer', String(invoice.customer));
    invoiceSequence += 1;
    update(
      invoice,
      {
        status: 'open',
        number: `${customer.invoice_prefix}-${String(invoiceSequence).padStart(4, '0')}`,
        effective_at: now(),
        automatically_finalizes_at: null,
        hosted_invoice_url: `${origin}/i/${invoice.id}`,
        invoice_pdf: `${origin}/i/${invoice.id}/pdf`,
        status_transitions: { ...invoice.status_transitions, finalized_at: now() },
      },
      null,
    );
    emit('invoice.finalized', invoice);
  }

  /** The payment method an invoice charges: its own, its subscription's, else its customer's default. */
  function paymentMethodFor(invoice: WireInvoice, unsaved?: WireSubscription): WirePaymentMethod | undefined {
    const subscriptionId = invoice.parent?.subscription_details?.subscription;
    const subscription = unsaved ?? (subscriptionId ? find<WireSubscription>('subscription', String(subscriptionId)) : undefined);
    const customer = get<WireCustomer>('customer', String(invoice.customer));
    const id = (invoice.default_payment_method ?? subscription?.default_payment_method ?? defaultPaymentMethodOf(customer)) as string | null;
    return id ? find<WirePaymentMethod>('payment_method', id) : undefined;
  }

  /** Attempts payment; true when paid. A zero invoice is paid without a charge. */
  function attemptPayment(invoice: WireInvoice): boolean {
    if (invoice.status !== 'open') throw invalid('Invoice is already paid', undefined, 'invoice_payment_intent_requires_action');
    const paymentMethod = paymentMethodFor(invoice);
    if (invoice.amount_due > 0) {
      update(invoice, { attempt_count: invoice.attempt_count + 1, attempted: true }, null);
      if (!paymentMethod || cardOf(paymentMethod).declinedOnCharge) {
        emit('invoice.payment_failed', invoice);
        return false;
      }
    }
    update(
      invoice,
      {
        status: 'paid',
        attempted: true,
        amount_paid: invoice.amount_due,
        amount_remaining: 0,
        status_transitions: { ...invoice.status_transitions, paid_at: now() },
      },
      null,
    );
    emit('invoice.paid', invoice);
    emit('invoice.payment_succeeded', invoice);
    return true;
  }

  // ---- Subscriptions ----

  function currentPeriod(subscription: WireSubscription) {
    const item = subscription.items.data[0]!;
    return { start: item.current_period_start, end: item.current_period_end };
  }

  function setPeriod(subscription: WireSubscription, start: number, end: number): void {
    for (const item of subscription.items.data) Object.assign(item, { current_period_start: start, current_period_end: end });
  }

  /** Creates a subscription and its first invoice, charged at once (or a trial). */
  function createSubscription(
    customer: WireCustomer,
    fields: { prices: { price: WirePrice; quantity: number }[]; defaultPaymentMethod: string | null; metadata: Record<string, string>; trialEnd: number | null; paymentBehavior: 'allow_incomplete' | 'error_if_incomplete' | 'default_incomplete' },
  ): WireSubscription {
    const created = now();
    const id = objects.stripeId('sub');
    const interval = fields.prices[0]!.price.recurring!.interval;
    const end = fields.trialEnd ?? periodEnd(created, interval);
    const items = fields.prices.map(({ price, quantity }) => objects.subscriptionItem({ subscription: id, price, quantity, periodStart: created, periodEnd: end, created }));
    const subscription = objects.subscription({
      id,
      customer: customer.id,
      currency: fields.prices[0]!.price.currency,
      items,
      defaultPaymentMethod: fields.defaultPaymentMethod,
      metadata: fields.metadata,
      anchor: end,
      trialStart: fields.trialEnd ? created : null,
      trialEnd: fields.trialEnd,
      created,
    });
    const invoice = createInvoice(customer, { subscription, billingReason: 'subscription_create', description: null, metadata: {}, autoAdvance: false, pendingItems: false, period: { start: created, end: created } });
    if (!fields.trialEnd) addSubscriptionLines(invoice, subscription, { start: created, end });
    subscription.latest_invoice = invoice.id;
    if (fields.paymentBehavior === 'error_if_incomplete' && invoice.amount_due > 0) {
      const paymentMethod = paymentMethodFor(invoice, subscription);
      if (!paymentMethod) {
        store.delete(invoice.id);
        throw invalid('This customer has no attached payment source or default payment method. Please consider adding a default payment method.', undefined, 'resource_missing');
      }
      if (cardOf(paymentMethod).declinedOnCharge) {
        store.delete(invoice.id);
        throw cardDeclined();
      }
    }
    put(subscription);
    emit('customer.subscription.created', subscription);
    emit('invoice.created', invoice);
    finalize(invoice);
    if (fields.paymentBehavior !== 'default_incomplete' && attemptPayment(invoice) && !fields.trialEnd) update(subscription, { status: 'active' }, 'customer.subscription.updated');
    return subscription;
  }

  /** Credit for the unused time of the old prices and charge for the new ones, from `at` to the period's end. */
  function prorationItems(subscription: WireSubscription, changes: { item: WireSubscriptionItem; newPrice: WirePrice | null; newQuantity: number }[], at: number): WireInvoiceItem[] {
    const period = currentPeriod(subscription);
    const whole = period.end - period.start;
    const part = period.end - at;
    const made: WireInvoiceItem[] = [];
    const itemFor = (price: WirePrice, quantity: number, sign: 1 | -1, subscriptionItem: string) => {
      const product = find<WireProduct>('product', String(price.product));
      const amount = sign * prorate((price.unit_amount ?? 0) * quantity, part, whole);
      const invoiceItem = put(
        objects.invoiceItem({
          customer: String(subscription.customer),
          amount,
          currency: price.currency,
          description: `${sign < 0 ? 'Unused' : 'Remaining'} time on ${quantity > 1 ? `${quantity} × ` : ''}${product?.name ?? 'Subscription'} after ${dayLabel(at)}`,
          invoice: null,
          subscription: subscription.id,
          subscriptionItem,
          price,
          proration: true,
          period: { start: at, end: period.end },
          metadata: {},
          created: now(),
        }),
      );
      emit('invoiceitem.created', invoiceItem);
      made.push(invoiceItem);
    };
    for (const change of changes) {
      itemFor(change.item.price, change.item.quantity ?? 1, -1, change.item.id);
      if (change.newPrice) itemFor(change.newPrice, change.newQuantity, 1, change.item.id);
    }
    return made;
  }

  function cancelSubscription(subscription: WireSubscription, at: number, reason: 'cancellation_requested' | 'payment_failed'): void {
    update(
      subscription,
      { status: 'canceled', canceled_at: subscription.canceled_at ?? at, ended_at: at, cancel_at_period_end: false, cancellation_details: { ...subscription.cancellation_details!, reason } },
      null,
    );
    emit('customer.subscription.deleted', subscription);
  }

  /** The subscription's period has ended: cancel it, or start the next period with its invoice (a draft for an hour). */
  function renew(subscription: WireSubscription): void {
    const period = currentPeriod(subscription);
    if (subscription.cancel_at_period_end || (subscription.cancel_at !== null && subscription.cancel_at <= period.end)) {
      cancelSubscription(subscription, period.end, 'cancellation_requested');
      return;
    }
    const interval = subscription.items.data[0]!.price.recurring!.interval;
    const next = { start: period.end, end: periodEnd(period.end, interval) };
    const previousItems = clone(subscription.items);
    setPeriod(subscription, next.start, next.end);
    const customer = get<WireCustomer>('customer', String(subscription.customer));
    const invoice = createInvoice(customer, { subscription, billingReason: 'subscription_cycle', description: null, metadata: {}, autoAdvance: true, pendingItems: true, period });
    addSubscriptionLines(invoice, subscription, next);
    const wasTrialing = subscription.status === 'trialing';
    update(subscription, { latest_invoice: invoice.id, ...(wasTrialing ? { status: 'active' as const } : {}) }, null);
    emit('customer.subscription.updated', subscription, { items: previousItems, ...(wasTrialing ? { status: 'trialing' } : {}) });
    emit('invoice.created', invoice);
  }

  /** Runs what is due at the clock's time, earliest first. */
  function runDue(): void {
    for (;;) {
      const due: { at: number; run: () => void }[] = [];
      for (const object of store.values()) {
        if (object.object === 'subscription') {
          const subscription = object as WireSubscription;
          if (['active', 'trialing', 'past_due'].includes(subscription.status)) {
            const end = currentPeriod(subscription).end;
            if (end <= now()) due.push({ at: end, run: () => renew(subscription) });
          }
        } else if (object.object === 'invoice') {
          const invoice = object as WireInvoice;
          const at = invoice.automatically_finalizes_at;
          if (invoice.status === 'draft' && invoice.auto_advance && at !== null && at <= now()) {
            due.push({
              at,
              run: () => {
                finalize(invoice);
                const paid = attemptPayment(invoice);
                const subscriptionId = invoice.parent?.subscription_details?.subscription;
                const subscription = subscriptionId ? find<WireSubscription>('subscription', String(subscriptionId)) : undefined;
                if (subscription && subscription.status !== 'canceled') update(subscription, { status: paid ? 'active' : 'past_due' }, 'customer.subscription.updated');
              },
            });
          }
        }
      }
      if (due.length === 0) return;
      due.sort((a, b) => a.at - b.at)[0]!.run();
    }
  }

  // ---- Checkout ----

  function completeCheckout(sessionId: string, cardToken = 'pm_card_visa'): WireSession {
    const session = get<WireSession>('checkout.session', sessionId, 'id', 404);
    if (session.status !== 'open') throw invalid(`This Checkout Session is ${session.status}.`, 'id');
    if (!TEST_CARDS[cardToken]) throw invalid(`Unknown test card: ${cardToken}`, 'card');
    let customer = session.customer ? get<WireCustomer>('customer', String(session.customer)) : undefined;
    if (!customer) {
      customer = put(objects.customer({ email: session.customer_email, name: null, description: null, metadata: {}, created: now() }));
      emit('customer.created', customer);
    }
    const paymentMethod = attach(cardToken, customer, 'payment_method');
    const completed: Partial<WireSession> = {
      status: 'complete',
      customer: customer.id,
      customer_details: { address: null, business_name: null, email: customer.email, individual_name: null, name: null, phone: null, tax_exempt: 'none', tax_ids: [] },
    };
    if (session.mode === 'setup') {
      const setupIntent = put(objects.setupIntent({ customer: customer.id, usage: 'off_session', metadata: session.metadata ?? {}, allowedTypes: null, created: now() }));
      emit('setup_intent.created', setupIntent);
      update(setupIntent, { payment_method: paymentMethod.id, status: 'succeeded' }, null);
      emit('setup_intent.succeeded', setupIntent);
      Object.assign(completed, { setup_intent: setupIntent.id });
    } else {
      const pending = checkoutLines.get(session.id)!;
      if (cardOf(paymentMethod).declinedOnCharge && !pending.trialEnd) throw cardDeclined();
      const subscription = createSubscription(customer, {
        prices: pending.prices,
        defaultPaymentMethod: paymentMethod.id,
        metadata: pending.metadata,
        trialEnd: pending.trialEnd,
        paymentBehavior: 'allow_incomplete',
      });
      const invoice = get<WireInvoice>('invoice', String(subscription.latest_invoice));
      Object.assign(completed, {
        subscription: subscription.id,
        invoice: invoice.id,
        payment_status: invoice.amount_due === 0 ? 'no_payment_required' : 'paid',
      });
    }
    update(session, completed, null);
    emit('checkout.session.completed', session);
    return session;
  }

  /** What a subscription Checkout Session will subscribe to, kept beside it (Stripe keeps it as its line items). */
  const checkoutLines = new Map<string, { prices: { price: WirePrice; quantity: number }[]; metadata: Record<string, string>; trialEnd: number | null }>();

  function hostedPage(session: WireSession, error?: string): string {
    const action = session.mode === 'setup' ? 'Save card' : `Subscribe — £${((session.amount_total ?? 0) / 100).toFixed(2)} per month`;
    const options = Object.entries(TEST_CARDS)
      .map(([token, card]) => `<option value="${token}">${card.brand} •••• ${card.last4}</option>`)
      .join('');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Checkout (fake Stripe)</title></head>
<body><main><h1>Checkout (fake Stripe)</h1><p>${escapeHtml(session.customer_email ?? '')}</p>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post"><label for="card">Test card</label> <select id="card" name="card">${options}</select> <button type="submit">${escapeHtml(action)}</button></form>
${session.cancel_url ? `<p><a href="${escapeHtml(session.cancel_url)}">Back</a></p>` : ''}</main></body></html>`;
  }

  function answerHostedPage(request: RecordedRequest, res: ServerResponse, sessionId: string): void {
    const html = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    const session = find<WireSession>('checkout.session', sessionId);
    if (!session) {
      html(404, '<!doctype html><title>Not found</title><p>This Checkout Session does not exist.</p>');
    } else if (session.status !== 'open') {
      html(410, `<!doctype html><title>Checkout</title><p>This Checkout Session is ${session.status}.</p>`);
    } else if (request.method !== 'POST') {
      html(200, hostedPage(session));
    } else {
      try {
        completeCheckout(session.id, new URLSearchParams(request.bodyText).get('card') ?? 'pm_card_visa');
        res.writeHead(303, { location: session.success_url!.replace('{CHECKOUT_SESSION_ID}', session.id) });
        res.end();
      } catch (error) {
        html(402, hostedPage(session, error instanceof StripeApiError ? (error.body as { error: { message: string } }).error.message : String(error)));
      }
    }
  }

  // ---- Expansion and lists ----

  function expand(value: unknown, path: string[], full: string): unknown {
    if (path.length === 0) return value;
    if (value === null || value === undefined) return value;
    const [head, ...rest] = path;
    if (typeof value !== 'object') throw invalid(`This property cannot be expanded (${full}).`, 'expand');
    const record = value as Record<string, unknown>;
    if (record.object === 'list' && head === 'data') {
      return { ...record, data: (record.data as unknown[]).map((item) => expand(item, rest, full)) };
    }
    const field = record[head!];
    if (rest.length === 0) {
      if (typeof field === 'string' && store.has(field)) return { ...record, [head!]: clone(store.get(field)) };
      if (field === null || (typeof field === 'object' && field !== null)) return record;
      throw invalid(`This property cannot be expanded (${full}).`, 'expand');
    }
    const inner = typeof field === 'string' && store.has(field) ? clone(store.get(field)) : field;
    return { ...record, [head!]: expand(inner, rest, full) };
  }

  function render(object: unknown, params: ParamReader): unknown {
    let result = clone(object);
    for (const path of params.texts('expand') ?? []) result = expand(result, path.split('.'), path);
    return result;
  }

  function page<T extends { id: string }>(items: T[], params: ParamReader, url: string) {
    const limit = params.integer('limit') ?? 10;
    if (limit < 1 || limit > 100) throw invalid('Invalid limit: must be between 1 and 100', 'limit');
    const after = params.text('starting_after');
    const newestFirst = [...items].reverse();
    const start = after ? newestFirst.findIndex((item) => item.id === after) + 1 : 0;
    const data = newestFirst.slice(start, start + limit);
    return objects.list(data, url, start + limit < newestFirst.length);
  }

  const all = <T>(kind: string) => [...store.values()].filter((object) => object.object === kind) as unknown as T[];

  // ---- Routes ----

  type Handler = (params: ParamReader, match: RegExpExecArray) => { status?: number; body: unknown };
  const routes: [string, RegExp, Handler][] = [];
  const route = (method: string, pattern: string, handler: Handler) => routes.push([method, new RegExp(`^${pattern}$`), handler]);

  // Customers
  route('POST', '/v1/customers', (params) => {
    params.allowOnly('email', 'name', 'description', 'metadata', 'payment_method', 'invoice_settings');
    const customer = put(objects.customer({ email: params.text('email') ?? null, name: params.text('name') ?? null, description: params.text('description') ?? null, metadata: params.metadata() ?? {}, created: now() }));
    emit('customer.created', customer);
    const paymentMethod = params.text('payment_method');
    if (paymentMethod) attach(paymentMethod, customer, 'payment_method');
    const defaultId = params.object('invoice_settings')?.allowOnly('default_payment_method').text('default_payment_method');
    if (defaultId) update(customer, { invoice_settings: { ...customer.invoice_settings, default_payment_method: attachedPaymentMethod(customer, defaultId, 'invoice_settings[default_payment_method]').id } }, 'customer.updated');
    return { body: render(customer, params) };
  });
  route('GET', '/v1/customers/(cus_\\w+)', (params, match) => ({ body: render(get('customer', match[1]!, 'id', 404), params) }));
  route('POST', '/v1/customers/(cus_\\w+)', (params, match) => {
    params.allowOnly('email', 'name', 'description', 'metadata', 'invoice_settings');
    const customer = get<WireCustomer>('customer', match[1]!, 'id', 404);
    const changes: Partial<WireCustomer> = {};
    for (const key of ['email', 'name', 'description'] as const) if (params.has(key)) changes[key] = params.text(key) || null;
    const metadata = params.metadata();
    if (metadata) changes.metadata = { ...customer.metadata, ...metadata };
    const settings = params.object('invoice_settings')?.allowOnly('default_payment_method');
    if (settings?.has('default_payment_method')) {
      const id = settings.text('default_payment_method');
      changes.invoice_settings = { ...customer.invoice_settings, default_payment_method: id ? attachedPaymentMethod(customer, id, 'invoice_settings[default_payment_method]').id : null };
    }
    update(customer, changes, 'customer.updated');
    return { body: render(customer, params) };
  });
  route('GET', '/v1/customers/(cus_\\w+)/payment_methods', (params, match) => {
    params.allowOnly('type', 'limit', 'starting_after');
    const customer = get<WireCustomer>('customer', match[1]!, 'id', 404);
    const type = params.text('type');
    const methods = all<WirePaymentMethod>('payment_method').filter((method) => method.customer === customer.id && (!type || method.type === type));
    return { body: render(page(methods, params, `/v1/customers/${customer.id}/payment_methods`), params) };
  });

  // Payment methods
  route('GET', '/v1/payment_methods/(pm_\\w+)', (params, match) => ({ body: render(get('payment_method', match[1]!, 'payment_method', 404), params) }));
  route('GET', '/v1/payment_methods', (params) => {
    params.allowOnly('customer', 'type', 'limit', 'starting_after');
    const customer = get<WireCustomer>('customer', params.requiredText('customer'), 'customer');
    const type = params.text('type');
    const methods = all<WirePaymentMethod>('payment_method').filter((method) => method.customer === customer.id && (!type || method.type === type));
    return { body: render(page(methods, params, '/v1/payment_methods'), params) };
  });
  route('POST', '/v1/payment_methods/(pm_\\w+)/attach', (params, match) => {
    params.allowOnly('customer');
    const customer = get<WireCustomer>('customer', params.requiredText('customer'), 'customer');
    return { body: render(attach(match[1]!, customer, 'payment_method'), params) };
  });
  route('POST', '/v1/payment_methods/(pm_\\w+)/detach', (params, match) => {
    params.allowOnly();
    const paymentMethod = get<WirePaymentMethod>('payment_method', match[1]!, 'payment_method', 404);
    const customerId = paymentMethod.customer as string | null;
    if (!customerId) throw invalid(`The payment method you provided is not attached to a customer so detachment is impossible.`, 'payment_method');
    update(paymentMethod, { customer: null }, null);
    emit('payment_method.detached', paymentMethod, { customer: customerId });
    const customer = get<WireCustomer>('customer', customerId);
    if (defaultPaymentMethodOf(customer) === paymentMethod.id) update(customer, { invoice_settings: { ...customer.invoice_settings, default_payment_method: null } }, 'customer.updated');
    for (const subscription of all<WireSubscription>('subscription')) {
      if (subscription.default_payment_method === paymentMethod.id) update(subscription, { default_payment_method: null }, 'customer.subscription.updated');
    }
    return { body: render(paymentMethod, params) };
  });

  // Products and prices
  route('POST', '/v1/prices', (params) => {
    params.allowOnly('currency', 'unit_amount', 'recurring', 'product', 'product_data', 'lookup_key', 'transfer_lookup_key', 'nickname', 'metadata');
    const currency = params.requiredText('currency').toLowerCase();
    const unitAmount = params.integer('unit_amount');
    if (unitAmount === undefined) throw missingParam('unit_amount');
    if (unitAmount < 0) throw invalid('Invalid unit_amount: must be at least 0', 'unit_amount');
    const interval = params.object('recurring')?.allowOnly('interval').oneOf('interval', ['day', 'week', 'month', 'year'] as const) ?? null;
    let productId = params.text('product');
    if (productId) get('product', productId, 'product');
    else {
      const productData = params.object('product_data');
      if (!productData) throw missingParam('product');
      const made = put(objects.product({ name: productData.allowOnly('name', 'metadata').requiredText('name'), created: now() }));
      emit('product.created', made);
      productId = made.id;
    }
    const lookupKey = params.text('lookup_key') ?? null;
    const holder = lookupKey ? all<WirePrice>('price').find((existing) => existing.lookup_key === lookupKey) : undefined;
    if (holder && !params.boolean('transfer_lookup_key')) throw invalid(`A price (\`${holder.id}\`) already uses that lookup key.`, 'lookup_key');
    if (holder) update(holder, { lookup_key: null }, 'price.updated');
    const created = put(objects.price({ product: productId, currency, unitAmount, interval, lookupKey, nickname: params.text('nickname') ?? null, metadata: params.metadata() ?? {}, created: now() }));
    emit('price.created', created);
    return { body: render(created, params) };
  });
  route('GET', '/v1/prices/(price_\\w+)', (params, match) => ({ body: render(get('price', match[1]!, 'price', 404), params) }));
  route('GET', '/v1/prices', (params) => {
    params.allowOnly('lookup_keys', 'active', 'limit', 'starting_after');
    const keys = params.texts('lookup_keys');
    const active = params.boolean('active');
    const prices = all<WirePrice>('price').filter((candidate) => (!keys || keys.includes(candidate.lookup_key ?? '')) && (active === undefined || candidate.active === active));
    return { body: render(page(prices, params, '/v1/prices'), params) };
  });
  route('GET', '/v1/products/(prod_\\w+)', (params, match) => ({ body: render(get('product', match[1]!, 'product', 404), params) }));

  // Checkout Sessions
  route('POST', '/v1/checkout/sessions', (params) => {
    params.allowOnly('mode', 'customer', 'customer_email', 'line_items', 'success_url', 'cancel_url', 'client_reference_id', 'metadata', 'subscription_data', 'setup_intent_data', 'currency', 'allowed_payment_method_types', 'expires_at');
    const mode = params.oneOf('mode', ['payment', 'setup', 'subscription'] as const);
    if (!mode) throw missingParam('mode');
    if (mode === 'payment') throw invalid('This fake of Stripe supports mode=subscription and mode=setup only.', 'mode');
    const customerId = params.text('customer');
    const customer = customerId ? get<WireCustomer>('customer', customerId, 'customer') : undefined;
    if (customer && params.has('customer_email')) throw invalid('You may only specify one of these parameters: customer, customer_email.', 'customer_email');
    const successUrl = params.requiredText('success_url');
    const types = params.texts('allowed_payment_method_types');
    if (types?.some((type) => type !== 'card')) throw invalid('This fake of Stripe knows the payment method type card only.', 'allowed_payment_method_types');
    let currency = params.text('currency')?.toLowerCase() ?? null;
    let amountTotal: number | null = null;
    let pending: { prices: { price: WirePrice; quantity: number }[]; metadata: Record<string, string>; trialEnd: number | null } | undefined;
    if (mode === 'subscription') {
      const lines = params.list('line_items');
      if (!lines || lines.length === 0) throw missingParam('line_items');
      const prices = lines.map((line, index) => {
        line.allowOnly('price', 'quantity');
        const chosen = get<WirePrice>('price', line.requiredText('price'), `line_items[${index}][price]`);
        if (!chosen.recurring) throw invalid('You must provide at least one recurring price in `subscription` mode when using prices.', `line_items[${index}][price]`);
        return { price: chosen, quantity: line.integer('quantity') ?? 1 };
      });
      const subscriptionData = params.object('subscription_data')?.allowOnly('metadata', 'trial_end', 'trial_period_days');
      const trialDays = subscriptionData?.integer('trial_period_days');
      const trialEnd = subscriptionData?.integer('trial_end') ?? (trialDays ? now() + trialDays * DAY_SECONDS : null);
      if (trialEnd !== null && trialEnd < now() + 2 * DAY_SECONDS) throw invalid('The `trial_end` date has to be at least 2 days in the future.', 'subscription_data[trial_end]');
      currency = prices[0]!.price.currency;
      amountTotal = trialEnd ? 0 : prices.reduce((sum, { price: chosen, quantity }) => sum + (chosen.unit_amount ?? 0) * quantity, 0);
      pending = { prices, metadata: subscriptionData?.metadata() ?? {}, trialEnd };
    } else {
      if (params.has('line_items')) throw invalid('You cannot pass `line_items` in `setup` mode.', 'line_items');
      if (!currency && !types) throw invalid('`currency` is required in `setup` mode when `allowed_payment_method_types` is not passed.', 'currency');
      params.object('setup_intent_data')?.allowOnly('metadata', 'description');
    }
    const created = now();
    const session = put(
      objects.checkoutSession({
        mode,
        customer: customer?.id ?? null,
        customerEmail: customer ? customer.email : (params.text('customer_email') ?? null),
        currency,
        amountTotal,
        clientReferenceId: params.text('client_reference_id') ?? null,
        successUrl,
        cancelUrl: params.text('cancel_url') ?? null,
        metadata: params.metadata() ?? {},
        hostedUrlBase: origin,
        created,
        expiresAt: params.integer('expires_at') ?? created + CHECKOUT_LIFETIME_SECONDS,
      }),
    );
    if (pending) checkoutLines.set(session.id, pending);
    return { body: render(session, params) };
  });
  route('GET', '/v1/checkout/sessions/(cs_\\w+)', (params, match) => {
    const session = get<WireSession>('checkout.session', match[1]!, 'session', 404);
    if (session.status === 'open' && session.expires_at <= now()) {
      update(session, { status: 'expired', url: null }, null);
      emit('checkout.session.expired', session);
    }
    return { body: render(session, params) };
  });
  route('POST', '/v1/checkout/sessions/(cs_\\w+)/expire', (params, match) => {
    params.allowOnly();
    const session = get<WireSession>('checkout.session', match[1]!, 'session', 404);
    if (session.status !== 'open') throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`, 'session');
    update(session, { status: 'expired', url: null }, null);
    emit('checkout.session.expired', session);
    return { body: render(session, params) };
  });

  // SetupIntents
  const confirmSetup = (setupIntent: WireSetupIntent, paymentMethodId: string, param: string) => {
    if (!setupIntent.customer) throw invalid('This fake of Stripe confirms SetupIntents that have a customer.', 'customer');
    const customer = get<WireCustomer>('customer', String(setupIntent.customer));
    let paymentMethod: WirePaymentMethod;
    try {
      paymentMethod = attach(paymentMethodId, customer, param);
    } catch (error) {
      if (!(error instanceof StripeApiError) || error.status !== 402) throw error;
      const lastError = { type: 'card_error' as const, code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };
      update(setupIntent, { status: 'requires_payment_method', last_setup_error: lastError }, null);
      emit('setup_intent.setup_failed', setupIntent);
      throw cardDeclined({ setup_intent: clone(setupIntent) });
    }
    update(setupIntent, { payment_method: paymentMethod.id, status: 'succeeded', last_setup_error: null }, null);
    emit('setup_intent.succeeded', setupIntent);
  };
  route('POST', '/v1/setup_intents', (params) => {
    params.allowOnly('customer', 'allowed_payment_method_types', 'usage', 'metadata', 'description', 'automatic_payment_methods', 'payment_method', 'confirm');
    const customerId = params.text('customer');
    if (customerId) get('customer', customerId, 'customer');
    const allowed = params.texts('allowed_payment_method_types');
    if (allowed?.some((type) => type !== 'card')) throw invalid('This fake of Stripe knows the payment method type card only.', 'allowed_payment_method_types');
    const setupIntent = put(objects.setupIntent({ customer: customerId ?? null, usage: params.oneOf('usage', ['off_session', 'on_session'] as const) ?? 'off_session', metadata: params.metadata() ?? {}, allowedTypes: (allowed as ['card'] | undefined) ?? null, created: now() }));
    emit('setup_intent.created', setupIntent);
    const paymentMethod = params.text('payment_method');
    if (params.boolean('confirm')) {
      if (!paymentMethod) throw missingParam('payment_method');
      confirmSetup(setupIntent, paymentMethod, 'payment_method');
    }
    return { body: render(setupIntent, params) };
  });
  route('GET', '/v1/setup_intents/(seti_\\w+)', (params, match) => ({ body: render(get('setup_intent', match[1]!, 'intent', 404), params) }));
  route('POST', '/v1/setup_intents/(seti_\\w+)/confirm', (params, match) => {
    params.allowOnly('payment_method', 'return_url');
    const setupIntent = get<WireSetupIntent>('setup_intent', match[1]!, 'intent', 404);
    if (setupIntent.status === 'succeeded') throw invalid('You cannot confirm this SetupIntent because it has already succeeded.', undefined, 'setup_intent_unexpected_state');
    confirmSetup(setupIntent, params.requiredText('payment_method'), 'payment_method');
    return { body: render(setupIntent, params) };
  });

  // Subscriptions
  const subscriptionPrices = (params: ParamReader) => {
    const items = params.list('items');
    if (!items || items.length === 0) throw missingParam('items');
    return items.map((item, index) => {
      item.allowOnly('price', 'quantity');
      const chosen = get<WirePrice>('price', item.requiredText('price'), `items[${index}][price]`);
      if (!chosen.recurring) throw invalid(`The price specified is set to \`type=one_time\` but this field only accepts prices with \`type=recurring\`.`, `items[${index}][price]`);
      return { price: chosen, quantity: item.integer('quantity') ?? 1 };
    });
  };
  route('POST', '/v1/subscriptions', (params) => {
    params.allowOnly('customer', 'items', 'default_payment_method', 'metadata', 'payment_behavior', 'proration_behavior', 'trial_end', 'trial_period_days', 'collection_method');
    const customer = get<WireCustomer>('customer', params.requiredText('customer'), 'customer');
    const prices = subscriptionPrices(params);
    const defaultId = params.text('default_payment_method');
    const trialDays = params.integer('trial_period_days');
    const trialEnd = params.integer('trial_end') ?? (trialDays ? now() + trialDays * DAY_SECONDS : null);
    const subscription = createSubscription(customer, {
      prices,
      defaultPaymentMethod: defaultId ? attachedPaymentMethod(customer, defaultId, 'default_payment_method').id : null,
      metadata: params.metadata() ?? {},
      trialEnd,
      paymentBehavior: params.oneOf('payment_behavior', ['allow_incomplete', 'error_if_incomplete', 'default_incomplete', 'pending_if_incomplete'] as const) === 'error_if_incomplete'
        ? 'error_if_incomplete'
        : params.text('payment_behavior') === 'default_incomplete'
          ? 'default_incomplete'
          : 'allow_incomplete',
    });
    return { body: render(subscription, params) };
  });
  route('GET', '/v1/subscriptions/(sub_\\w+)', (params, match) => ({ body: render(get('subscription', match[1]!, 'id', 404), params) }));
  route('GET', '/v1/subscriptions', (params) => {
    params.allowOnly('customer', 'status', 'price', 'limit', 'starting_after');
    const customer = params.text('customer');
    const status = params.text('status');
    const priceId = params.text('price');
    const subscriptions = all<WireSubscription>('subscription').filter(
      (candidate) =>
        (!customer || candidate.customer === customer) &&
        (status === 'all' || (status ? candidate.status === status : candidate.status !== 'canceled')) &&
        (!priceId || candidate.items.data.some((item) => item.price.id === priceId)),
    );
    return { body: render(page(subscriptions, params, '/v1/subscriptions'), params) };
  });
  route('POST', '/v1/subscriptions/(sub_\\w+)', (params, match) => {
    params.allowOnly('items', 'proration_behavior', 'proration_date', 'cancel_at_period_end', 'default_payment_method', 'metadata', 'payment_behavior');
    const subscription = get<WireSubscription>('subscription', match[1]!, 'id', 404);
    if (subscription.status === 'canceled') throw invalid('A canceled subscription can only update its cancellation_details and metadata.', undefined, 'resource_missing');
    const previousSnapshot = clone(subscription);
    const changes: Partial<WireSubscription> = {};
    const metadata = params.metadata();
    if (metadata) changes.metadata = { ...subscription.metadata, ...metadata };
    const cancelAtEnd = params.boolean('cancel_at_period_end');
    if (cancelAtEnd !== undefined) Object.assign(changes, { cancel_at_period_end: cancelAtEnd, cancel_at: cancelAtEnd ? currentPeriod(subscription).end : null, canceled_at: cancelAtEnd ? now() : null });
    if (params.has('default_payment_method')) {
      const id = params.text('default_payment_method');
      changes.default_payment_method = id ? attachedPaymentMethod(get<WireCustomer>('customer', String(subscription.customer)), id, 'default_payment_method').id : null;
    }
    const behaviour = params.oneOf('proration_behavior', ['create_prorations', 'none', 'always_invoice'] as const) ?? 'create_prorations';
    const at = params.integer('proration_date') ?? now();
    const period = currentPeriod(subscription);
    if (at < period.start || at > period.end) throw invalid('The proration_date must be within the current billing period.', 'proration_date');
    const itemChanges = (params.list('items') ?? []).map((item, index) => {
      item.allowOnly('id', 'price', 'quantity', 'deleted');
      const existing = subscription.items.data.find((candidate) => candidate.id === item.requiredText('id'));
      if (!existing) throw noSuch('subscription_item', item.text('id')!, `items[${index}][id]`);
      const priceId = item.text('price');
      const newPrice = priceId ? get<WirePrice>('price', priceId, `items[${index}][price]`) : existing.price;
      if (newPrice.recurring?.interval !== existing.price.recurring?.interval) throw invalid('This fake of Stripe changes prices within one billing interval only.', `items[${index}][price]`);
      return { item: existing, newPrice: item.boolean('deleted') ? null : newPrice, newQuantity: item.integer('quantity') ?? existing.quantity ?? 1 };
    });
    const changed = itemChanges.filter(({ item, newPrice, newQuantity }) => newPrice?.id !== item.price.id || newQuantity !== item.quantity);
    const prorations = behaviour === 'none' || subscription.status === 'trialing' ? [] : prorationItems(subscription, changed, at);
    for (const { item, newPrice, newQuantity } of changed) {
      if (newPrice) Object.assign(item, objects.subscriptionItem({ subscription: subscription.id, price: newPrice, quantity: newQuantity, periodStart: period.start, periodEnd: period.end, created: item.created }), { id: item.id });
      else subscription.items.data = subscription.items.data.filter((candidate) => candidate.id !== item.id);
    }
    Object.assign(subscription, changes);
    const previous: Record<string, unknown> = {};
    for (const key of Object.keys(subscription) as (keyof WireSubscription)[]) {
      if (JSON.stringify(previousSnapshot[key]) !== JSON.stringify(subscription[key])) previous[key] = previousSnapshot[key];
    }
    if (Object.keys(previous).length > 0) emit('customer.subscription.updated', subscription, previous);
    if (behaviour === 'always_invoice' && prorations.length > 0) {
      const customer = get<WireCustomer>('customer', String(subscription.customer));
      const invoice = createInvoice(customer, { subscription, billingReason: 'subscription_update', description: null, metadata: {}, autoAdvance: false, pendingItems: true, period: { start: at, end: at } });
      subscription.latest_invoice = invoice.id;
      emit('invoice.created', invoice);
      finalize(invoice);
      attemptPayment(invoice);
    }
    return { body: render(subscription, params) };
  });
  route('DELETE', '/v1/subscriptions/(sub_\\w+)', (params, match) => {
    params.allowOnly('invoice_now', 'prorate', 'cancellation_details');
    const subscription = get<WireSubscription>('subscription', match[1]!, 'id', 404);
    if (subscription.status === 'canceled') throw invalid(`No such subscription: '${subscription.id}'`, 'id', 'resource_missing');
    const at = now();
    if (params.boolean('prorate')) prorationItems(subscription, subscription.items.data.map((item) => ({ item, newPrice: null, newQuantity: 0 })), at);
    cancelSubscription(subscription, at, 'cancellation_requested');
    if (params.boolean('invoice_now')) {
      const customer = get<WireCustomer>('customer', String(subscription.customer));
      const invoice = createInvoice(customer, { subscription, billingReason: 'subscription_cycle', description: null, metadata: {}, autoAdvance: false, pendingItems: true, period: { start: at, end: at } });
      if (invoice.lines.data.length > 0) {
        emit('invoice.created', invoice);
        finalize(invoice);
        attemptPayment(invoice);
      } else store.delete(invoice.id);
    }
    return { body: render(subscription, params) };
  });

  // Invoice items and invoices
  route('POST', '/v1/invoiceitems', (params) => {
    params.allowOnly('customer', 'amount', 'currency', 'description', 'invoice', 'subscription', 'period', 'metadata', 'discountable');
    const customer = get<WireCustomer>('customer', params.requiredText('customer'), 'customer');
    const amount = params.integer('amount');
    if (amount === undefined) throw missingParam('amount');
    const currency = params.requiredText('currency').toLowerCase();
    const invoiceId = params.text('invoice');
    const target = invoiceId ? get<WireInvoice>('invoice', invoiceId, 'invoice') : undefined;
    if (target && target.status !== 'draft') throw invalid(`You can only add invoice items to draft invoices.`, 'invoice', 'invoice_not_editable');
    if (target && target.customer !== customer.id) throw invalid(`The invoice ${target.id} belongs to another customer.`, 'invoice');
    const subscriptionId = params.text('subscription');
    if (subscriptionId) get('subscription', subscriptionId, 'subscription');
    const period = params.object('period')?.allowOnly('start', 'end');
    const at = now();
    const item = put(
      objects.invoiceItem({
        customer: customer.id,
        amount,
        currency,
        description: params.text('description') ?? null,
        invoice: null,
        subscription: subscriptionId ?? null,
        subscriptionItem: null,
        price: null,
        proration: false,
        period: { start: period?.integer('start') ?? at, end: period?.integer('end') ?? at },
        metadata: params.metadata() ?? {},
        created: at,
      }),
    );
    if (target) addItemToInvoice(target, item);
    emit('invoiceitem.created', item);
    return { body: render(item, params) };
  });
  route('GET', '/v1/invoiceitems/(ii_\\w+)', (params, match) => ({ body: render(get('invoiceitem', match[1]!, 'id', 404), params) }));
  route('GET', '/v1/invoiceitems', (params) => {
    params.allowOnly('customer', 'invoice', 'pending', 'limit', 'starting_after');
    const customer = params.text('customer');
    const invoiceId = params.text('invoice');
    const pendingOnly = params.boolean('pending');
    const items = all<WireInvoiceItem>('invoiceitem').filter((item) => (!customer || item.customer === customer) && (!invoiceId || item.invoice === invoiceId) && (pendingOnly === undefined || (item.invoice === null) === pendingOnly));
    return { body: render(page(items, params, '/v1/invoiceitems'), params) };
  });
  route('POST', '/v1/invoices', (params) => {
    params.allowOnly('customer', 'subscription', 'collection_method', 'auto_advance', 'pending_invoice_items_behavior', 'description', 'metadata', 'currency', 'default_payment_method');
    const customer = get<WireCustomer>('customer', params.requiredText('customer'), 'customer');
    const subscriptionId = params.text('subscription');
    const subscription = subscriptionId ? get<WireSubscription>('subscription', subscriptionId, 'subscription') : null;
    if (params.oneOf('collection_method', ['charge_automatically', 'send_invoice'] as const) === 'send_invoice') throw invalid('This fake of Stripe charges invoices automatically only.', 'collection_method');
    const defaultId = params.text('default_payment_method');
    const invoice = createInvoice(customer, {
      subscription,
      billingReason: 'manual',
      description: params.text('description') ?? null,
      metadata: params.metadata() ?? {},
      autoAdvance: params.boolean('auto_advance') ?? false,
      pendingItems: params.oneOf('pending_invoice_items_behavior', ['include', 'exclude'] as const) === 'include',
    });
    if (defaultId) invoice.default_payment_method = attachedPaymentMethod(customer, defaultId, 'default_payment_method').id;
    emit('invoice.created', invoice);
    return { body: render(invoice, params) };
  });
  route('GET', '/v1/invoices/(in_\\w+)', (params, match) => ({ body: render(get('invoice', match[1]!, 'invoice', 404), params) }));
  route('GET', '/v1/invoices/(in_\\w+)/lines', (params, match) => {
    params.allowOnly('limit', 'starting_after');
    const invoice = get<WireInvoice>('invoice', match[1]!, 'invoice', 404);
    return { body: render(objects.list(invoice.lines.data, `/v1/invoices/${invoice.id}/lines`), params) };
  });
  route('GET', '/v1/invoices', (params) => {
    params.allowOnly('customer', 'subscription', 'status', 'limit', 'starting_after');
    const customer = params.text('customer');
    const subscription = params.text('subscription');
    const status = params.text('status');
    const invoices = all<WireInvoice>('invoice').filter((invoice) => (!customer || invoice.customer === customer) && (!subscription || invoice.parent?.subscription_details?.subscription === subscription) && (!status || invoice.status === status));
    return { body: render(page(invoices, params, '/v1/invoices'), params) };
  });
  route('POST', '/v1/invoices/(in_\\w+)/finalize', (params, match) => {
    params.allowOnly('auto_advance');
    const invoice = get<WireInvoice>('invoice', match[1]!, 'invoice', 404);
    invoice.auto_advance = params.boolean('auto_advance') ?? invoice.auto_advance;
    finalize(invoice);
    if (invoice.amount_due === 0) attemptPayment(invoice);
    return { body: render(invoice, params) };
  });
  route('POST', '/v1/invoices/(in_\\w+)/pay', (params, match) => {
    params.allowOnly('payment_method', 'off_session');
    const invoice = get<WireInvoice>('invoice', match[1]!, 'invoice', 404);
    if (invoice.status === 'draft') finalize(invoice);
    const paymentMethodId = params.text('payment_method');
    if (paymentMethodId) invoice.default_payment_method = attachedPaymentMethod(get<WireCustomer>('customer', String(invoice.customer)), paymentMethodId, 'payment_method').id;
    if (invoice.status === 'paid') throw invalid('Invoice is already paid', undefined, 'invoice_already_paid');
    if (invoice.amount_due > 0 && !paymentMethodFor(invoice)) throw invalid('This customer has no attached payment source or default payment method. Please consider adding a default payment method.', undefined, 'invoice_no_payment_method_types');
    if (!attemptPayment(invoice)) throw cardDeclined();
    return { body: render(invoice, params) };
  });
  route('POST', '/v1/invoices/(in_\\w+)/void', (params, match) => {
    params.allowOnly();
    const invoice = get<WireInvoice>('invoice', match[1]!, 'invoice', 404);
    if (invoice.status !== 'open') throw invalid(`You can only pass in open invoices. This invoice isn't open.`, undefined, 'invoice_not_editable');
    update(invoice, { status: 'void', amount_remaining: 0, status_transitions: { ...invoice.status_transitions, voided_at: now() } }, null);
    emit('invoice.voided', invoice);
    return { body: render(invoice, params) };
  });

  // Events
  route('GET', '/v1/events/(evt_\\w+)', (params, match) => ({ body: render(get('event', match[1]!, 'id', 404), params) }));
  route('GET', '/v1/events', (params) => {
    params.allowOnly('type', 'types', 'limit', 'starting_after');
    const type = params.text('type');
    const types = params.texts('types');
    return { body: render(page(events.filter((event) => (!type || event.type === type) && (!types || types.includes(event.type))), params, '/v1/events'), params) };
  });

  // ---- Serving ----

  function runRoute(request: RecordedRequest): { status: number; body: unknown } {
    const [path, query = ''] = request.path.split('?') as [string, string?];
    const candidates = routes.filter(([, pattern]) => pattern.test(path));
    const found = candidates.find(([method]) => method === request.method);
    if (!found) throw new StripeApiError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${request.method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` });
    if (request.method === 'POST' && request.bodyText && !String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      throw invalid('Invalid request: the body must be form-encoded (application/x-www-form-urlencoded).');
    }
    const params = new ParamReader(parseStripeForm(request.method === 'POST' ? request.bodyText : query));
    const answer = found[2](params, found[1].exec(path)!);
    return { status: answer.status ?? 200, body: answer.body };
  }

  function canonical(value: Param): string {
    if (typeof value === 'string') return JSON.stringify(value);
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`).join(',')}}`;
  }

  const fake = await startFakeProviderServer({
    responseHeaders: () => ({ 'request-id': objects.stripeId('req', 14), 'stripe-version': FAKE_STRIPE_API_VERSION }),
    answer(request, res) {
      const path = request.path.split('?')[0]!;
      const hosted = /^\/c\/pay\/(cs_\w+)$/.exec(path);
      if (hosted) return answerHostedPage(request, res, hosted[1]!);
      if (singleHeader(request.headers, 'x-fake-status') === '500') throw new StripeApiError(500, { type: 'api_error', message: 'An unknown error occurred' });
      const authorization = singleHeader(request.headers, 'authorization') ?? '';
      if (!authorization) {
        throw new StripeApiError(401, {
          type: 'invalid_request_error',
          message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        });
      }
      const key = authorization.replace(/^Bearer /, '');
      if (key !== API_KEY) throw new StripeApiError(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(key.length - 12, 0))}${key.slice(-4)}` });

      const idempotencyKey = request.method === 'POST' ? (singleHeader(request.headers, 'idempotency-key') ?? null) : null;
      const requestId = String(res.getHeader('request-id'));
      const fingerprint = `${request.method} ${path} ${canonical(parseStripeForm(request.bodyText))}`;
      if (idempotencyKey) {
        res.setHeader('idempotency-key', idempotencyKey);
        const kept = idempotent.get(idempotencyKey);
        if (kept && kept.fingerprint !== fingerprint) {
          throw new StripeApiError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          });
        }
        if (kept) {
          res.setHeader('idempotent-replayed', 'true');
          return sendJson(res, kept.status, kept.body);
        }
      }
      context = { requestId, idempotencyKey };
      let answer: { status: number; body: unknown };
      try {
        answer = runRoute(request);
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        if (!error.keep) throw error;
        answer = { status: error.status, body: withLogUrl(error.body, requestId) };
      } finally {
        context = null;
      }
      if (idempotencyKey) idempotent.set(idempotencyKey, { fingerprint, ...answer });
      answers.push({ method: request.method, path, ...answer });
      sendJson(res, answer.status, answer.body);
    },
    internalError: (message) => new StripeApiError(500, { type: 'api_error', message }),
    completeErrorBody: (body, headers) => withLogUrl(body, headers['request-id']!),
  });
  const address = new URL(fake.url);
  origin = fake.url;

  return Object.assign(fake, {
    apiKey: API_KEY,
    sdkOptions: { host: address.hostname, port: Number(address.port), protocol: 'http' as const },
    webhookSecret,
    events,
    deliveries,
    answers,
    objects: store,
    forwardTo: (url: string) => {
      forwardUrls.push(url);
    },
    stopForwarding: () => {
      forwardUrls.length = 0;
    },
    settled: async () => {
      let seen: Promise<void>;
      do {
        seen = deliveryChain;
        await seen;
      } while (seen !== deliveryChain);
    },
    redeliver: (eventId: string, url: string, options: { timestamp?: number; secret?: string } = {}) => {
      const event = get<WireEvent>('event', eventId, 'id', 404);
      return post(event, url, options.timestamp ?? Math.floor(Date.now() / 1000), options.secret ?? webhookSecret);
    },
    now,
    advanceClock: async (seconds: number) => {
      clockOffset += seconds;
      runDue();
    },
    completeCheckout,
  });
}
