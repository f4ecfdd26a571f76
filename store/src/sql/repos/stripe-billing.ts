// What an account does to its subscription through Stripe: the Stripe customer it pays as,
// its cards (a mirror of the payment methods attached to that customer, one the default),
// the Checkout Sessions whose outcome was applied (once each), and its own cancellation.
import type { Db } from './db.ts';
import { hasPaymentMethodOn } from './plans.ts';

export async function setStripeCustomer(db: Db, subscriptionId: string, customerId: string): Promise<void> {
  await db.updateTable('subscriptions').set({ stripe_customer_id: customerId }).where('id', '=', subscriptionId).where('stripe_customer_id', 'is', null).execute();
}

/** The subscription's cards still attached, the default first, then the newest. */
export async function listPaymentMethods(db: Db, subscriptionId: string) {
  return db
    .selectFrom('payment_methods')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('detached_at', 'is', null)
    .orderBy('is_default', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** One of the subscription's cards by its Stripe id (detached ones too). */
export async function findPaymentMethod(db: Db, subscriptionId: string, stripePaymentMethodId: string) {
  return db
    .selectFrom('payment_methods')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('stripe_payment_method_id', '=', stripePaymentMethodId)
    .executeTakeFirst();
}

/** Makes the card the subscription's default (and no other). */
export async function setDefaultPaymentMethod(db: Db, subscriptionId: string, stripePaymentMethodId: string): Promise<void> {
  await db.updateTable('payment_methods').set({ is_default: false }).where('subscription_id', '=', subscriptionId).where('is_default', '=', true).execute();
  await db
    .updateTable('payment_methods')
    .set({ is_default: true })
    .where('subscription_id', '=', subscriptionId)
    .where('stripe_payment_method_id', '=', stripePaymentMethodId)
    .where('detached_at', 'is', null)
    .execute();
}

export async function detachPaymentMethod(db: Db, subscriptionId: string, stripePaymentMethodId: string, at: Date): Promise<void> {
  await db
    .updateTable('payment_methods')
    .set({ detached_at: at, is_default: false })
    .where('subscription_id', '=', subscriptionId)
    .where('stripe_payment_method_id', '=', stripePaymentMethodId)
    .where('detached_at', 'is', null)
    .execute();
}

/** Records that a Checkout Session's outcome is applied; false when it already was. */
export async function recordCheckoutApplied(db: Db, checkout: { sessionId: string; subscriptionId: string; planSlug: string }): Promise<boolean> {
  const inserted = await db
    .insertInto('stripe_checkouts')
    .values({ session_id: checkout.sessionId, subscription_id: checkout.subscriptionId, plan_slug: checkout.planSlug })
    .onConflict((oc) => oc.column('session_id').doNothing())
    .returning('session_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Cancels the subscription: at once (it ends now; its period is invoiced up to now), or at
 * the end of its period (a trial's end when it is trialing).
 */
export async function cancelSubscription(db: Db, subscriptionId: string, cancel: { immediate: boolean; at: Date }): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set(cancel.immediate ? { status: 'canceled', canceled_at: cancel.at, cancel_at_period_end: false, updated_at: cancel.at } : { cancel_at_period_end: true, updated_at: cancel.at })
    .where('id', '=', subscriptionId)
    .execute();
}

/** Takes back a cancellation at period end. */
export async function keepSubscription(db: Db, subscriptionId: string, at: Date): Promise<void> {
  await db.updateTable('subscriptions').set({ cancel_at_period_end: false, updated_at: at }).where('id', '=', subscriptionId).execute();
}

/**
 * Open invoices with something to charge that are not at Stripe yet, oldest first, whose
 * subscription has a Stripe customer with a default card, with that customer.
 */
export async function invoicesToCollect(db: Db, limit: number) {
  return db
    .selectFrom('invoices as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .select(['i.id', 'i.number', 'i.subscription_id', 'i.period_start', 'i.period_end', 'i.total_pence', 's.stripe_customer_id'])
    .where('i.status', '=', 'open')
    .where('i.total_pence', '>', 0n)
    .where('i.stripe_invoice_id', 'is', null)
    .where('s.stripe_customer_id', 'is not', null)
    .where(hasPaymentMethodOn('s.id'))
    .orderBy('i.period_end')
    .limit(limit)
    .execute();
}

/** The Stripe invoice that charges this one. */
export async function setStripeInvoice(db: Db, invoiceId: string, stripeInvoiceId: string): Promise<void> {
  await db.updateTable('invoices').set({ stripe_invoice_id: stripeInvoiceId }).where('id', '=', invoiceId).where('stripe_invoice_id', 'is', null).execute();
}

/** An invoice by its id alone (a Stripe invoice's metadata names it), with its subscription and Stripe invoice. */
export async function findInvoiceById(db: Db, invoiceId: string) {
  return db.selectFrom('invoices').select(['id', 'number', 'subscription_id', 'status', 'total_pence', 'stripe_invoice_id']).where('id', '=', invoiceId).executeTakeFirst();
}
