/**
 * Spend against a cap: what is spent, what is reserved by requests under way, and the
 * rest. One progressbar for assistive technology, whose text says all three amounts.
 * Amounts are integer micro-units (the API's decimal strings convert exactly with
 * core's decimalToMicros).
 *
 * @example
 *   <ProgressBar label="Monthly budget" spentMicros={4_200_000n} reservedMicros={300_000n}
 *     capMicros={10_000_000n} currency="GBP" />
 */
import { type Currency, formatMoney, money } from '@spendgate/core';

/** Whole percent of the cap, 0 to 100; a zero cap is full. */
function percentOf(part: bigint, cap: bigint): number {
  if (cap <= 0n) return 100;
  const percent = Number((part * 10_000n) / cap) / 100;
  return Math.min(100, Math.max(0, percent));
}

export function ProgressBar({
  label,
  spentMicros,
  reservedMicros = 0n,
  capMicros,
  currency,
}: {
  label: string;
  spentMicros: bigint;
  reservedMicros?: bigint;
  capMicros: bigint;
  currency: Currency;
}) {
  const used = spentMicros + reservedMicros;
  const spentPercent = percentOf(spentMicros, capMicros);
  const usedPercent = percentOf(used, capMicros);
  const format = (micros: bigint) => formatMoney(money(micros, currency));
  const text =
    `${format(spentMicros)} spent` +
    (reservedMicros > 0n ? `, ${format(reservedMicros)} reserved` : '') +
    ` of ${format(capMicros)}`;
  const level = usedPercent >= 100 ? 'full' : usedPercent >= 80 ? 'high' : 'normal';

  return (
    <div className={`progress progress--${level}`}>
      <div
        className="progress__track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(usedPercent)}
        aria-valuetext={`${Math.round(usedPercent)}%: ${text}`}
      >
        <span className="progress__spent" style={{ width: `${spentPercent}%` }} />
        <span className="progress__reserved" style={{ width: `${usedPercent - spentPercent}%` }} />
      </div>
      <p className="progress__text">
        {text} <span className="progress__percent">({Math.round(usedPercent)}%)</span>
      </p>
    </div>
  );
}
