/**
 * An account's billing with Stripe: what the API and the stripe-event job both do.
 * - The Stripe customer a subscription pays as, made once (idempotency key: the subscription).
 * - A card: attached to that customer at Stripe, kept in payment_methods; the default one is
 *   also the customer's `invoice_settings.default_payment_method`, which Stripe charges.
 * - A plan chosen: during a trial it is the plan billed from the trial's end; on an active
 *   subscription it takes over from now (the plan history prorates the period); on a paused
 *   or cancelled one with a default card, billing starts now.
 * - A completed Checkout Session (mode `setup`, made by the API for a plan): its card saved as
 *   the default and its plan chosen, once, whichever of the success page and the webhook
 *   sees it first.
 * - After a job changed what a subscription's keys may do (its status, plan or card), the
 *   account's keys are dropped from every gateway's key cache, so the next request reads it.
 * - What a job changes of a subscription or its invoices is audited as the system's doing
 *   (no actor, no IP), in each team the subscription pays for.
 * Stripe is called outside database transactions; every write carries an idempotency key.
 */
import { AppError, ConflictError, type PlanSlug, periodEndAfter, planTerms, UpstreamError, ValidationError } from '@spendgate/core';
import {
  type AuditEntry,
  billedTeamIds,
  changeSubscriptionPlan,
  type Db,
  findPaymentMethod,
  findSubscriptionById,
  findUserById,
  insertPaymentMethod,
  invalidateAccountKeys,
  keepSubscription,
  listPaymentMethods,
  recordCheckoutApplied,
  type SqlStore,
  type SubscriptionRow,
  setDefaultPaymentMethod,
  setStripeCustomer,
  startBillingPeriod,
  writeAudit,
} from '@spendgate/store';
import Stripe from 'stripe';
import { stripeIdempotencyKey } from './stripe.ts';

const PAYMENT_METHOD_ID = /^pm_\w{1,255}$/;

/** What a job drops a key from every gateway's key cache with (the stores' `invalidateKey`). */
export type InvalidateKey = (keyHash: string) => Promise<void>;

/** Drops the keys a subscription pays for from every gateway's key cache; call once its change is committed. */
export async function refreshSubscriptionKeys(deps: { sql: Pick<SqlStore, 'db'>; invalidateKey: InvalidateKey }, subscriptionId: string): Promise<void> {
  const subscription = await findSubscriptionById(deps.sql.db, subscriptionId);
  if (subscription) await invalidateAccountKeys(deps.sql.db, deps.invalidateKey, subscription.user_id);
}

/** An audit entry by the system (a job, Stripe's webhook) in each team the subscription `subscriptionId` pays for; call in its transaction. */
export async function auditBySystem(trx: Db, subscriptionId: string, entry: Omit<AuditEntry, 'teamId' | 'actorUserId'>): Promise<void> {
  const subscription = await findSubscriptionById(trx, subscriptionId);
  if (!subscription) return;
  for (const teamId of await billedTeamIds(trx, subscription.user_id)) await writeAudit(trx, { ...entry, teamId, actorUserId: null });
}

/** Stripe's refusal as the API answers it: a declined card 402, a refused request 400 naming `field`, anything else 502. */
export function stripeFailure(error: unknown, field: string): AppError {
  if (error instanceof Stripe.errors.StripeCardError) return new AppError(402, 'card_declined', `${field}: ${error.message}`);
  if (error instanceof Stripe.errors.StripeInvalidRequestError) return new ValidationError(field, `${field}: ${error.message}`);
  return new UpstreamError(502, 'Stripe could not be reached, or refused the request; please try again', error);
}

/** Runs a Stripe call, answering its failure as `stripeFailure` does. */
export async function callStripe<T>(field: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw stripeFailure(error, field);
  }
}

