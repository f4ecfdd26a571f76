/**
 * An invoice as CSV, the download the subscription screen offers: one row per line
 * (its window, kind, description, quantity, unit price, amount) and a total row, amounts in pounds
 * with exact decimals, so a spreadsheet sums the lines to the total.
 */
import { microsToDecimalString } from '@spendgate/core';
import type { Invoice, InvoiceDetail } from '../../api/subscription/types.ts';

/** An invoice's number, given when it is finalised; a draft has none yet. */
export const invoiceName = (invoice: Pick<Invoice, 'number'>) => invoice.number ?? 'Draft';

/** Whole pence as pounds with two decimals (-1234 → "-12.34"). */
function pounds(pence: number): string {
  const amount = BigInt(pence);
  const magnitude = amount < 0n ? -amount : amount;
  return `${amount < 0n ? '-' : ''}${magnitude / 100n}.${(magnitude % 100n).toString().padStart(2, '0')}`;
}

function cell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function invoiceCsv(invoice: InvoiceDetail): string {
  const number = invoiceName(invoice);
  const rows = [
    ['Invoice', 'From', 'To', 'Kind', 'Description', 'Quantity', `Unit price (${invoice.currency})`, `Amount (${invoice.currency})`],
    ...invoice.lines.map((line) => [
      number,
      line.windowStart,
      line.windowEnd,
      line.kind,
      line.description,
      String(line.quantity),
      line.unitAmountMicros === null ? '' : microsToDecimalString(BigInt(line.unitAmountMicros)),
      pounds(line.amountPence),
    ]),
    [number, invoice.periodStart, invoice.periodEnd, 'total', 'Total', '', '', pounds(invoice.totalPence)],
  ];
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}
