/**
 * invoice-build (hourly): moves subscriptions through their billing periods.
 *
 * - A trial that has ended starts billing when the account has a default payment method
 *   and is on a paid plan: the subscription is active from the trial's end, its periods
 *   anchored there. A trial cancelled at its end ends then. Otherwise it is paused (the access rule: BYOK keys keep working,
 *   optimised and BYOM keys stop until a payment method is added).
 * - A billing period that ended at least `INVOICE_GRACE_MS` ago (usage events reach the
 *   database within seconds, or when the queue is back after an outage) gets its
 *   invoice — core's buildInvoice on what the store counted — recorded once per
 *   (subscription, period), finalized (open; paid at once when it comes to £0), and the
 *   subscription moves to its next period, or ends when it was cancelled. Each period is
 *   one transaction holding the subscription's row, so runs that overlap, or a run again
 *   after a failure, change nothing twice.
 * - Usage that reached the database after an earlier period's invoice was built (late
 *   usage) is billed on this period's invoice, on adjustment lines naming the invoice they
 *   adjust (core/src/invoices.ts says why there): the invoice counts the events recorded
 *   before its cut-off (usageCountedBefore, taken before its transaction), and each
 *   earlier invoice's late usage from where it was last counted up to that cut-off — so
 *   each event is billed once, and an invoice built again bills nothing again.
 * - A subscription that has ended has no next invoice: its late usage that arrived at least
 *   `INVOICE_GRACE_MS` ago gets a standalone invoice of adjustment lines only (core's
 *   buildAdjustmentInvoice), its period empty at its cut-off, finalised and collected as
 *   any other, under the subscription's row lock so overlapping runs bill it once; none
 *   when it comes to £0 (demo teams are never billed).
 * - A subscription whose status this changed (a trial paused, started or ended, a
 *   subscription ended at its period's end) has its keys dropped from every gateway's key
 *   cache once the change is committed, so the data plane applies it at the next request.
 * - Each change is audited by the system in its transaction: an invoice finalised (its number
 *   and total in pence, a period's or an adjustment's), a trial's end (billing started,
 *   paused, or the subscription ended) and a subscription ended at its period's end, with the
 *   subscription's status before and after.
 */
import { buildAdjustmentInvoice, buildInvoice, type PlanSlug, periodEndAfter, statusAt } from '@spendgate/core';
import {
  advanceBillingPeriod,
  billedTeamIds,
  cancelSubscription,
  endedSubscriptionsWithInvoices,
  endedTrials,
  finalizeInvoice,
  insertInvoice,
  invoiceInput,
  type Logger,
  lateUsageInput,
  lateUsageWindows,
  lockSubscription,
  moveInvoice,
  type SqlStore,
  setSubscriptionStatus,
  startBillingPeriod,
  subscriptionsToInvoice,
  usageCountedBefore,
} from '@spendgate/store';
import { auditBySystem, type InvalidateKey, refreshSubscriptionKeys } from '../payments/billing.ts';

/** How long after its period's end an invoice waits for usage events still on their way. */
export const INVOICE_GRACE_MS = 3_600_000;
/** Periods invoiced per run at most (one subscription long behind gets one per period). */
const MAX_PERIODS_PER_RUN = 1_000;
const BATCH = 50;
const DAY_MS = 86_400_000;

