/**
 * invoice-collect (every 10 minutes): charges Spendgate's open invoices through Stripe.
 *
 * Each open invoice with something to charge that is not at Stripe yet, whose subscription's
 * customer has a default card, gets its Stripe invoice (found by its metadata, else made:
 * charged automatically, no pending items taken), one invoice item per line — its amount in
 * pence, description and window; a line already there is not added again — finalized and
 * paid once. Stripe's total must equal ours to the penny, or nothing is charged and the
 * difference is logged. Paid: the invoice is paid. Declined: the subscription is past_due and
 * Stripe retries (auto_advance); the webhook marks the invoice paid when a retry succeeds.
 * Then the invoice names its Stripe invoice and is not taken again; a subscription whose
 * status changed has its keys dropped from the gateways' key caches. Every write carries an
 * idempotency key from the subscription, the period and the line or step. The outcome is
 * audited by the system: invoice.collected or invoice.declined, with the invoice's number and
 * total and the subscription's status before and after.
 */
import {
  findSubscriptionById,
  invoicesToCollect,
  type Logger,
  listInvoiceLines,
  moveInvoice,
  type SqlStore,
  type StripeConfig,
  setStripeInvoice,
  setSubscriptionStatus,
} from '@spendgate/store';
import Stripe from 'stripe';
import { auditBySystem, type InvalidateKey, refreshSubscriptionKeys } from '../payments/billing.ts';
import { createStripeClient, stripeIdempotencyKey } from '../payments/stripe.ts';

const BATCH = 50;

type Due = Awaited<ReturnType<typeof invoicesToCollect>>[number];

export function createInvoiceCollectProcessor(deps: {
  sql: Pick<SqlStore, 'db'>;
  stripe: Pick<StripeConfig, 'apiUrl' | 'secretKey'>;
  log: Pick<Logger, 'info' | 'error'>;
  invalidateKey: InvalidateKey;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());
  const stripe = createStripeClient(deps.stripe);

  /** The Stripe invoice made for ours, if one was (a run that stopped half-way made it). */
  async function stripeInvoiceFor(client: Stripe, customer: string, invoiceId: string): Promise<Stripe.Invoice | undefined> {
    for await (const candidate of client.invoices.list({ customer, limit: 100 })) if (candidate.metadata?.invoiceId === invoiceId) return candidate;
    return undefined;
  }

  async function collect(client: Stripe, invoice: Due, customer: string): Promise<void> {
    const key = (step: string, ...parts: string[]) => stripeIdempotencyKey(step, invoice.subscription_id, invoice.period_start.toISOString(), ...parts);
    let charged =
      (await stripeInvoiceFor(client, customer, invoice.id)) ??
      (await client.invoices.create(
        {
          customer,
          currency: 'gbp',
          collection_method: 'charge_automatically',
          auto_advance: false,
          pending_invoice_items_behavior: 'exclude',
          description: `Spendgate ${invoice.number}`,
          metadata: { invoiceId: invoice.id, number: invoice.number, subscriptionId: invoice.subscription_id },
        },
        { idempotencyKey: key('invoice') },
      ));
    if (charged.status === 'draft') {
      const added = new Set<string>();
      for await (const item of client.invoiceItems.list({ invoice: charged.id, limit: 100 })) if (item.metadata?.lineId) added.add(item.metadata.lineId);
      for (const line of await listInvoiceLines(db, invoice.id)) {
        if (added.has(line.id)) continue;
        await client.invoiceItems.create(
          {
            customer,
            invoice: charged.id,
            amount: Number(line.amount_pence),
            currency: 'gbp',
            description: line.description,
            period: { start: Math.floor(line.window_start.getTime() / 1000), end: Math.floor(line.window_end.getTime() / 1000) },
            metadata: { invoiceId: invoice.id, lineId: line.id, kind: line.kind },
          },
          { idempotencyKey: key('invoice-line', line.id) },
        );
      }
      charged = await client.invoices.retrieve(charged.id);
      if (BigInt(charged.total) !== BigInt(invoice.total_pence)) {
        deps.log.error({ invoiceId: invoice.id, stripeInvoiceId: charged.id, stripeTotal: charged.total, totalPence: String(invoice.total_pence) }, 'invoice-collect: Stripe total differs from the invoice; not charged');
        return;
      }
      charged = await client.invoices.finalizeInvoice(charged.id, { auto_advance: true }, { idempotencyKey: key('finalize') });
    }
    let paid = charged.status === 'paid';
    if (charged.status === 'open') {
      try {
        paid = (await client.invoices.pay(charged.id, {}, { idempotencyKey: key('pay') })).status === 'paid';
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeCardError)) throw error;
        deps.log.info({ invoiceId: invoice.id, stripeInvoiceId: charged.id, decline: error.code }, 'invoice-collect: the card was declined; Stripe retries');
      }
    }
    const statusChanged = await db.transaction().execute(async (trx) => {
      await setStripeInvoice(trx, invoice.id, charged.id);
      const status = (await findSubscriptionById(trx, invoice.subscription_id))?.status;
      const moved = paid && (await moveInvoice(trx, invoice.id, 'paid', now()));
      const next = paid ? (status === 'past_due' ? 'active' : status) : status === 'active' ? 'past_due' : status;
      if (next && next !== status) await setSubscriptionStatus(trx, invoice.subscription_id, next);
      if (moved || !paid) {
        await auditBySystem(trx, invoice.subscription_id, {
          action: paid ? 'invoice.collected' : 'invoice.declined',
          targetType: 'invoice',
          targetId: invoice.id,
          details: { number: invoice.number, totalPence: String(invoice.total_pence), stripeInvoiceId: charged.id },
          before: { status: 'open', subscriptionStatus: status },
          after: { status: moved ? 'paid' : 'open', subscriptionStatus: next },
        });
      }
      return next !== status;
    });
    if (statusChanged) await refreshSubscriptionKeys(deps, invoice.subscription_id);
    deps.log.info({ invoiceId: invoice.id, stripeInvoiceId: charged.id, paid }, 'invoice-collect: charged an invoice through Stripe');
  }

  return async (): Promise<void> => {
    if (!stripe) return;
    for (const invoice of await invoicesToCollect(db, BATCH)) {
      try {
        await collect(stripe, invoice, invoice.stripe_customer_id!);
      } catch (error) {
        // The next run tries again; one invoice's failure does not hold the others.
        deps.log.error({ err: error, invoiceId: invoice.id }, 'invoice-collect: Stripe could not charge the invoice now');
      }
    }
  };
}
