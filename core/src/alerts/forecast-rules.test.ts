// The forecast-based alert rules on constructed forecasts, every figure worked by hand.
import { describe, expect, it } from 'vitest';
import type { BudgetSpend } from './index.ts';
import { breachAlertText, type ForecastBounds, isSpendSpike, ordinalDay, projectedBreach, spikeAlertText, spikeContributors } from './forecast-rules.ts';

const pounds = (whole: number) => BigInt(whole) * 1_000_000n;
/** Nov 20 … 30, each day's upper 80 % bound £100 (upper 95 % £150). */
const november: ForecastBounds[] = Array.from({ length: 11 }, (_, index) => ({ date: `2026-11-${20 + index}`, upper80Micros: pounds(100), upper95Micros: pounds(150) }));

describe('projected breach', () => {
  const base = { amountMicros: pounds(2000), spentBeforeTodayMicros: pounds(1650), spentTodayMicros: pounds(40), today: '2026-11-20', lastDay: '2026-11-30', days: november };

  it('names the first day the upper 80 % bound, added to what was spent, reaches the cap', () => {
    // 1650 + max(40, 100) = 1750 on the 20th, 1850 on the 21st, 1950 on the 22nd, 2050 on the 23rd ≥ 2000.
    expect(projectedBreach(base)).toEqual({ date: '2026-11-23', projectedMicros: pounds(2050) });
    // Exactly the cap counts as run out: 1700 + 100 + 100 + 100 = 2000 on the 22nd.
    expect(projectedBreach({ ...base, spentBeforeTodayMicros: pounds(1700) })).toEqual({ date: '2026-11-22', projectedMicros: pounds(2000) });
    // Today's spend so far above its bound counts instead: 1650 + 180 = 1830, 1930, 2030 on the 22nd.
    expect(projectedBreach({ ...base, spentTodayMicros: pounds(180) })).toEqual({ date: '2026-11-22', projectedMicros: pounds(2030) });
  });

  it('says nothing when the window ends first, when the cap is already reached, or on days the forecast does not cover', () => {
    // A weekly window ending on the 22nd: 1950 < 2000.
    expect(projectedBreach({ ...base, lastDay: '2026-11-22' })).toBeNull();
    // Already at the cap: the 100 % threshold alert says so.
    expect(projectedBreach({ ...base, spentBeforeTodayMicros: pounds(1960) })).toBeNull();
    // No stored forecast days: spend alone (1690) never reaches the cap.
    expect(projectedBreach({ ...base, days: [] })).toBeNull();
    // Days 21–23 uncovered add nothing: 1750 on the 20th, then +100 on the 24th, 25th, 26th → 2050 on the 26th.
    const gap = november.filter((day) => !['2026-11-21', '2026-11-22', '2026-11-23'].includes(day.date));
    expect(projectedBreach({ ...base, days: gap })).toEqual({ date: '2026-11-26', projectedMicros: pounds(2050) });
  });

  it('reads as the team calendar day', () => {
    expect(['1', '2', '3', '4', '11', '12', '13', '21', '22', '23', '31'].map((day) => ordinalDay(Number(day)))).toEqual(['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd', '31st']);
    const budget: BudgetSpend = { budgetId: 'b', scope: 'group', scopeName: 'Research', window: 'month', windowLabel: '2026-11-01', amountMicros: pounds(2000), spentMicros: pounds(1690), alertAt: [80] };
    expect(breachAlertText(budget, { date: '2026-11-23', projectedMicros: pounds(2050) })).toEqual({
      subject: "Research's £2000.00 monthly budget may run out on the 23rd",
      text: "Projected breach: at this rate the group Research's £2000.00 monthly budget runs out on the 23rd (2026-11-23), before its window (from 2026-11-01) ends: £1690.00 spent so far, and the forecast's upper 80% bound reaches £2050.00 by then.",
    });
  });
});

describe('spend spike', () => {
  it('is a day at least £1 above the upper 95 % bound', () => {
    expect(isSpendSpike(pounds(151), pounds(150))).toBe(true);
    expect(isSpendSpike(pounds(151) - 1n, pounds(150))).toBe(false);
    expect(isSpendSpike(pounds(150), pounds(150))).toBe(false);
  });

  it('blames the key and the model that rose most above their usual day', () => {
    const cell = (keyName: string, model: string, whole: number) => ({ keyId: keyName, keyName, model, micros: pounds(whole) });
    // Spike day: batch/gpt-4o £60, chat/gpt-4o-mini £20, chat/gpt-4o £5.
    const day = [cell('batch', 'gpt-4o', 60), cell('chat', 'gpt-4o-mini', 20), cell('chat', 'gpt-4o', 5)];
    // 7 baseline days: batch/gpt-4o £14 (£2 a day), chat/gpt-4o-mini £105 (£15 a day), chat/gpt-4o £7 (£1 a day), old £70 (not on the day).
    const baseline = [cell('batch', 'gpt-4o', 14), cell('chat', 'gpt-4o-mini', 105), cell('chat', 'gpt-4o', 7), cell('old', 'gpt-4o', 70)];
    // Keys: batch 60 − 2 = 58, chat 25 − 16 = 9 ("old" spent nothing that day: no candidate).
    // Models: gpt-4o 65 − (14 + 7 + 70) / 7 = 65 − 13 = 52, gpt-4o-mini 20 − 15 = 5.
    expect(spikeContributors(day, baseline, 7)).toEqual({ key: { name: 'batch', riseMicros: pounds(58) }, model: { name: 'gpt-4o', riseMicros: pounds(52) } });
    // £1 on the day, £1 over 3 baseline days: 1,000,000 − 333,333.3… = 666,666.6… rounds down to 666,666.
    expect(spikeContributors([cell('k', 'm', 1)], [cell('k', 'm', 1)], 3)).toEqual({ key: { name: 'k', riseMicros: 666_666n }, model: { name: 'm', riseMicros: 666_666n } });
    expect(spikeContributors([], baseline, 7)).toBeNull();
  });

  it('says how far above the bound the day went and who did it', () => {
    const text = spikeAlertText({
      scope: 'team',
      scopeName: 'Acme',
      date: '2026-11-26',
      actualMicros: pounds(85),
      upper95Micros: pounds(30),
      contributors: { key: { name: 'batch', riseMicros: pounds(58) }, model: { name: 'gpt-4o', riseMicros: pounds(62) } },
    });
    expect(text).toEqual({
      subject: 'Spend spike: Acme spent £85.00 on 2026-11-26',
      text: 'Spend spike: the team Acme spent £85.00 on 2026-11-26, £55.00 above the forecast\'s upper 95% bound of £30.00 for that day. Most of the rise came from the key "batch" (+£58.00 over its usual day) and the model gpt-4o (+£62.00).',
    });
  });
});
