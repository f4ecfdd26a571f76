/**
 * invoice-proof (nightly): proves every invoice still equals what it counts. Each
 * invoice not void whose period's usage events are still kept (by each of its teams: a team
 * may keep them fewer days than the deployment) is built again from the
 * events, advisor insights, recorded usage, plan units and plan history as they are now
 * (the same predicate per line: kind, meter, team, window, unit price; for usage events,
 * those recorded before the invoice's cut-off, and for an adjustment line the late usage
 * of the window it adjusts recorded from where that was last counted) and compared line
 * by line with what was invoiced: quantity and micro-units, each line's pence and the
 * total. What the recount found is stored on each line and the invoice marked proved or
 * not; a mismatch (an event changed or deleted) is logged as an error naming the invoice
 * and its lines.
 *
 * So each window's events are accounted for: those recorded before its invoice's cut-off
 * are on its own lines, later ones on the adjustment lines of the invoices after it, up
 * to the last one's cut-off; what was recorded after that is late usage still to bill on
 * the subscription's next invoice (or, once it has ended, its standalone adjustment
 * invoice), counted here and logged (pendingLateRequests).
 */
import { buildAdjustmentInvoice, buildInvoice, type InvoiceLine, invoiceLineKey, microsToPence } from '@spendgate/core';
import {
  adjustedWindows,
  billedTeamIds,
  countCharges,
  invoiceInput,
  invoicesToProve,
  lateUsageInput,
  lateUsageWindows,
  listInvoiceLines,
  type Logger,
  recordInvoiceProof,
  shortestUsageEventRetentionDays,
  type SqlStore,
} from '@spendgate/store';

const DAY_MS = 86_400_000;

export function createInvoiceProofProcessor(deps: { sql: Pick<SqlStore, 'db'>; log: Pick<Logger, 'info' | 'error'>; usageEventRetentionDays: number; now?: () => Date }) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  return async (): Promise<void> => {
    const at = now();
    const since = new Date(at.getTime() - deps.usageEventRetentionDays * DAY_MS);
    let mismatched = 0;
    const invoices = await invoicesToProve(db, since);
    for (const invoice of invoices) {
      // A team that keeps its events fewer days than the deployment has pruned what an older period counted.
      const keptDays = await shortestUsageEventRetentionDays(db, await billedTeamIds(db, invoice.user_id), deps.usageEventRetentionDays);
      if (invoice.period_end.getTime() <= at.getTime() - keptDays * DAY_MS) continue;
      const stored = await listInvoiceLines(db, invoice.id);
      const late = await adjustedWindows(db, invoice.id);
      // An ended subscription's standalone adjustment invoice has an empty period: only its late usage.
      const rebuilt =
        invoice.period_end.getTime() === invoice.period_start.getTime()
          ? buildAdjustmentInvoice(await lateUsageInput(db, await billedTeamIds(db, invoice.user_id), late, invoice.usage_counted_before))
          : buildInvoice(
              await invoiceInput(
                db,
                { id: invoice.subscription_id, userId: invoice.user_id },
                { start: invoice.period_start, end: invoice.period_end, billedUntil: invoice.billed_until },
                { countedBefore: invoice.usage_counted_before, late },
              ),
            );
      const recounted = new Map<string, InvoiceLine>(rebuilt.lines.map((line) => [invoiceLineKey(line), line]));
      const differences: { line: string; invoiced?: string; found?: string }[] = [];
      const found = stored.map((line) => {
        const key = invoiceLineKey({
          kind: line.kind,
          meter: line.meter,
          teamId: line.team_id,
          from: line.window_start,
          to: line.window_end,
          unitMicros: line.unit_amount_micros,
          adjusts: line.adjusts_invoice_id === null ? null : { invoiceId: line.adjusts_invoice_id },
        });
        const recount = recounted.get(key);
        recounted.delete(key);
        const quantity = recount?.quantity ?? 0n;
        const amountMicros = recount?.amountMicros ?? 0n;
        if (quantity !== line.quantity || amountMicros !== line.amount_micros || microsToPence(line.amount_micros) !== line.amount_pence) {
          differences.push({ line: line.id, invoiced: `${line.quantity} for ${line.amount_micros} µ (${line.amount_pence}p)`, found: `${quantity} for ${amountMicros} µ` });
        }
        return { lineId: line.id, quantity, amountMicros };
      });
      // What the recount charges that no line invoiced, and a total that is not its lines' pence.
      for (const [key, line] of recounted) differences.push({ line: key, found: `${line.quantity} for ${line.amountMicros} µ` });
      const linesPence = stored.reduce((sum, line) => sum + line.amount_pence, 0n);
      if (linesPence !== invoice.total_pence) differences.push({ line: 'total', invoiced: `${invoice.total_pence}p`, found: `${linesPence}p` });
      const ok = differences.length === 0;
      await recordInvoiceProof(db, { invoiceId: invoice.id, at, ok, lines: found });
      if (!ok) {
        mismatched += 1;
        deps.log.error({ invoiceId: invoice.id, number: invoice.number, differences }, 'invoice-proof: an invoice no longer equals the usage it counts');
      }
    }
    let pendingLateRequests = 0n;
    for (const subscription of new Map(invoices.map((invoice) => [invoice.subscription_id, invoice.user_id]))) {
      const [subscriptionId, userId] = subscription;
      const teamIds = await billedTeamIds(db, userId);
      for (const window of await lateUsageWindows(db, subscriptionId, at, since)) {
        for (const pending of await countCharges(db, teamIds, window.from, window.to, { from: window.arrivedFrom })) pendingLateRequests += pending.requests;
      }
    }
    deps.log.info({ invoices: invoices.length, mismatched, pendingLateRequests: pendingLateRequests.toString() }, 'invoice-proof: recounted the invoices');
  };
}