export function createInvoiceBuildProcessor(deps: {
  sql: Pick<SqlStore, 'db'>;
  log: Pick<Logger, 'info'>;
  invalidateKey: InvalidateKey;
  /** Days a usage event is kept: earlier periods' late usage is looked for within them. */
  usageEventRetentionDays: number;
  now?: () => Date;
}) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  /** Invoices the subscription's current period if it is due by `cutoff`: whether it did, and whether the subscription ended. */
  async function invoicePeriod(subscriptionId: string, at: Date, cutoff: Date): Promise<{ invoiced: boolean; ended: boolean }> {
    const nothing = { invoiced: false, ended: false };
    const countedBefore = await usageCountedBefore(db);
    return db.transaction().execute(async (trx) => {
      const subscription = await lockSubscription(trx, subscriptionId);
      const start = subscription?.current_period_start;
      const end = subscription?.current_period_end;
      if (!subscription || !start || !end || !subscription.billing_anchor) return nothing;
      const cancelledWithin = subscription.status === 'canceled' && subscription.canceled_at !== null && subscription.canceled_at < end;
      const billedUntil = cancelledWithin ? new Date(Math.max(subscription.canceled_at!.getTime(), start.getTime())) : end;
      if (billedUntil > cutoff) return nothing;
      const late = await lateUsageWindows(trx, subscription.id, start, new Date(at.getTime() - deps.usageEventRetentionDays * DAY_MS));
      const invoice = buildInvoice(await invoiceInput(trx, { id: subscription.id, userId: subscription.user_id }, { start, end, billedUntil }, { countedBefore, late }));
      const recorded = await insertInvoice(trx, {
        id: crypto.randomUUID(),
        subscriptionId: subscription.id,
        periodStart: start,
        periodEnd: end,
        billedUntil,
        createdAt: at,
        usageCountedBefore: countedBefore,
        ...invoice,
      });
      if (recorded.created) {
        const number = await finalizeInvoice(trx, recorded.id, at);
        const paid = invoice.totalPence === 0n && (await moveInvoice(trx, recorded.id, 'paid', at));
        await auditBySystem(trx, subscription.id, {
          action: 'invoice.finalized',
          targetType: 'invoice',
          targetId: recorded.id,
          details: { kind: 'period', subscriptionId: subscription.id, periodStart: start.toISOString(), periodEnd: end.toISOString(), lines: invoice.lines.length },
          before: { status: 'draft' },
          after: { status: paid ? 'paid' : 'open', number, totalPence: invoice.totalPence.toString() },
        });
      }
      const ends = subscription.status === 'canceled' || subscription.cancel_at_period_end;
      const canceledAt = subscription.canceled_at ?? end;
      await advanceBillingPeriod(trx, subscription.id, ends ? { canceledAt } : { start: end, end: periodEndAfter(subscription.billing_anchor, end) });
      if (ends && subscription.status !== 'canceled') {
        await auditBySystem(trx, subscription.id, {
          action: 'subscription.ended',
          targetType: 'subscription',
          targetId: subscription.id,
          details: { reason: 'cancelled at the end of its period' },
          before: { status: subscription.status, planSlug: subscription.plan_slug },
          after: { status: 'canceled', canceledAt: canceledAt.toISOString() },
        });
      }
      deps.log.info({ subscriptionId, invoiceId: recorded.id, totalPence: invoice.totalPence.toString(), lines: invoice.lines.length }, 'invoice-build: invoiced a billing period');
      return { invoiced: true, ended: subscription.status !== 'canceled' && ends };
    });
  }

  /**
   * Bills the late usage of a subscription that has ended, recorded before `cutoff`, on a
   * standalone invoice of adjustment lines (its period empty, at its cut-off): whether it did.
   */
  async function invoiceFinalLateUsage(subscriptionId: string, at: Date, cutoff: Date): Promise<boolean> {
    const countedBefore = new Date(Math.min((await usageCountedBefore(db)).getTime(), cutoff.getTime()));
    return db.transaction().execute(async (trx) => {
      const subscription = await lockSubscription(trx, subscriptionId);
      if (subscription?.status !== 'canceled' || subscription.current_period_start !== null) return false;
      const late = await lateUsageWindows(trx, subscription.id, countedBefore, new Date(at.getTime() - deps.usageEventRetentionDays * DAY_MS));
      const invoice = buildAdjustmentInvoice(await lateUsageInput(trx, await billedTeamIds(trx, subscription.user_id), late, countedBefore));
      if (invoice.totalPence === 0n) return false;
      const recorded = await insertInvoice(trx, {
        id: crypto.randomUUID(),
        subscriptionId: subscription.id,
        periodStart: countedBefore,
        periodEnd: countedBefore,
        billedUntil: countedBefore,
        createdAt: at,
        usageCountedBefore: countedBefore,
        ...invoice,
      });
      if (!recorded.created) return false;
      const number = await finalizeInvoice(trx, recorded.id, at);
      await auditBySystem(trx, subscription.id, {
        action: 'invoice.finalized',
        targetType: 'invoice',
        targetId: recorded.id,
        details: { kind: 'adjustment', subscriptionId: subscription.id, lines: invoice.lines.length },
        before: { status: 'draft' },
        after: { status: 'open', number, totalPence: invoice.totalPence.toString() },
      });
      deps.log.info({ subscriptionId, invoiceId: recorded.id, totalPence: invoice.totalPence.toString(), lines: invoice.lines.length }, "invoice-build: invoiced an ended subscription's late usage");
      return true;
    });
  }

  return async (): Promise<void> => {
    const at = now();
    for (const trial of await endedTrials(db, at)) {
      const trialEnd = trial.trial_end!;
      const state = { planSlug: trial.plan_slug as PlanSlug, status: 'trialing' as const, trialEnd, hasPaymentMethod: trial.has_payment_method };
      await db.transaction().execute(async (trx) => {
        // Held, and still a trial: a run beside this one changes and audits it once.
        if ((await lockSubscription(trx, trial.id))?.status !== 'trialing') return;
        const audit = (action: string, after: Record<string, unknown>) =>
          auditBySystem(trx, trial.id, {
            action,
            targetType: 'subscription',
            targetId: trial.id,
            details: { reason: 'trial ended', trialEnd: trialEnd.toISOString() },
            before: { status: 'trialing', planSlug: trial.plan_slug },
            after,
          });
        if (trial.cancel_at_period_end) {
          await cancelSubscription(trx, trial.id, { immediate: true, at: trialEnd });
          await audit('subscription.ended', { status: 'canceled', canceledAt: trialEnd.toISOString() });
        } else if (statusAt(state, at) === 'active') {
          const periodEnd = periodEndAfter(trialEnd, trialEnd);
          await startBillingPeriod(trx, { subscriptionId: trial.id, anchor: trialEnd, start: trialEnd, end: periodEnd });
          await audit('subscription.billing_started', { status: 'active', planSlug: trial.plan_slug, periodStart: trialEnd.toISOString(), periodEnd: periodEnd.toISOString() });
        } else {
          await setSubscriptionStatus(trx, trial.id, 'paused');
          await audit('subscription.paused', { status: 'paused', planSlug: trial.plan_slug });
        }
      });
      await refreshSubscriptionKeys(deps, trial.id);
    }
    const cutoff = new Date(at.getTime() - INVOICE_GRACE_MS);
    let invoiced = 0;
    while (invoiced < MAX_PERIODS_PER_RUN) {
      const due = await subscriptionsToInvoice(db, cutoff, BATCH);
      let progressed = false;
      for (const subscription of due) {
        const period = await invoicePeriod(subscription.id, at, cutoff);
        if (period.ended) await refreshSubscriptionKeys(deps, subscription.id);
        if (period.invoiced) {
          invoiced += 1;
          progressed = true;
        }
      }
      if (!progressed) break;
    }
    for (const subscription of await endedSubscriptionsWithInvoices(db, new Date(at.getTime() - deps.usageEventRetentionDays * DAY_MS))) {
      await invoiceFinalLateUsage(subscription.id, at, cutoff);
    }
  };
}
