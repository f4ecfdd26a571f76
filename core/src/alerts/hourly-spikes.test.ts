// The hourly spike band on constructed hourly spend, every figure worked by hand.
import { describe, expect, it } from 'vitest';
import { HOURLY_HISTORY_HOURS, hourlyBand, hourlySpikeAlertText, hourlySpikeDedupeKey } from './hourly-spikes.ts';
import { isSpendSpike } from './forecast-rules.ts';

const pence = (whole: number) => BigInt(whole) * 10_000n;

describe('hourly band', () => {
  it('follows the daily cycle: the median of the same hour on the 7 days before, widened by 1.5 × the week’s 99th-percentile error', () => {
    // 14 days: £4 an hour from 09:00 to 16:59, £1 otherwise, ending at midnight.
    const history = Array.from({ length: 14 * 24 }, (_, hour) => (hour % 24 >= 9 && hour % 24 <= 16 ? pence(400) : pence(100)));
    history[326] = pence(450); // day 13, 14:00: 50p over its 7 references (all £4)
    history[306] = pence(130); // day 12, 18:00: 30p over
    history[286] = pence(80); // day 11, 22:00: 20p under
    const band = hourlyBand(history)!;
    // The next hour is 00:00: its 7 references are £1. Errors of the last 168 hours: 165 × 0, 20p, 30p, 50p
    // (a perturbed hour, as a reference of a later one, moves no median of 7); the ⌈0.99 × 168⌉ = 167th is 30p.
    expect(band).toEqual({ period: 24, expectedMicros: pence(100), errorMicros: pence(30), upperMicros: pence(145) });
    // A spike is £1 above the upper bound: £2.45.
    expect(isSpendSpike(pence(245), band.upperMicros)).toBe(true);
    expect(isSpendSpike(pence(245) - 1n, band.upperMicros)).toBe(false);
  });

  it('follows the weekly cycle when detected over 5 weeks: a Saturday hour expects Saturdays, not the weekdays before it', () => {
    // Weekdays £10 an hour from 09:00 to 16:59, £1 otherwise; weekends £1 all day. Hour 0 is a Monday, 00:00.
    const spend = (hour: number) => (Math.floor(hour / 24) % 7 < 5 && hour % 24 >= 9 && hour % 24 <= 16 ? pence(1000) : pence(100));
    const saturday10 = 5 * 168 + 5 * 24 + 10;
    const history = Array.from({ length: HOURLY_HISTORY_HOURS }, (_, index) => spend(saturday10 - HOURLY_HISTORY_HOURS + index));
    // The 4 Saturdays' 10:00 were £1 (the 7 days' 10:00 before would say £10); every hour was as expected.
    expect(hourlyBand(history)).toEqual({ period: 168, expectedMicros: pence(100), errorMicros: 0n, upperMicros: pence(100) });
    // With 4 weeks only, the weekly references are too few: the daily median of 5 × £10 and 2 × £1.
    expect(hourlyBand(history.slice(168))).toMatchObject({ period: 24, expectedMicros: pence(1000) });
  });

  it('takes the 24 hours before without a cycle, so earlier spikes in them move nothing', () => {
    const history = Array.from({ length: 14 * 24 }, () => pence(300));
    history[320] = pence(500); // £2 over the £3 of the 24 hours before it
    history[330] = pence(400); // £1 over (the £5 above is one of its 24, the median stays £3)
    // No period; expected £3 (the median of hours 312–335); errors 166 × 0, £1, £2: the 167th is £1; £3 + £1.50.
    expect(hourlyBand(history)).toEqual({ period: null, expectedMicros: pence(300), errorMicros: pence(100), upperMicros: pence(450) });
  });

  it('needs two weeks since the first spend: hours before it are not history', () => {
    const spent = Array.from({ length: 14 * 24 }, () => pence(100));
    const zeros = Array.from({ length: 500 }, () => 0n);
    expect(hourlyBand([...zeros, ...spent.slice(1)])).toBeNull();
    expect(hourlyBand([...zeros, ...spent])).toMatchObject({ expectedMicros: pence(100), upperMicros: pence(100) });
    expect(hourlyBand(zeros)).toBeNull();
  });

  it('is one alert per scope and UTC hour, naming the hour on the team’s clock and the key and model that rose most', () => {
    expect(hourlySpikeDedupeKey('scope-1', new Date('2026-11-20T08:00:00Z'))).toBe('spike-hour:scope-1:2026-11-20T08:00:00.000Z');
    const text = hourlySpikeAlertText({
      scope: 'group',
      scopeName: 'Research',
      localStart: '2026-11-20 13:30',
      actualMicros: pence(5000),
      band: { period: 24, expectedMicros: pence(200), errorMicros: pence(200), upperMicros: pence(500) },
      contributors: { key: { name: 'batch', riseMicros: pence(4400) }, model: { name: 'gpt-4o', riseMicros: pence(4500) } },
    });
    expect(text).toEqual({
      subject: 'Spend spike: Research spent £50.00 in the hour from 2026-11-20 13:30',
      text: 'Spend spike: the group Research spent £50.00 in the hour from 2026-11-20 13:30, £45.00 above the upper bound of £5.00 for that hour (it usually spends £2.00). Most of the rise came from the key "batch" (+£44.00 over its usual hour) and the model gpt-4o (+£45.00).',
    });
  });
});
