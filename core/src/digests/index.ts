/**
 * Spend digests: a team admin's weekly or monthly e-mail of the team's spend. A period is a
 * whole calendar week (Monday to Sunday) or month in the team's time zone; its digest is due
 * from 08:00 local on the day after it ends. The text is built from exact sums (micro-units),
 * so every amount in it is the one the console shows for the same days; with the stored
 * forecast of the month it is sent in, when there is one.
 */
import { percentSpent, WINDOW_WORDS } from '../alerts/index.ts';
import { type BudgetScope, type BudgetWindow, budgetWindowAt, localDay } from '../budgets.ts';
import { formatMoney, money } from '../money.ts';

export const DIGEST_FREQUENCIES = ['weekly', 'monthly'] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];

/** Hours after a period's end (local midnight) its digest becomes due: 08:00 local on the next day. */
export const DIGEST_DUE_HOURS = 8;

export interface DigestPeriod {
  /** Its first and last local days (yyyy-mm-dd), and the instant it starts. */
  firstDay: string;
  lastDay: string;
  start: Date;
  /** The instant the period ends (the next period's start). */
  end: Date;
  /** The period before, for comparison. */
  previous: { firstDay: string; lastDay: string; start: Date; end: Date };
  /** When its digest may be sent. */
  dueAt: Date;
}

const WINDOW = { weekly: 'week', monthly: 'month' } as const;

const dueAfter = (end: Date) => new Date(end.getTime() + DIGEST_DUE_HOURS * 3_600_000);

function wholeSpan(frequency: DigestFrequency, at: Date, timeZone: string) {
  const span = budgetWindowAt(WINDOW[frequency], at, timeZone);
  return { firstDay: span.label, lastDay: localDay(new Date(span.end!.getTime() - 1), timeZone), start: span.start!, end: span.end! };
}

/**
 * The last whole period before `now` in `timeZone`.
 *
 * @example lastDigestPeriod('weekly', new Date('2026-11-25T12:00:00Z'), 'UTC').firstDay // '2026-11-16'
 */
export function lastDigestPeriod(frequency: DigestFrequency, now: Date, timeZone: string): DigestPeriod {
  const current = wholeSpan(frequency, now, timeZone);
  const last = wholeSpan(frequency, new Date(current.start.getTime() - 1), timeZone);
  const previous = wholeSpan(frequency, new Date(last.start.getTime() - 1), timeZone);
  return { ...last, previous, dueAt: dueAfter(last.end) };
}

/**
 * The next digest to go out after `now`: the last whole period's, while it is not due yet,
 * else the current period's.
 *
 * @example nextDigest('weekly', new Date('2026-11-25T12:00:00Z'), 'UTC').dueAt // 2026-11-30T08:00:00.000Z
 */
export function nextDigest(frequency: DigestFrequency, now: Date, timeZone: string): { firstDay: string; lastDay: string; dueAt: Date } {
  const { firstDay, lastDay, dueAt } = lastDigestPeriod(frequency, now, timeZone);
  if (now < dueAt) return { firstDay, lastDay, dueAt };
  const current = wholeSpan(frequency, now, timeZone);
  return { firstDay: current.firstDay, lastDay: current.lastDay, dueAt: dueAfter(current.end) };
}

export interface DigestLine {
  name: string;
  spendMicros: bigint;
  requests: bigint;
}

export interface DigestBudget {
  scope: BudgetScope;
  scopeName: string;
  window: BudgetWindow;
  amountMicros: bigint;
  spentMicros: bigint;
}

export interface DigestFigures {
  teamName: string;
  frequency: DigestFrequency;
  period: DigestPeriod;
  spendMicros: bigint;
  previousSpendMicros: bigint;
  requests: bigint;
  /** Requests with no known price: not counted in the spend, and said so. */
  unpricedRequests: bigint;
  /** The most spent on, most first. */
  models: DigestLine[];
  groups: DigestLine[];
  /** The team's budgets, each with its spend in its window as the period closed. */
  budgets: DigestBudget[];
  /** The stored month-end forecast of the month the digest is sent in (yyyy-mm), if one was made. */
  forecast: { month: string; projectedMicros: bigint; lower80Micros: bigint; upper80Micros: bigint } | null;
  /** Where the console shows the same days. */
  consoleUrl: string;
}

/** Whole per cent change, rounded half up; null from nothing. */
export function percentChange(now: bigint, before: bigint): number | null {
  if (before === 0n) return null;
  const change = ((now - before) * 1000n) / before;
  const rounded = (change >= 0n ? change + 5n : change - 5n) / 10n;
  return Number(rounded);
}

const dayFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const showDay = (day: string) => dayFormat.format(new Date(`${day}T00:00:00Z`));
const gbp = (micros: bigint) => formatMoney(money(micros, 'GBP'));
const monthFormat = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const count = (value: bigint) => value.toLocaleString('en-GB');
const requestsText = (value: bigint) => `${count(value)} request${value === 1n ? '' : 's'}`;

/** The digest's e-mail: subject and plain text. */
export function digestText(figures: DigestFigures): { subject: string; text: string } {
  const { period } = figures;
  const noun = figures.frequency === 'weekly' ? 'week' : 'month';
  const change = percentChange(figures.spendMicros, figures.previousSpendMicros);
  const against =
    change === null
      ? `nothing the ${noun} before`
      : `${change === 0 ? 'the same as' : `${change > 0 ? '+' : ''}${change}% on`} the ${noun} before (${gbp(figures.previousSpendMicros)})`;
  const range = `${showDay(period.firstDay)} – ${showDay(period.lastDay)}`;
  const list = (title: string, lines: DigestLine[]) =>
    lines.length === 0 ? [] : ['', `${title}:`, ...lines.map((line) => `  ${line.name}: ${gbp(line.spendMicros)} (${requestsText(line.requests)})`)];
  const text = [
    `${figures.teamName}: AI spend ${range}`,
    '',
    `Spend: ${gbp(figures.spendMicros)}, ${against}.`,
    `Requests: ${count(figures.requests)}.`,
    ...(figures.unpricedRequests > 0n ? [`Unpriced requests: ${count(figures.unpricedRequests)} — no known price, so not in the spend above.`] : []),
    ...(figures.forecast
      ? [
          `Forecast for ${monthFormat.format(new Date(`${figures.forecast.month}-01T00:00:00Z`))}: ${gbp(figures.forecast.projectedMicros)} (80% range ${gbp(figures.forecast.lower80Micros)} – ${gbp(figures.forecast.upper80Micros)}).`,
        ]
      : []),
    ...list('Top models', figures.models),
    ...list('Top synthetic groups', figures.groups),
    ...(figures.budgets.length === 0
      ? []
      : [
          '',
          'Budgets, as the period closed:',
          ...figures.budgets.map(
            (budget) =>
              `  ${budget.scope} ${budget.scopeName}, ${WINDOW_WORDS[budget.window]}: ${gbp(budget.spentMicros)} of ${gbp(budget.amountMicros)} (${percentSpent(budget.spentMicros, budget.amountMicros)}%)`,
          ),
        ]),
    '',
    `The same days in the console: ${figures.consoleUrl}`,
    '',
    'You get this because you asked for it in Alerts; change or stop it there.',
  ].join('\n');
  return { subject: `${figures.teamName}: ${gbp(figures.spendMicros)} on AI ${range}`, text };
}
