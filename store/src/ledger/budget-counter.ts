// A budget's counter on the spend ledger: its scope for one window and the SQL sum that seeds it.
import { type Budget, budgetLedgerScope, budgetWindowAt } from '@spendgate/core';
import type { SqlStore } from '../sql/connect.ts';
import { sumBudgetSpend } from '../sql/repos/usage.ts';

/**
 * A budget's counter for the window containing `at` (in the team's time zone), seeded
 * from the budget spend of the usage events already recorded in that window.
 */
export function budgetCounter(sql: SqlStore, teamId: string, timeZone: string, budget: Budget, at: Date) {
  const window = budgetWindowAt(budget.window, at, timeZone);
  return {
    scope: budgetLedgerScope(teamId, budget, window),
    seed: () => sumBudgetSpend(sql.db, { teamId, scope: budget.scope, scopeId: budget.scopeId, from: window.start, to: window.end }),
  };
}
