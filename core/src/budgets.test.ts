import { describe, expect, it } from 'vitest';
import { budgetLedgerScope, budgetWindowAt } from './budgets.ts';

const at = new Date('2026-11-22T15:30:00Z'); // a Sunday

describe('budget windows (UTC calendar)', () => {
  it('spans the calendar day, ISO week and month around a moment', () => {
    expect(budgetWindowAt('day', at)).toEqual({ start: new Date('2026-11-22T00:00:00Z'), end: new Date('2026-11-23T00:00:00Z') });
    expect(budgetWindowAt('week', at)).toEqual({ start: new Date('2026-11-16T00:00:00Z'), end: new Date('2026-11-23T00:00:00Z') });
    expect(budgetWindowAt('month', at)).toEqual({ start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z') });
    expect(budgetWindowAt('month', new Date('2026-12-31T23:59:59Z')).end).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(budgetWindowAt('total', at)).toEqual({ start: null, end: null });
  });

  it('gives each window its own ledger counter', () => {
    expect(budgetLedgerScope({ id: 'b1', window: 'month' }, at)).toBe('budget:b1:2026-11-01');
    expect(budgetLedgerScope({ id: 'b1', window: 'week' }, new Date('2026-11-23T00:00:00Z'))).toBe('budget:b1:2026-11-23');
    expect(budgetLedgerScope({ id: 'b1', window: 'total' }, at)).toBe('budget:b1:total');
  });
});
