/**
 * The budget form's rules and a budget's figures, apart from the screens. Amounts are
 * decimal text turned into integer micro-units with core's money helpers (never floats):
 * more than 0, at most 1,000,000,000, at most six decimals. Alert thresholds are whole
 * percentages of the amount, 1 to 1000, at most 10.
 *
 * @example
 *   readBudgetForm({ amount: '25.5', window: 'month', mode: 'hard', alertAt: '80, 50' })
 *   // { values: { amount: '25.5', window: 'month', mode: 'hard', alertAt: [50, 80] }, errors: {} }
 */
import { type Currency, decimalToMicros, formatMoney, MICROS_PER_UNIT, money } from '@spendgate/core';
import type { Budget, BudgetMode, BudgetWindow } from '../../api/budgets/types.ts';

export interface BudgetFields {
  amount: string;
  window: BudgetWindow;
  mode: BudgetMode;
  /** Percentages separated by commas or spaces; empty for no alerts. */
  alertAt: string;
}

export interface BudgetValues {
  amount: string;
  window: BudgetWindow;
  mode: BudgetMode;
  alertAt: number[];
}

export type BudgetFieldErrors = Partial<Record<keyof BudgetFields, string>>;

export const MAX_BUDGET_UNITS = 1_000_000_000n;
export const MAX_ALERTS = 10;
const MAX_ALERT_PERCENT = 1000;

export const WINDOW_LABELS: Record<BudgetWindow, string> = { day: 'Daily', week: 'Weekly', month: 'Monthly', total: 'Total (never resets)' };
export const MODE_LABELS: Record<BudgetMode, string> = { hard: 'Hard cap', soft: 'Soft (alerts only)', downgrade: 'Downgrade to a cheaper model' };

export const NEW_BUDGET_FIELDS: BudgetFields = { amount: '', window: 'month', mode: 'hard', alertAt: '50, 80, 100' };

export function budgetFieldsFrom(budget: Budget): BudgetFields {
  return { amount: formatDecimal(budget.amount), window: budget.window, mode: budget.mode, alertAt: budget.alertAt.join(', ') };
}

/** "25.500000" → "25.5": the API's six decimals without the zeros a person would not type. */
function formatDecimal(amount: string): string {
  return amount.includes('.') ? amount.replace(/\.?0+$/, '') : amount;
}

/** The values the API takes, or the problems field by field. */
export function readBudgetForm(fields: BudgetFields): { values?: BudgetValues; errors: BudgetFieldErrors } {
  const errors: BudgetFieldErrors = {};
  const amount = fields.amount.trim().replace(/^£/, '').replaceAll(',', '');
  const micros = amount ? decimalToMicros(amount) : undefined;
  if (!amount) errors.amount = 'Amount is required';
  else if (micros === undefined) errors.amount = 'Amount must be a number with at most 6 decimals';
  else if (micros === 0n) errors.amount = 'Amount must be more than 0';
  else if (micros > MAX_BUDGET_UNITS * MICROS_PER_UNIT) errors.amount = 'Amount must be at most 1,000,000,000';

  const parts = fields.alertAt
    .split(/[\s,]+/)
    .map((part) => part.replace(/%$/, ''))
    .filter(Boolean);
  const alertAt: number[] = [];
  for (const part of parts) {
    const value = Number(part);
    if (!/^\d+$/.test(part) || value < 1 || value > MAX_ALERT_PERCENT) {
      errors.alertAt = `Alert thresholds must be whole percentages from 1 to ${MAX_ALERT_PERCENT}`;
      break;
    }
    if (!alertAt.includes(value)) alertAt.push(value);
  }
  if (!errors.alertAt && alertAt.length > MAX_ALERTS) errors.alertAt = `Set at most ${MAX_ALERTS} alert thresholds`;

  if (Object.keys(errors).length > 0) return { errors };
  return { values: { amount, window: fields.window, mode: fields.mode, alertAt: alertAt.sort((a, b) => a - b) }, errors };
}

const CURRENCIES: readonly Currency[] = ['GBP', 'USD'];

/** A budget's amounts in integer micro-units of its currency (the API's decimals, converted exactly). */
export function budgetFigures(budget: Budget) {
  const currency = CURRENCIES.find((code) => code === budget.currency) ?? 'GBP';
  const micros = (decimal: string) => decimalToMicros(decimal) ?? 0n;
  return {
    currency,
    amount: micros(budget.amount),
    spent: micros(budget.spent),
    reserved: micros(budget.reserved),
    remaining: micros(budget.remaining),
    format: (value: bigint) => formatMoney(money(value, currency)),
  };
}

/**
 * When a budget's window ends, in the team's time zone (its windows follow the team's
 * calendar), named; in the browser's zone while the team's is not known.
 *
 * @example formatResetTime('2026-11-30T15:00:00.000Z', 'Asia/Tokyo') // '1 Dec 2026, 00:00 (Asia/Tokyo)'
 */
export function formatResetTime(resetsAt: string | null, timeZone: string | undefined): string {
  if (!resetsAt) return 'Never (total budget)';
  const format = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', ...(timeZone && { timeZone }) });
  return `${format.format(new Date(resetsAt))}${timeZone ? ` (${timeZone})` : ''}`;
}