/** The paid plan a subscription may choose by itself: listed and priced (Enterprise is arranged with sales). */
export function choosablePlan(slug: PlanSlug) {
  const terms = planTerms(slug);
  if (terms.slug === 'free-trial') throw new ValidationError('planId', 'planId: the free trial is not a plan to subscribe to; choose Developers or Growth');
  if (terms.monthlyPriceMicros === null) throw new ValidationError('planId', `planId: the ${terms.name} plan is arranged with sales (Contact Sales)`);
  return terms;
}

/** The Stripe customer the subscription pays as, made on first use. */
export async function ensureCustomer(deps: { sql: Pick<SqlStore, 'db'>; stripe: Stripe }, subscription: SubscriptionRow): Promise<string> {
  if (subscription.stripe_customer_id) return subscription.stripe_customer_id;
  const { db } = deps.sql;
  const user = await findUserById(db, subscription.user_id);
  const customer = await callStripe('customer', () =>
    deps.stripe.customers.create(
      { email: user?.email, name: user?.name, metadata: { subscriptionId: subscription.id, userId: subscription.user_id } },
      { idempotencyKey: stripeIdempotencyKey('customer', subscription.id) },
    ),
  );
  await setStripeCustomer(db, subscription.id, customer.id);
  return (await findSubscriptionById(db, subscription.id))?.stripe_customer_id ?? customer.id;
}

/** The card `paymentMethodId`, attached to the customer at Stripe (already, or now). */
export async function attachCard(stripe: Stripe, customerId: string, subscriptionId: string, paymentMethodId: string): Promise<Stripe.PaymentMethod> {
  if (!PAYMENT_METHOD_ID.test(paymentMethodId)) throw new ValidationError('paymentMethodId', 'paymentMethodId: must be a Stripe payment method id (pm_…)');
  // Attached, not retrieved first: Stripe's test cards (pm_card_visa, …) can be attached but
  // are not payment methods of their own, and a card already this customer's comes back as it is.
  const method = await callStripe('paymentMethodId', () =>
    stripe.paymentMethods.attach(paymentMethodId, { customer: customerId }, { idempotencyKey: stripeIdempotencyKey('attach-card', subscriptionId, paymentMethodId) }),
  );
  const owner = typeof method.customer === 'string' ? method.customer : method.customer?.id;
  if (owner !== customerId) throw new ValidationError('paymentMethodId', 'paymentMethodId: this payment method belongs to another customer');
  if (method.type !== 'card' || !method.card) throw new ValidationError('paymentMethodId', 'paymentMethodId: only cards are taken');
  return method;
}

/** Keeps the attached card in payment_methods (once); the default when asked, or when the subscription has none. */
export async function keepCard(db: Db, subscriptionId: string, method: Stripe.PaymentMethod, makeDefault: boolean) {
  const kept = await findPaymentMethod(db, subscriptionId, method.id);
  if (kept?.detached_at) throw new ValidationError('paymentMethodId', 'paymentMethodId: this card was removed; add it again as a new card');
  const hasDefault = (await listPaymentMethods(db, subscriptionId)).some((row) => row.is_default);
  if (!kept) {
    await insertPaymentMethod(db, {
      id: crypto.randomUUID(),
      subscriptionId,
      stripePaymentMethodId: method.id,
      brand: method.card!.brand,
      last4: method.card!.last4,
      expMonth: method.card!.exp_month,
      expYear: method.card!.exp_year,
      isDefault: makeDefault || !hasDefault,
    });
  } else if (makeDefault) {
    await setDefaultPaymentMethod(db, subscriptionId, method.id);
  }
  return (await findPaymentMethod(db, subscriptionId, method.id))!;
}

/**
 * Makes the card the one Stripe charges the customer's invoices to. `operation` names this
 * change (a request's own id, or the Checkout Session it comes from): the card may be made the
 * default again later, which is another write.
 */
