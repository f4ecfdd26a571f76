// Budget mutations: create, change and delete. A change to one budget can move what
// another shows (they count the same requests), so all budget queries are refreshed.
import { mutationOptions, type QueryClient } from '@tanstack/react-query';
import { apiData } from '../client.ts';
import { budgetKeys } from './queries.ts';
import type { Budget, BudgetChanges, BudgetInput } from './types.ts';

export const CREATE_BUDGET_FAILED = 'Failed to create budget';
export const UPDATE_BUDGET_FAILED = 'Failed to update budget';
export const DELETE_BUDGET_FAILED = 'Failed to delete budget';

const refreshBudgets = (queryClient: QueryClient) => () => queryClient.invalidateQueries({ queryKey: budgetKeys.all });

export const createBudgetMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['budgets', 'create'],
    mutationFn: (input: BudgetInput) => apiData<Budget>('POST', '/budgets', { body: input, fallback: CREATE_BUDGET_FAILED }),
    onSuccess: refreshBudgets(queryClient),
  });

export const updateBudgetMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['budgets', 'update'],
    mutationFn: ({ budget, changes }: { budget: Pick<Budget, 'id' | 'teamId'>; changes: BudgetChanges }) =>
      apiData<Budget>('PATCH', `/budgets/${budget.id}`, { query: { teamId: budget.teamId }, body: changes, fallback: UPDATE_BUDGET_FAILED }),
    onSuccess: refreshBudgets(queryClient),
  });

export const deleteBudgetMutation = (queryClient: QueryClient) =>
  mutationOptions({
    mutationKey: ['budgets', 'delete'],
    mutationFn: (budget: Pick<Budget, 'id' | 'teamId'>) =>
      apiData<null>('DELETE', `/budgets/${budget.id}`, { query: { teamId: budget.teamId }, fallback: DELETE_BUDGET_FAILED }),
    onSuccess: refreshBudgets(queryClient),
  });
