// Budgets as /api/budgets answers them: a cap on a key, a group or a team, with the spend
// of its current window. Amounts are exact decimal strings in the budget's currency
// (six decimals); the console turns them into micro-units, never into floats.
import type { BudgetMode, BudgetScope, BudgetWindow } from '@spendgate/core';

export type { BudgetMode, BudgetScope, BudgetWindow };

export interface Budget {
  id: string;
  teamId: string;
  scope: BudgetScope;
  scopeId: string;
  currency: string;
  amount: string;
  window: BudgetWindow;
  mode: BudgetMode;
  /** Percentages of the amount at which an alert is sent. */
  alertAt: number[];
  spent: string;
  /** Held by requests under way: their worst case, settled to what they cost when they end. */
  reserved: string;
  remaining: string;
  /** When the window ends; null for a total budget. */
  resetsAt: string | null;
  unpricedModels: 'refused' | 'admitted';
}

/** What names a budget's target. */
export interface BudgetTarget {
  scope: BudgetScope;
  scopeId: string;
}

export interface BudgetInput extends BudgetTarget {
  /** A decimal amount, e.g. "25.50". */
  amount: string;
  window: BudgetWindow;
  mode: BudgetMode;
  alertAt: number[];
}

export type BudgetChanges = Partial<Pick<BudgetInput, 'amount' | 'window' | 'mode' | 'alertAt'>>;
