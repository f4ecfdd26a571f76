// How usage figures read on the connections, groups and overview screens: costs from the API's
// integer micro-unit strings (never through a float), counts with thousands separators.
import { type Currency, formatMoney, money } from '@spendgate/core';

const CURRENCIES: readonly string[] = ['USD', 'GBP'] satisfies Currency[];

/** e.g. costText('1234', 'USD') → '$0.001234'; a currency the console does not know is written by code. */
export function costText(micros: string, currency: string): string {
  if (CURRENCIES.includes(currency)) return formatMoney(money(BigInt(micros), currency as Currency));
  return `${(Number(micros) / 1_000_000).toFixed(6)} ${currency}`;
}

export const countText = (count: number) => count.toLocaleString('en-GB');
