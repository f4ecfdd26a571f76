// stripe-event: processes one Stripe webhook event, once. The webhook kept the event in
// stripe_events; the object it names (a subscription, a Checkout Session, an invoice, a
// customer) is read back from Stripe — its state now, not the one the event carried, so events
// taken in any order leave the newest state — and stored unless a later read is stored
// already, in the same transaction that marks the event processed. A completed Checkout
// Session is applied to its subscription first (payments/billing.ts: once, however often).
// A paid Stripe invoice made for one of Spendgate's (invoice-collect) marks that one paid,
// audited by the system with the subscription's status before and after.
// Either change reaches the data plane at once: the account's keys are dropped from every
// gateway's key cache once it is committed, as the success page's path does.
// An event processed already (a replay, a second job for it) does nothing; an event about
// another kind of object is marked processed as it is. A Stripe that cannot be reached fails
// the run, and the queue retries it.
import {
  type Db,
  findInvoiceById,
  findStripeEvent,
  findSubscriptionById,
  type Logger,
  markStripeEventProcessed,
  moveInvoice,
  type SqlStore,
  type StripeConfig,
  type StripeEventJob,
  setSubscriptionStatus,
  storeStripeObject,
} from '@spendgate/store';
import type Stripe from 'stripe';
import { applyCheckoutSession, auditBySystem, type InvalidateKey, refreshSubscriptionKeys } from '../payments/billing.ts';
import { createStripeClient } from '../payments/stripe.ts';

/** Reads an object's current state from Stripe, by the `object` its events carry. */
const READ_BACK: Record<string, (stripe: Stripe, id: string) => Promise<{ id: string; object: string }>> = {
  subscription: (stripe, id) => stripe.subscriptions.retrieve(id),
  'checkout.session': (stripe, id) => stripe.checkout.sessions.retrieve(id),
  invoice: (stripe, id) => stripe.invoices.retrieve(id),
  customer: (stripe, id) => stripe.customers.retrieve(id),
};

/**
 * Marks Spendgate's invoice paid when the Stripe invoice that charges it is (a past-due
 * subscription is active again). Answers the subscription whose status it changed.
 */
async function invoicePaidAtStripe(db: Db, charged: Stripe.Invoice, at: Date): Promise<string | undefined> {
  const invoiceId = charged.metadata?.invoiceId;
  if (charged.status !== 'paid' || !invoiceId || !/^[0-9a-f-]{36}$/.test(invoiceId)) return undefined;
  const invoice = await findInvoiceById(db, invoiceId);
  if (!invoice || (invoice.stripe_invoice_id !== null && invoice.stripe_invoice_id !== charged.id)) return undefined;
  if (!(await moveInvoice(db, invoice.id, 'paid', at))) return undefined;
  const status = (await findSubscriptionById(db, invoice.subscription_id))?.status;
  const reactivated = status === 'past_due';
  if (reactivated) await setSubscriptionStatus(db, invoice.subscription_id, 'active');
  await auditBySystem(db, invoice.subscription_id, {
    action: 'invoice.collected',
    targetType: 'invoice',
    targetId: invoice.id,
    details: { number: invoice.number, totalPence: String(invoice.total_pence), stripeInvoiceId: charged.id, source: 'stripe-webhook' },
    before: { status: invoice.status, subscriptionStatus: status },
    after: { status: 'paid', subscriptionStatus: reactivated ? 'active' : status },
  });
  return reactivated ? invoice.subscription_id : undefined;
}

export function createStripeEventProcessor(deps: {
  sql: Pick<SqlStore, 'db'>;
  stripe: Pick<StripeConfig, 'apiUrl' | 'secretKey'>;
  log: Logger;
  invalidateKey: InvalidateKey;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());
  const stripe = createStripeClient(deps.stripe);

  return async (job: StripeEventJob): Promise<void> => {
    const event = await findStripeEvent(db, job.eventId);
    if (!event || event.processed_at) return;
    const object = (event.payload as { data?: { object?: { id?: string; object?: string } } }).data?.object;
    const readBack = object?.object ? READ_BACK[object.object] : undefined;
    let state: { id: string; object: string } | undefined;
    const readAt = now();
    if (readBack && object?.id) {
      if (!stripe) throw new Error(`Stripe event ${event.id} (${event.type}) waits for STRIPE_SECRET_KEY to be read back`);
      const { lastResponse: _response, ...read } = (await readBack(stripe, object.id)) as { id: string; object: string; lastResponse?: unknown };
      state = read;
      if (state.object === 'checkout.session') {
        const session = state as unknown as Stripe.Checkout.Session;
        if (await applyCheckoutSession({ sql: deps.sql, stripe, now }, session, null)) await refreshSubscriptionKeys(deps, session.metadata!.subscriptionId!);
      }
    }
    const reactivated = await db.transaction().execute(async (trx) => {
      if (!(await markStripeEventProcessed(trx, event.id, readAt))) return undefined;
      if (state) await storeStripeObject(trx, { id: state.id, object: state.object, state: state as unknown as Record<string, unknown>, readAt });
      return state?.object === 'invoice' ? invoicePaidAtStripe(trx, state as unknown as Stripe.Invoice, readAt) : undefined;
    });
    if (reactivated) await refreshSubscriptionKeys(deps, reactivated);
  };
}
