import { describe, expect, it } from 'vitest';
import { type DigestFigures, digestText, lastDigestPeriod, nextDigest, percentChange } from './index.ts';

describe('lastDigestPeriod', () => {
  it('is the last whole Monday-to-Sunday week in the team’s zone, due at 08:00 local the Monday after', () => {
    const period = lastDigestPeriod('weekly', new Date('2026-11-25T12:00:00Z'), 'Europe/London');
    expect([period.firstDay, period.lastDay, period.start.toISOString(), period.end.toISOString()]).toEqual(['2026-11-16', '2026-11-22', '2026-11-16T00:00:00.000Z', '2026-11-23T00:00:00.000Z']);
    expect(period.previous.firstDay).toBe('2026-11-09');
    expect(period.dueAt.toISOString()).toBe('2026-11-23T08:00:00.000Z');
    // Sunday 23:30 in Tokyo is already Monday there: the week just ended is the last whole one.
    expect(lastDigestPeriod('weekly', new Date('2026-11-22T15:30:00Z'), 'Asia/Tokyo').firstDay).toBe('2026-11-16');
    expect(lastDigestPeriod('weekly', new Date('2026-11-22T15:30:00Z'), 'UTC').firstDay).toBe('2026-11-09');
  });

  it('is the last calendar month, across a year’s end and a clock change', () => {
    const january = lastDigestPeriod('monthly', new Date('2027-01-01T09:00:00Z'), 'UTC');
    expect([january.firstDay, january.lastDay, january.previous.firstDay, january.dueAt.toISOString()]).toEqual(['2026-12-01', '2026-12-31', '2026-11-01', '2027-01-01T08:00:00.000Z']);
    // October in London ends on summer time's last day: the month runs to local midnight, 00:00 GMT on 1 Nov.
    const october = lastDigestPeriod('monthly', new Date('2026-11-10T00:00:00Z'), 'Europe/London');
    expect([october.start.toISOString(), october.end.toISOString(), october.lastDay]).toEqual(['2026-09-30T23:00:00.000Z', '2026-11-01T00:00:00.000Z', '2026-10-31']);
  });
});

describe('nextDigest', () => {
  it('is the last week’s until it is due, then the current week’s', () => {
    const early = nextDigest('weekly', new Date('2026-11-23T07:00:00Z'), 'UTC');
    expect([early.firstDay, early.lastDay, early.dueAt.toISOString()]).toEqual(['2026-11-16', '2026-11-22', '2026-11-23T08:00:00.000Z']);
    const later = nextDigest('weekly', new Date('2026-11-23T08:00:00Z'), 'UTC');
    expect([later.firstDay, later.lastDay, later.dueAt.toISOString()]).toEqual(['2026-11-23', '2026-11-29', '2026-11-30T08:00:00.000Z']);
    expect(nextDigest('monthly', new Date('2026-11-25T12:00:00Z'), 'UTC').dueAt.toISOString()).toBe('2026-12-01T08:00:00.000Z');
  });
});

describe('percentChange', () => {
  it('rounds half away from zero, and has none from nothing', () => {
    expect(percentChange(1_125n, 1_000n)).toBe(13);
    expect(percentChange(875n, 1_000n)).toBe(-13);
    expect(percentChange(1_000n, 1_000n)).toBe(0);
    expect(percentChange(5n, 0n)).toBeNull();
  });
});

describe('digestText', () => {
  const figures: DigestFigures = {
    teamName: 'Acme',
    frequency: 'weekly',
    period: lastDigestPeriod('weekly', new Date('2026-11-25T12:00:00Z'), 'UTC'),
    spendMicros: 123_456_789n,
    previousSpendMicros: 100_000_000n,
    requests: 12_345n,
    unpricedRequests: 3n,
    models: [
      { name: 'gpt-4o', spendMicros: 100_000_000n, requests: 10_000n },
      { name: 'claude-sonnet-4', spendMicros: 23_456_789n, requests: 2_345n },
    ],
    groups: [{ name: 'Research', spendMicros: 123_456_789n, requests: 12_345n }],
    budgets: [
      { scope: 'team', scopeName: 'Acme', window: 'month', amountMicros: 500_000_000n, spentMicros: 320_000_000n },
      { scope: 'group', scopeName: 'Research', window: 'week', amountMicros: 100_000_000n, spentMicros: 123_456_789n },
    ],
    forecast: { month: '2026-11', projectedMicros: 510_000_000n, lower80Micros: 450_000_000n, upper80Micros: 575_500_000n },
    consoleUrl: 'https://spendgate.example/dashboard?team=t-1&start=2026-11-16&end=2026-11-22',
  };

  it('gives the exact spend, the change, the unpriced requests and the top models and groups', () => {
    const { subject, text } = digestText(figures);
    expect(subject).toBe('Acme: £123.456789 on AI 16 Nov 2026 – 22 Nov 2026');
    expect(text).toBe(
      [
        'Acme: AI spend 16 Nov 2026 – 22 Nov 2026',
        '',
        'Spend: £123.456789, +23% on the week before (£100.00).',
        'Requests: 12,345.',
        'Unpriced requests: 3 — no known price, so not in the spend above.',
        'Forecast for November 2026: £510.00 (80% range £450.00 – £575.50).',
        '',
        'Top models:',
        '  gpt-4o: £100.00 (10,000 requests)',
        '  claude-sonnet-4: £23.456789 (2,345 requests)',
        '',
        'Top synthetic groups:',
        '  Research: £123.456789 (12,345 requests)',
        '',
        'Budgets, as the period closed:',
        '  team Acme, monthly: £320.00 of £500.00 (64%)',
        '  group Research, weekly: £123.456789 of £100.00 (123%)',
        '',
        'The same days in the console: https://spendgate.example/dashboard?team=t-1&start=2026-11-16&end=2026-11-22',
        '',
        'You get this because you asked for it in Alerts; change or stop it there.',
      ].join('\n'),
    );
  });

  it('says so when there was nothing before, and leaves out what is empty', () => {
    const { text } = digestText({ ...figures, previousSpendMicros: 0n, unpricedRequests: 0n, models: [], groups: [], budgets: [], forecast: null, frequency: 'monthly' });
    expect(text).toContain('Spend: £123.456789, nothing the month before.');
    expect(text).not.toContain('Unpriced');
    expect(text).not.toContain('Top models');
    expect(text).not.toContain('Forecast');
    expect(text).not.toContain('Budgets');
  });
});
