/**
 * Budgets: a cap on what a key, a synthetic group or a team may spend (GBP micros) in a
 * window — a calendar day, ISO week or month (UTC), or a fixed total. A hard budget
 * refuses requests that would overflow it; a soft one only counts (alerts read it).
 * Each window is its own counter on the spend ledger, so a new window starts at zero.
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

const DAY_MS = 86_400_000;

/** The window containing `at`: its start, and its end (null for a total budget). */
export function budgetWindowAt(window: BudgetWindow, at: Date): { start: Date | null; end: Date | null } {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  switch (window) {
    case 'day':
      return { start: day, end: new Date(day.getTime() + DAY_MS) };
    case 'week': {
      const monday = new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
      return { start: monday, end: new Date(monday.getTime() + 7 * DAY_MS) };
    }
    case 'month':
      return {
        start: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
        end: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)),
      };
    case 'total':
      return { start: null, end: null };
  }
}

/** The spend-ledger counter of a budget's window containing `at`. */
export function budgetLedgerScope(budget: Pick<Budget, 'id' | 'window'>, at: Date): string {
  const { start } = budgetWindowAt(budget.window, at);
  return `budget:${budget.id}:${start ? start.toISOString().slice(0, 10) : 'total'}`;
}
