// The forecaster on constructed series: seasonality detected only where it is, a labelled
// fallback for short series, zero-spend days, and intervals that hold the point forecast.

import { describe, expect, it } from 'vitest';
import { backtestSteps } from './backtest.ts';
import { forecastSeries } from './forecast.ts';
import { detectSeasonalPeriods } from './seasonality.ts';

/** Deterministic noise in [−0.5, 0.5) (a linear congruential generator). */
function noise(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 2 ** 32;
    return state / 2 ** 32 - 0.5;
  };
}

const WEEKDAY_SHAPE = [1.2, 1.3, 1.25, 1.2, 1.1, 0.5, 0.45];

function dailySpend(days: number, seed = 7): number[] {
  const jitter = noise(seed);
  return Array.from({ length: days }, (_, d) => (100 + d) * (WEEKDAY_SHAPE[d % 7] as number) * (1 + 0.05 * jitter()));
}

describe('detectSeasonalPeriods', () => {
  it('finds a weekly cycle in daily spend and none in noise', () => {
    expect(detectSeasonalPeriods(dailySpend(70), [7])).toEqual([7]);
    const jitter = noise(5);
    expect(detectSeasonalPeriods(Array.from({ length: 70 }, () => 100 + jitter()), [7])).toEqual([]);
  });

  it('finds daily and weekly cycles in hourly data, and needs three cycles of a period', () => {
    const jitter = noise(11);
    const hourly = Array.from({ length: 24 * 7 * 4 }, (_, t) => {
      const hourShape = 1 + 0.6 * Math.sin((2 * Math.PI * t) / 24);
      const weekend = Math.floor(t / 24) % 7 >= 5 ? 0.4 : 1;
      return 50 * hourShape * weekend + 3 * jitter();
    });
    expect(detectSeasonalPeriods(hourly, [24, 168])).toEqual([24, 168]);
    expect(detectSeasonalPeriods(hourly.slice(0, 24 * 20), [24, 168])).toEqual([24]);
  });
});

describe('forecastSeries', () => {
  it('continues a weekly pattern with a trend, intervals around the point', () => {
    const history = dailySpend(84);
    const truth = dailySpend(84 + 14).slice(84);
    const forecast = forecastSeries({ values: history, horizon: 14, seasonalCandidates: [7] });
    expect(forecast.fallback).toBe(false);
    expect(forecast.periods).toEqual([7]);
    expect(forecast.method).toMatch(/\(7\) log$/);
    forecast.point.forEach((p, h) => {
      expect(Math.abs(p - (truth[h] as number)) / (truth[h] as number)).toBeLessThan(0.12);
      expect(forecast.lower95[h]).toBeLessThanOrEqual(forecast.lower80[h] as number);
      expect(forecast.lower80[h]).toBeLessThanOrEqual(p);
      expect(forecast.upper80[h]).toBeGreaterThanOrEqual(p);
      expect(forecast.upper95[h]).toBeGreaterThanOrEqual(forecast.upper80[h] as number);
    });
    // the weekend dip is forecast, not averaged away
    const saturday = forecast.point.findIndex((_, h) => (84 + h) % 7 === 5);
    expect(forecast.point[saturday]).toBeLessThan(0.6 * (forecast.point[saturday - 1] as number));
  });

  it('gives a short series a labelled seasonal-naive forecast, never padding', () => {
    const history = [5, 6, 7, 8, 9, 2, 1, 6, 7, 8];
    const forecast = forecastSeries({ values: history, horizon: 5, seasonalCandidates: [7] });
    expect(forecast.fallback).toBe(true);
    expect(forecast.method).toBe('seasonal-naive(7) fallback: 10 points');
    expect(forecast.point).toEqual([8, 9, 2, 1, 6]);
    expect(forecast.lower95[0]).toBeLessThan(8);
    expect(forecast.upper95[0]).toBeGreaterThan(8);
  });

  it('drops the zeros before spending began and keeps zero-spend days additive and non-negative', () => {
    const spend = dailySpend(42).map((v, d) => (d % 7 === 6 ? 0 : v));
    const forecast = forecastSeries({ values: [0, 0, 0, 0, 0, ...spend], horizon: 10, seasonalCandidates: [7] });
    expect(forecast.fallback).toBe(false);
    expect(forecast.method).not.toMatch(/log/);
    for (const series of [forecast.point, forecast.lower80, forecast.lower95]) for (const v of series) expect(v).toBeGreaterThanOrEqual(0);
    // Sundays (index 6 of the pattern) stay at or near zero
    const sunday = forecast.point.findIndex((_, h) => (42 + h) % 7 === 6);
    expect(forecast.point[sunday]).toBeLessThan(20);
    // the same history without the leading zeros forecasts the same
    expect(forecastSeries({ values: spend, horizon: 10, seasonalCandidates: [7] }).point).toEqual(forecast.point);
  });

  it('forecasts a team that never spent as zero', () => {
    const forecast = forecastSeries({ values: [0, 0, 0], horizon: 3, seasonalCandidates: [7] });
    expect(forecast.point).toEqual([0, 0, 0]);
    expect(forecast.upper95).toEqual([0, 0, 0]);
  });
});

describe('backtestSteps', () => {
  const run = (values: number[]) => {
    const steps = backtestSteps(values);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  };

  it('scores a steady weekly series well: MASE under 1, within ±5 %, 95 % band covering at least the 80 %', () => {
    const weekly = Array.from({ length: 140 }, (_, d) => [10, 12, 11, 10, 9, 3, 2][d % 7] as number);
    // weekly with a tiny wobble so the seasonal-naive scale is not 0
    const values = weekly.map((v, d) => v + (d % 14 === 0 ? 0.5 : 0));
    const backtest = run(values);
    expect(backtest?.origins).toBe(8);
    expect(backtest?.points).toBe(56);
    expect(backtest?.coverage95).toBeGreaterThanOrEqual(backtest?.coverage80 as number);
    expect(backtest?.wape).toBeLessThan(0.05);
    expect(backtest?.mase).toBeLessThan(1);
  });

  it('computes WAPE and coverage by hand for a constant history and a jump', () => {
    // 63 days of 10, then a week of 20: every forecast says 10.
    const values = [...Array.from({ length: 63 }, () => 10), ...Array.from({ length: 7 }, () => 20)];
    const backtest = run(values);
    expect(backtest?.origins).toBe(8);
    // 7 origins exact (error 0), the last week wrong by 10 on each of 7 days: Σ|e| = 70, Σ actual = 49·10 + 7·20 = 630.
    expect(backtest?.wape).toBeCloseTo(70 / 630, 10);
    // a constant history has a zero seasonal-naive scale: no MASE
    expect(backtest?.mase).toBeNull();
    // the 7 jumped days fall outside their (near zero-width) bands
    expect(backtest?.coverage95).toBeLessThanOrEqual(49 / 56);
  });

  it('has no record for a team with under a week of history before the first origin', () => {
    expect(run([5])).toBeNull();
  });
});
