import { describe, expect, it } from 'vitest';
import type { Budget } from '../../api/budgets/types.ts';
import { budgetFieldsFrom, budgetFigures, formatResetTime, NEW_BUDGET_FIELDS, readBudgetForm } from './budget-form.ts';

const form = (changes: Partial<typeof NEW_BUDGET_FIELDS>) => readBudgetForm({ ...NEW_BUDGET_FIELDS, amount: '10', ...changes });

describe('readBudgetForm', () => {
  it('takes a positive amount of at most £1,000,000,000 with at most six decimals, as exact text', () => {
    expect(form({ amount: ' £1,250.125 ' })).toEqual({ values: { amount: '1250.125', window: 'month', mode: 'hard', alertAt: [50, 80, 100] }, errors: {} });
    expect(form({ amount: '1000000000' }).values?.amount).toBe('1000000000');
    expect(form({ amount: '' }).errors).toEqual({ amount: 'Amount is required' });
    expect(form({ amount: '0.000000' }).errors).toEqual({ amount: 'Amount must be more than 0' });
    expect(form({ amount: '1000000000.000001' }).errors).toEqual({ amount: 'Amount must be at most 1,000,000,000' });
    expect(form({ amount: '0.0000001' }).errors).toEqual({ amount: 'Amount must be a number with at most 6 decimals' });
    expect(form({ amount: '-5' }).errors).toEqual({ amount: 'Amount must be a number with at most 6 decimals' });
    expect(form({ amount: '1e3' }).errors).toEqual({ amount: 'Amount must be a number with at most 6 decimals' });
  });

  it('takes up to 10 whole alert percentages from 1 to 1000, sorted, once each; none is allowed', () => {
    expect(form({ alertAt: '100%, 50 80 50' }).values?.alertAt).toEqual([50, 80, 100]);
    expect(form({ alertAt: '' }).values?.alertAt).toEqual([]);
    expect(form({ alertAt: '0' }).errors).toEqual({ alertAt: 'Alert thresholds must be whole percentages from 1 to 1000' });
    expect(form({ alertAt: '50.5' }).errors).toEqual({ alertAt: 'Alert thresholds must be whole percentages from 1 to 1000' });
    expect(form({ alertAt: '1001' }).errors).toEqual({ alertAt: 'Alert thresholds must be whole percentages from 1 to 1000' });
    expect(form({ alertAt: '1 2 3 4 5 6 7 8 9 10 11' }).errors).toEqual({ alertAt: 'Set at most 10 alert thresholds' });
  });
});

const budget: Budget = {
  id: 'b1',
  teamId: 't1',
  scope: 'group',
  scopeId: 'g1',
  currency: 'GBP',
  amount: '25.500000',
  window: 'week',
  mode: 'soft',
  alertAt: [80],
  spent: '0.100001',
  reserved: '0.200000',
  remaining: '25.399999',
  resetsAt: '2026-11-30T00:00:00.000Z',
  unpricedModels: 'admitted',
};

describe('a budget’s figures', () => {
  it('are exact micro-units formatted in the budget’s currency', () => {
    const figures = budgetFigures(budget);
    expect([figures.amount, figures.spent, figures.reserved, figures.remaining]).toEqual([25_500_000n, 100_001n, 200_000n, 25_399_999n]);
    expect([figures.format(figures.amount), figures.format(figures.spent), figures.format(figures.remaining)]).toEqual(['£25.50', '£0.100001', '£25.399999']);
  });

  it('fill the edit form as a person would type them', () => {
    expect(budgetFieldsFrom(budget)).toEqual({ amount: '25.5', window: 'week', mode: 'soft', alertAt: '80' });
    expect(budgetFieldsFrom({ ...budget, amount: '100.000000' }).amount).toBe('100');
  });
});

describe('a budget’s reset time', () => {
  it('is shown in the team’s time zone, named, and a total budget never resets', () => {
    expect(formatResetTime('2026-11-30T15:00:00.000Z', 'Asia/Tokyo')).toBe('1 Dec 2026, 00:00 (Asia/Tokyo)');
    expect(formatResetTime('2026-12-01T00:00:00.000Z', 'UTC')).toBe('1 Dec 2026, 00:00 (UTC)');
    expect(formatResetTime(null, 'UTC')).toBe('Never (total budget)');
  });
});
