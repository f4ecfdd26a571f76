/**
 * The account's invoices, newest first as the server lists them: number, period, status
 * and total; each opens its lines (GET invoice/{id}) and downloads as CSV (invoice-csv.ts).
 * Adjustment lines (usage of an earlier period recorded after its invoice was built) come
 * after the period's own, under a heading of their own, each naming the invoice it
 * adjusts and the period it counts.
 */
import { formatMoney, money } from '@spendgate/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { invoiceQuery, invoicesQuery } from '../../api/subscription/queries.ts';
import type { Invoice, InvoiceLine, InvoiceLineKind, InvoiceStatus } from '../../api/subscription/types.ts';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { invoiceCsv, invoiceName } from './invoice-csv.ts';
import { billingDate, FAILED_TO_LOAD } from './PlanPanel.tsx';
import '../ui/panel.css';
import { Badge, type BadgeTone } from '../ui/Badge.tsx';

const STATUS_LABELS: Record<InvoiceStatus, string> = { draft: 'Draft', open: 'Due', paid: 'Paid', void: 'Void' };
const STATUS_TONES: Record<InvoiceStatus, BadgeTone> = { draft: 'brand', open: 'danger', paid: 'good', void: 'brand' };

export const LINE_LABELS: Record<InvoiceLineKind, string> = {
  plan: 'Plan',
  'optimised-uplift': 'Optimised requests',
  'optimised-minimum-fee': 'Optimised minimum fees',
  'byom-routing-fee': 'BYOM routing fees',
  'advisor-insights': 'AI advisor insights',
  'extra-keys': 'Extra optimised keys',
  'extra-groups': 'Extra groups',
  'extra-seats': 'Extra seats',
  'recorded-usage': 'Recorded usage',
};

const MICROS_PER_PENNY = 10_000n;

/** Whole pence as money for people: '£115.73'. */
export const pounds = (pence: number) => formatMoney(money(BigInt(pence) * MICROS_PER_PENNY, 'GBP'));
const count = new Intl.NumberFormat('en-GB');
/** Its period; an ended subscription's invoice of late usage alone has none (start = end) and says so. */
const period = (invoice: Invoice) =>
  invoice.periodStart === invoice.periodEnd
    ? `Late usage after the subscription ended, counted to ${billingDate.format(new Date(invoice.periodEnd))}`
    : `${billingDate.format(new Date(invoice.periodStart))} – ${billingDate.format(new Date(invoice.periodEnd))}`;

export function InvoicesPanel() {
  const invoices = useQuery(invoicesQuery());
  return (
    <section className="settings-panel billing-panel" aria-labelledby="invoices-title">
      <h2 id="invoices-title" className="settings-panel__title">
        Invoices
      </h2>
      {invoices.isPending ? (
        <LoadingState label="Loading invoices…" />
      ) : invoices.isError ? (
        <ErrorState title={FAILED_TO_LOAD} error={invoices.error} onRetry={() => invoices.refetch()} retrying={invoices.isRefetching} />
      ) : invoices.data.length === 0 ? (
        <p className="settings-panel__text">No invoices yet. The first comes at the end of your first paid period.</p>
      ) : (
        <ul className="billing-list" aria-label="Invoices">
          {invoices.data.map((invoice) => (
            <InvoiceRow key={invoice.id} invoice={invoice} />
          ))}
        </ul>
      )}
    </section>
  );
}

function InvoiceRow({ invoice }: { invoice: Invoice }) {
  const [open, setOpen] = useState(false);
  const linesId = `invoice-lines-${invoice.id}`;
  return (
    <li className="billing-list__item billing-list__item--invoice">
      <span>
        <strong>{invoiceName(invoice)}</strong> <span className="billing-list__sub">{period(invoice)}</span>
        <Badge tone={STATUS_TONES[invoice.status]}>{STATUS_LABELS[invoice.status]}</Badge>
      </span>
      <span className="billing-list__actions">
        <strong>{pounds(invoice.totalPence)}</strong>
        <button type="button" className="button button--ghost button--small" aria-expanded={open} aria-controls={linesId} onClick={() => setOpen(!open)}>
          {open ? 'Hide lines' : 'Show lines'}
          <span className="visually-hidden"> of {invoiceName(invoice)}</span>
        </button>
      </span>
      {open && (
        <div id={linesId} className="billing-invoice">
          <InvoiceLines invoiceId={invoice.id} />
        </div>
      )}
    </li>
  );
}

const shortDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

function LineRow({ line }: { line: InvoiceLine }) {
  return (
    <tr>
      <th scope="row">
        {LINE_LABELS[line.kind]}
        {line.adjusts && (
          <span className="billing-adjusts">
            <Badge tone="brand">
              Adjusts {line.adjusts.number}: {shortDate.format(new Date(line.windowStart))} – {shortDate.format(new Date(line.windowEnd))}
            </Badge>
          </span>
        )}
        <span className="billing-list__sub">{line.description}</span>
      </th>
      <td>{count.format(line.quantity)}</td>
      <td className="data-table__figure">{pounds(line.amountPence)}</td>
    </tr>
  );
}

const lineKey = (line: InvoiceLine) => `${line.kind} ${line.meter} ${line.teamId} ${line.planSlug} ${line.windowStart} ${line.unitAmountMicros} ${line.adjusts?.invoiceId}`;

/** Lines with their kind, what they count and their amount, then the adjustments of earlier periods, and the total. */
export function InvoiceLinesTable({ caption, lines, totalPence }: { caption: string; lines: readonly InvoiceLine[]; totalPence: number }) {
  const own = lines.filter((line) => line.adjusts === null);
  const adjustments = lines.filter((line) => line.adjusts !== null);
  return (
    <div className="table-scroll data-table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Quantity</th>
            <th scope="col" className="data-table__figure">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {own.map((line) => (
            <LineRow key={lineKey(line)} line={line} />
          ))}
        </tbody>
        {adjustments.length > 0 && (
          <tbody className="billing-adjustments">
            <tr>
              <th scope="rowgroup" colSpan={3}>
                Adjustments: usage of earlier periods recorded after their invoices
              </th>
            </tr>
            {adjustments.map((line) => (
              <LineRow key={lineKey(line)} line={line} />
            ))}
          </tbody>
        )}
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            <td />
            <td className="data-table__figure">{pounds(totalPence)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

function InvoiceLines({ invoiceId }: { invoiceId: string }) {
  const invoice = useQuery(invoiceQuery(invoiceId));
  if (invoice.isPending) return <LoadingState label="Loading the invoice's lines…" />;
  if (invoice.isError) return <ErrorState title={FAILED_TO_LOAD} error={invoice.error} onRetry={() => invoice.refetch()} retrying={invoice.isRefetching} />;
  const detail = invoice.data;
  return (
    <>
      <InvoiceLinesTable caption={`Lines of invoice ${invoiceName(detail)}`} lines={detail.lines} totalPence={detail.totalPence} />
      <a className="button button--ghost button--small" download={`${invoiceName(detail)}.csv`} href={`data:text/csv;charset=utf-8,${encodeURIComponent(invoiceCsv(detail))}`}>
        Download {invoiceName(detail)} (CSV)
      </a>
    </>
  );
}
