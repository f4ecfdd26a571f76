/**
 * Budgets: a cap on what a key, a synthetic group or a team may spend (GBP micros) in a
 * window — a calendar day, ISO week (from Monday) or month in the team's time zone, or
 * a fixed total. A hard budget refuses requests that would overflow it; a soft one only
 * counts (alerts read it); a downgrade one sends requests to a cheaper model of the same
 * family once it is spent. Each window is its own counter on the spend ledger, so a new
 * window starts at zero.
 */
export const BUDGET_SCOPES = ['key', 'group', 'team'] as const;
export const BUDGET_WINDOWS = ['day', 'week', 'month', 'total'] as const;
export const BUDGET_MODES = ['hard', 'soft', 'downgrade'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];
export type BudgetMode = (typeof BUDGET_MODES)[number];

export interface Budget {
  id: string;
  scope: BudgetScope;
  scopeId: string;
  amountMicros: bigint;
  window: BudgetWindow;
  mode: BudgetMode;
}

export interface BudgetWindowSpan {
  start: Date | null;
  end: Date | null;
  /** The local calendar date the window starts on (yyyy-mm-dd), or 'total'. */
  label: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `timeZone` is an IANA time zone this runtime knows, e.g. 'Europe/London'. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time in `timeZone` at `instant`, read as if it were UTC (ms). */
function wallClockMs(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const { type, value } of formatterFor(timeZone).formatToParts(new Date(instant))) parts[type] = Number(value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** The instant local midnight starts the civil day `civilDay` (a UTC-midnight date) in `timeZone`. */
function localMidnight(civilDay: Date, timeZone: string): Date {
  const guess = civilDay.getTime();
  const first = guess - (wallClockMs(guess, timeZone) - guess);
  // Once more from the first answer, in case a DST change lies between guess and midnight.
  return new Date(guess - (wallClockMs(first, timeZone) - first));
}

/** The calendar day (yyyy-mm-dd) `at` falls on in `timeZone`. */
export function localDay(at: Date, timeZone: string): string {
  return new Date(wallClockMs(at.getTime(), timeZone)).toISOString().slice(0, 10);
}

/** The wall-clock minute `at` falls on in `timeZone`, e.g. '2026-11-20 13:30'. */
export function localMinute(at: Date, timeZone: string): string {
  return new Date(wallClockMs(at.getTime(), timeZone)).toISOString().slice(0, 16).replace('T', ' ');
}

/** The instant the calendar day `day` (yyyy-mm-dd) starts in `timeZone`. */
export function localDayStart(day: string, timeZone: string): Date {
  return localMidnight(new Date(`${day}T00:00:00Z`), timeZone);
}

function civilDate(year: number, monthIndex: number, day: number): Date {
  return new Date(Date.UTC(year, monthIndex, day));
}

const TOTAL: BudgetWindowSpan = Object.freeze({ start: null, end: null, label: 'total' });
/** The last window answered per time zone and kind: most requests fall in the same one. */
const recentWindows = new Map<string, BudgetWindowSpan>();

/** The window containing `at` in `timeZone` (default UTC); `total` has no bounds. */
export function budgetWindowAt(window: BudgetWindow, at: Date, timeZone = 'UTC'): BudgetWindowSpan {
  if (window === 'total') return TOTAL;
  const cacheKey = `${timeZone}|${window}`;
  const recent = recentWindows.get(cacheKey);
  if (recent && at >= recent.start! && at < recent.end!) return recent;
  const span = computeWindow(window, at, timeZone);
  recentWindows.set(cacheKey, span);
  return span;
}

function computeWindow(window: Exclude<BudgetWindow, 'total'>, at: Date, timeZone: string): BudgetWindowSpan {
  const local = new Date(wallClockMs(at.getTime(), timeZone));
  const [year, month, day] = [local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()];
  let first: Date;
  let next: Date;
  if (window === 'day') {
    first = civilDate(year, month, day);
    next = civilDate(year, month, day + 1);
  } else if (window === 'week') {
    const sinceMonday = (local.getUTCDay() + 6) % 7;
    first = civilDate(year, month, day - sinceMonday);
    next = civilDate(year, month, day - sinceMonday + 7);
  } else {
    first = civilDate(year, month, 1);
    next = civilDate(year, month + 1, 1);
  }
  return Object.freeze({ start: localMidnight(first, timeZone), end: localMidnight(next, timeZone), label: first.toISOString().slice(0, 10) });
}

/**
 * The spend-ledger counter of a team's budget in one of its windows. The team is its
 * Redis Cluster hash tag (`{…}`), so that every counter a request reserves on (its key's,
 * group's and team's budgets) lives in one slot and the ledger's scripts stay atomic.
 */
export function budgetLedgerScope(teamId: string, budget: Pick<Budget, 'id'>, window: BudgetWindowSpan): string {
  return `budget:{${teamId}}:${budget.id}:${window.label}`;
}
