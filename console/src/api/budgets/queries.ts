// Budget queries: the budgets on one key, group or team, with their spend.
import { queryOptions } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import type { Budget, BudgetTarget } from './types.ts';

export const budgetKeys = {
  all: ['budgets'] as const,
  on: ({ scope, scopeId }: BudgetTarget) => [...budgetKeys.all, scope, scopeId] as const,
};

export const FETCH_BUDGETS_FAILED = 'Failed to fetch budgets';

export const budgetsQuery = (target: BudgetTarget) =>
  queryOptions({
    queryKey: budgetKeys.on(target),
    queryFn: ({ signal }) => apiData<Budget[]>('GET', '/budgets', { signal, query: { scope: target.scope, scopeId: target.scopeId }, fallback: FETCH_BUDGETS_FAILED }),
  });
