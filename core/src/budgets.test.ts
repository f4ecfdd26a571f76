import { describe, expect, it } from 'vitest';
import { budgetLedgerScope, budgetWindowAt, isValidTimeZone, localDay, localDayStart } from './budgets.ts';

const at = new Date('2026-11-22T15:30:00Z'); // a Sunday

describe('budget windows (UTC calendar)', () => {
  it('spans the calendar day, ISO week and month around a moment', () => {
    expect(budgetWindowAt('day', at)).toEqual({ start: new Date('2026-11-22T00:00:00Z'), end: new Date('2026-11-23T00:00:00Z'), label: '2026-11-22' });
    expect(budgetWindowAt('week', at)).toEqual({ start: new Date('2026-11-16T00:00:00Z'), end: new Date('2026-11-23T00:00:00Z'), label: '2026-11-16' });
    expect(budgetWindowAt('month', at)).toEqual({ start: new Date('2026-11-01T00:00:00Z'), end: new Date('2026-12-01T00:00:00Z'), label: '2026-11-01' });
    expect(budgetWindowAt('month', new Date('2026-12-31T23:59:59Z')).end).toEqual(new Date('2027-01-01T00:00:00Z'));
    expect(budgetWindowAt('total', at)).toEqual({ start: null, end: null, label: 'total' });
  });

  it('gives each window its own ledger counter', () => {
    expect(budgetLedgerScope('t1', { id: 'b1' }, budgetWindowAt('month', at))).toBe('budget:{t1}:b1:2026-11-01');
    expect(budgetLedgerScope('t1', { id: 'b1' }, budgetWindowAt('week', new Date('2026-11-23T00:00:00Z')))).toBe('budget:{t1}:b1:2026-11-23');
    expect(budgetLedgerScope('t1', { id: 'b1' }, budgetWindowAt('total', at))).toBe('budget:{t1}:b1:total');
  });
});

describe('budget windows in the team’s time zone', () => {
  it('starts days at local midnight', () => {
    // 03:00 UTC on the 23rd is still the 22nd in New York (UTC-5 in November).
    const lateEvening = new Date('2026-11-23T03:00:00Z');
    expect(budgetWindowAt('day', lateEvening, 'America/New_York')).toEqual({
      start: new Date('2026-11-22T05:00:00Z'),
      end: new Date('2026-11-23T05:00:00Z'),
      label: '2026-11-22',
    });
    expect(budgetWindowAt('day', new Date('2026-11-22T23:30:00Z'), 'Asia/Tokyo').label).toBe('2026-11-23');
    expect(budgetWindowAt('day', new Date('2026-11-22T23:30:00Z'), 'Asia/Kolkata').start).toEqual(new Date('2026-11-22T18:30:00Z'));
  });

  it('follows daylight saving: a day in which the clocks change is 23 or 25 hours long', () => {
    const springForward = budgetWindowAt('day', new Date('2026-03-29T12:00:00Z'), 'Europe/London');
    expect(springForward).toMatchObject({ start: new Date('2026-03-29T00:00:00Z'), end: new Date('2026-03-29T23:00:00Z') });
    const fallBack = budgetWindowAt('day', new Date('2026-10-25T12:00:00Z'), 'Europe/London');
    expect(fallBack).toMatchObject({ start: new Date('2026-10-24T23:00:00Z'), end: new Date('2026-10-26T00:00:00Z') });
  });

  it('starts weeks on the local Monday and months on the local first', () => {
    // Monday 00:30 in Berlin is still Sunday in UTC.
    const mondayInBerlin = new Date('2026-11-22T23:30:00Z');
    expect(budgetWindowAt('week', mondayInBerlin, 'Europe/Berlin')).toMatchObject({
      start: new Date('2026-11-22T23:00:00Z'),
      label: '2026-11-23',
    });
    expect(budgetWindowAt('week', mondayInBerlin).label).toBe('2026-11-16');
    expect(budgetWindowAt('month', new Date('2026-11-30T20:00:00Z'), 'Pacific/Auckland')).toEqual({
      start: new Date('2026-11-30T11:00:00Z'),
      end: new Date('2026-12-31T11:00:00Z'),
      label: '2026-12-01',
    });
    expect(budgetLedgerScope('t1', { id: 'b1' }, budgetWindowAt('month', new Date('2026-11-30T20:00:00Z'), 'Pacific/Auckland'))).toBe('budget:{t1}:b1:2026-12-01');
  });

  it('answers the next window once the current one has ended', () => {
    const day = budgetWindowAt('day', new Date('2026-11-22T23:59:59.999Z'));
    expect(budgetWindowAt('day', new Date('2026-11-22T12:00:00Z'))).toBe(day);
    expect(budgetWindowAt('day', new Date('2026-11-23T00:00:00Z')).label).toBe('2026-11-23');
    expect(budgetWindowAt('day', new Date('2026-11-21T23:59:59Z')).label).toBe('2026-11-21');
  });

  it('knows which time zones exist', () => {
    expect(isValidTimeZone('Europe/London')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
  });
});

describe('calendar days in a time zone', () => {
  it('names the local day of an instant and finds when a local day starts, across DST', () => {
    expect(localDay(new Date('2026-11-20T18:40:00Z'), 'Asia/Kolkata')).toBe('2026-11-21');
    expect(localDay(new Date('2026-11-20T18:20:00Z'), 'Asia/Kolkata')).toBe('2026-11-20');
    expect(localDayStart('2026-11-21', 'Asia/Kolkata').toISOString()).toBe('2026-11-20T18:30:00.000Z');
    expect(localDayStart('2026-03-29', 'Europe/London').toISOString()).toBe('2026-03-29T00:00:00.000Z');
    expect(localDayStart('2026-03-30', 'Europe/London').toISOString()).toBe('2026-03-29T23:00:00.000Z');
    expect(localDayStart('2026-11-21', 'UTC').toISOString()).toBe('2026-11-21T00:00:00.000Z');
  });
});