export async function makeStripeDefault(stripe: Stripe, customerId: string, subscriptionId: string, paymentMethodId: string, operation: string): Promise<void> {
  await callStripe('paymentMethodId', () =>
    stripe.customers.update(
      customerId,
      { invoice_settings: { default_payment_method: paymentMethodId } },
      { idempotencyKey: stripeIdempotencyKey('default-card', subscriptionId, paymentMethodId, operation) },
    ),
  );
}

/** Puts the subscription on the plan (see the module's header); call in a transaction. */
export async function choosePlan(db: Db, subscription: SubscriptionRow, slug: PlanSlug, at: Date): Promise<void> {
  choosablePlan(slug);
  if (subscription.status === 'paused' || subscription.status === 'canceled') {
    if (subscription.status === 'canceled' && subscription.current_period_end !== null) {
      throw new ConflictError('This subscription was cancelled moments ago and its last period is not invoiced yet; subscribe again within two hours');
    }
    if (!(await listPaymentMethods(db, subscription.id)).some((row) => row.is_default)) {
      throw new AppError(402, 'payment_method_required', 'Add a card first (create-setup-intent, then save-payment-method), or subscribe through checkout');
    }
    await startBillingPeriod(db, { subscriptionId: subscription.id, anchor: at, start: at, end: periodEndAfter(at, at) });
  } else if (subscription.cancel_at_period_end) {
    await keepSubscription(db, subscription.id, at);
  }
  await changeSubscriptionPlan(db, { subscriptionId: subscription.id, planSlug: slug, at });
}

/**
 * Applies a completed Checkout Session made for a subscription: its card saved as the default
 * and its plan chosen, once, audited in each team the subscription pays for — by the user
 * whose success page saw it first, or by the system (null) when the webhook did. Returns
 * whether it was applied now.
 */
export async function applyCheckoutSession(
  deps: { sql: Pick<SqlStore, 'db'>; stripe: Stripe; now: () => Date },
  session: Stripe.Checkout.Session,
  actorUserId: string | null,
): Promise<boolean> {
  const subscriptionId = session.metadata?.subscriptionId;
  const planSlug = session.metadata?.planSlug as PlanSlug | undefined;
  if (session.mode !== 'setup' || session.status !== 'complete' || !subscriptionId || !planSlug || !session.setup_intent) return false;
  const { db } = deps.sql;
  const subscription = await findSubscriptionById(db, subscriptionId);
  const customerId = typeof session.customer === 'string' ? session.customer : session.customer?.id;
  if (!subscription || !customerId || subscription.stripe_customer_id !== customerId) return false;
  const setupIntentId = typeof session.setup_intent === 'string' ? session.setup_intent : session.setup_intent.id;
  const setupIntent = await callStripe('sessionId', () => deps.stripe.setupIntents.retrieve(setupIntentId));
  const paymentMethodId = typeof setupIntent.payment_method === 'string' ? setupIntent.payment_method : setupIntent.payment_method?.id;
  if (setupIntent.status !== 'succeeded' || !paymentMethodId) return false;
  const method = await attachCard(deps.stripe, customerId, subscription.id, paymentMethodId);
  const at = deps.now();
  await makeStripeDefault(deps.stripe, customerId, subscription.id, method.id, session.id);
  return db.transaction().execute(async (trx) => {
    if (!(await recordCheckoutApplied(trx, { sessionId: session.id, subscriptionId: subscription.id, planSlug }))) return false;
    const card = await keepCard(trx, subscription.id, method, true);
    await choosePlan(trx, (await findSubscriptionById(trx, subscription.id))!, planSlug, at);
    for (const teamId of await billedTeamIds(trx, subscription.user_id)) {
      await writeAudit(trx, {
        teamId,
        actorUserId,
        action: 'subscription.checkout_completed',
        targetType: 'subscription',
        targetId: subscription.id,
        details: { checkoutSessionId: session.id },
        before: { planSlug: subscription.plan_slug },
        after: { planSlug, defaultCard: `${card.brand} ${card.last4}` },
      });
    }
    return true;
  });
}
