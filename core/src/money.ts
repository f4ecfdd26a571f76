// Money as whole micro-units (1/1,000,000 of a dollar or pound) with an explicit
// currency. Amounts are bigint so sums never drift; floats never hold money here.

export type Currency = 'USD' | 'GBP';

export interface Money {
  micros: bigint;
  currency: Currency;
}

/** Micro-units in one dollar or pound. */
export const MICROS_PER_UNIT = 1_000_000n;

const CURRENCY_SYMBOLS: Record<Currency, string> = { USD: '$', GBP: '£' };

/**
 * Builds a Money value. A number must be a safe integer: money is counted in whole
 * micro-units, never in fractions of one.
 *
 * @example money(12_500_000, 'GBP') // £12.50
 */
export function money(micros: bigint | number, currency: Currency): Money {
  if (typeof micros === 'number' && !Number.isSafeInteger(micros)) {
    throw new RangeError(`money needs a whole number of micro-units, got ${micros}`);
  }
  return { micros: BigInt(micros), currency };
}

/** Adds two amounts of the same currency; mixing currencies is a programming error. */
export function addMoney(a: Money, b: Money): Money {
  if (a.currency !== b.currency) {
    throw new Error(`cannot add ${a.currency} to ${b.currency} without an exchange rate`);
  }
  return { micros: a.micros + b.micros, currency: a.currency };
}

/**
 * Exact decimal string with six decimals, for JSON answers (no float ever parses it).
 *
 * @example microsToDecimalString(1_234n) // '0.001234'
 * @example microsToDecimalString(-12_500_000n) // '-12.500000'
 */
export function microsToDecimalString(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const magnitude = micros < 0n ? -micros : micros;
  const whole = magnitude / MICROS_PER_UNIT;
  const fraction = (magnitude % MICROS_PER_UNIT).toString().padStart(6, '0');
  return `${sign}${whole}.${fraction}`;
}

/**
 * Parses a non-negative decimal amount ("2.50", 2.5, "0.000125") into micro-units,
 * exactly; undefined for anything else, or for more than six decimals.
 *
 * @example decimalToMicros('2.50') // 2_500_000n
 */
export function decimalToMicros(value: string | number): bigint | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) return undefined;
  return BigInt(match[1]!) * MICROS_PER_UNIT + BigInt((match[2] ?? '').padEnd(6, '0'));
}

/**
 * Money for people: currency symbol, as many decimals as it takes to be exact, at least two.
 *
 * @example formatMoney(money(1_234, 'USD')) // '$0.001234'
 * @example formatMoney(money(12_500_000, 'GBP')) // '£12.50'
 */
export function formatMoney(amount: Money): string {
  const decimal = microsToDecimalString(amount.micros);
  const sign = decimal.startsWith('-') ? '-' : '';
  const unsigned = sign ? decimal.slice(1) : decimal;
  const trimmed = unsigned.replace(/0{1,4}$/, ''); // six decimals, keep at least two
  return `${sign}${CURRENCY_SYMBOLS[amount.currency]}${trimmed}`;
}

/**
 * Integer division rounded to the nearest whole number, halves away from zero
 * (0.5 → 1, -0.5 → -1): the "half-up" rule of commercial rounding.
 *
 * @example roundHalfUpDiv(15n, 10n) // 2n
 * @example roundHalfUpDiv(14n, 10n) // 1n
 */
export function roundHalfUpDiv(numerator: bigint, divisor: bigint): bigint {
  if (divisor === 0n) throw new RangeError('roundHalfUpDiv: division by zero');
  const negative = numerator < 0n !== divisor < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = divisor < 0n ? -divisor : divisor;
  const rounded = (2n * n + d) / (2n * d);
  return negative ? -rounded : rounded;
}
