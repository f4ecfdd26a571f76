/**
 * Hourly spend spikes: an hour whose spend is far above that hour's expected band. There is
 * no hourly forecast to read, so the band is worked out from the scope's own hourly spend:
 *
 * - the expected hour is the median of the same hour in earlier cycles: of the 4 weeks
 *   before when weekly seasonality is detected (core's forecast test, M4's ACF test) and 5
 *   weeks of history allow, else of the 7 days before when daily seasonality is detected,
 *   else of the 24 hours before;
 * - its error is the 99th percentile of how far that same expectation was from the actual
 *   spend over the week before (the hour's own track record, as the forecast's intervals are);
 * - the upper bound is the expectation plus 1.5 × that error, and an hour is a spike when its
 *   spend (so far) is at least £1 (SPIKE_MIN_EXCESS_MICROS) above it.
 *
 * Chosen on M4 Hourly (all 414 series, each of the 48 test hours checked against the band
 * made from the 840 hours before it; an "injected" rise adds an average hour of the week
 * before; the £1 floor left out, the series having no currency):
 *
 *   band                                          false alarms/hour   caught: +½ hour   +1 hour
 *   expected + 1.5 × P99 error (this)                 0.086 %             61.7 %        73.7 %
 *   expected + 1 × P95 error                          4.504 %             76.8 %        90.7 %
 *   expected + 2 × P95 error                          0.226 %             60.9 %        77.1 %
 *   expected + 3 × P95 error                          0.055 %             47.9 %        67.2 %
 *   expected + 6 × 1.4826 × MAD of errors             0.488 %             26.6 %        70.6 %
 *   forecastSeries' one-hour-ahead upper 95 %         8.333 %             91.5 %          —   (4 origins a series)
 *
 * Checked 24 times a day, a 95 % band pages about once a day per scope for nothing (the
 * forecast's own 95 % band, pooled over the steps near each horizon, is too narrow an hour
 * ahead); this one about once in 48 days before the £1 floor, and it still catches most
 * rises of half an ordinary hour. The 99th percentile of 168 errors is the second largest,
 * so one earlier spike in the week does not widen the band. Pure: GBP micros throughout,
 * history as whole UTC hours, oldest first.
 */
import { detectSeasonalPeriods } from '../forecast/index.ts';
import { formatMoney, money } from '../money.ts';
import type { AlertText } from './index.ts';
import type { Contributor } from './forecast-rules.ts';

const DAY_HOURS = 24;
const WEEK_HOURS = 168;
/** Hours of history the band reads: 4 weekly references for each hour of the week whose errors it measures. */
export const HOURLY_HISTORY_HOURS = 5 * WEEK_HOURS;
/** A scope with fewer hours since its first spend gets no hourly check (its days are still checked against the daily forecast). */
export const HOURLY_MIN_HISTORY_HOURS = 2 * WEEK_HOURS;
/** Hours whose errors measure the band's width. */
const ERROR_HOURS = WEEK_HOURS;
/** Earlier cycles the expectation takes the median of, per period. */
const REFERENCE_CYCLES: Record<number, number> = { [WEEK_HOURS]: 4, [DAY_HOURS]: 7 };

export interface HourlyBand {
  /** The seasonal period the expectation follows (hours), or null when none was detected. */
  period: 24 | 168 | null;
  expectedMicros: bigint;
  /** The 99th percentile of the expectation's absolute errors over the week before. */
  errorMicros: bigint;
  /** expected + 1.5 × error, rounded up. */
  upperMicros: bigint;
}

function median(values: readonly bigint[]): bigint {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2n;
}

/** The same hour in earlier cycles (the 24 hours before without a period), nearest first, within the series. */
function references(series: readonly bigint[], hour: number, period: number | null): bigint[] {
  if (period === null) return series.slice(Math.max(0, hour - DAY_HOURS), hour);
  const found: bigint[] = [];
  for (let cycle = 1; cycle <= REFERENCE_CYCLES[period]! && hour - cycle * period >= 0; cycle++) found.push(series[hour - cycle * period]!);
  return found;
}

/**
 * The band of the hour that follows `history` (hourly budget spend, oldest first, hours
 * without spend as 0n), or null when the scope has spent for fewer than
 * HOURLY_MIN_HISTORY_HOURS hours. Hours before its first spend are left out.
 */
export function hourlyBand(history: readonly bigint[]): HourlyBand | null {
  const first = history.findIndex((micros) => micros > 0n);
  if (first === -1 || history.length - first < HOURLY_MIN_HISTORY_HOURS) return null;
  const series = history.slice(first);
  const detected = detectSeasonalPeriods(
    series.map((micros) => Number(micros)),
    [DAY_HOURS, WEEK_HOURS],
  );
  const period = detected.includes(WEEK_HOURS) && series.length >= HOURLY_HISTORY_HOURS ? WEEK_HOURS : detected.includes(DAY_HOURS) ? DAY_HOURS : null;
  const errors: bigint[] = [];
  for (let hour = series.length - ERROR_HOURS; hour < series.length; hour++) {
    const error = series[hour]! - median(references(series, hour, period));
    errors.push(error < 0n ? -error : error);
  }
  errors.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Nearest rank: the ⌈0.99 n⌉-th smallest.
  const errorMicros = errors[Math.ceil((99 * errors.length) / 100) - 1]!;
  const expectedMicros = median(references(series, series.length, period));
  return { period, expectedMicros, errorMicros, upperMicros: expectedMicros + (3n * errorMicros + 1n) / 2n };
}

/** One alert per (scope, UTC hour). */
export const hourlySpikeDedupeKey = (scopeId: string, hourStart: Date) => `spike-hour:${scopeId}:${hourStart.toISOString()}`;

export interface HourlySpendSpike {
  scope: 'group' | 'team';
  scopeName: string;
  /** The hour's start as the team's wall clock, e.g. '2026-11-20 14:00'. */
  localStart: string;
  actualMicros: bigint;
  band: HourlyBand;
  contributors: { key: Contributor; model: Contributor } | null;
}

const gbp = (micros: bigint) => formatMoney(money(micros, 'GBP'));

/**
 * @example hourlySpikeAlertText({ scope: "team", scopeName: "Acme", localStart: "2026-11-20 14:00", actualMicros: 50_000_000n, band: { expectedMicros: 2_000_000n, upperMicros: 5_000_000n, … }, contributors: … })
 *   // { subject: "Spend spike: Acme spent £50.00 in the hour from 2026-11-20 14:00", text: "Spend spike: the team Acme spent £50.00 in the hour from 2026-11-20 14:00, £45.00 above … its usual £2.00 …" }
 */
export function hourlySpikeAlertText(spike: HourlySpendSpike): AlertText {
  const actual = gbp(spike.actualMicros);
  const blame = spike.contributors
    ? ` Most of the rise came from the key "${spike.contributors.key.name}" (+${gbp(spike.contributors.key.riseMicros)} over its usual hour) and the model ${spike.contributors.model.name} (+${gbp(spike.contributors.model.riseMicros)}).`
    : '';
  return {
    subject: `Spend spike: ${spike.scopeName} spent ${actual} in the hour from ${spike.localStart}`,
    text:
      `Spend spike: the ${spike.scope} ${spike.scopeName} spent ${actual} in the hour from ${spike.localStart}, ${gbp(spike.actualMicros - spike.band.upperMicros)} above ` +
      `the upper bound of ${gbp(spike.band.upperMicros)} for that hour (it usually spends ${gbp(spike.band.expectedMicros)}).${blame}`,
  };
}
