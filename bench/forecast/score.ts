// Scores forecasts of the M4 Hourly test set exactly as the benchmark's README says:
// sMAPE, MASE and MSIS averaged over series (m = 24), coverage pooled over all points, ACD = |coverage − 0.95|.

import { coverageCount, mase, msis, smape } from '@spendgate/core';

export interface ScoredSeries {
  train: readonly number[];
  test: readonly number[];
  point: readonly number[];
  lower95: readonly number[];
  upper95: readonly number[];
}

export interface BenchmarkScore {
  smape: number;
  mase: number;
  msis: number;
  coverage: number;
  acd: number;
}

export const M4_HOURLY_PERIOD = 24;

export function scoreBenchmark(series: readonly ScoredSeries[]): BenchmarkScore {
  let smapeSum = 0;
  let maseSum = 0;
  let msisSum = 0;
  let inside = 0;
  let total = 0;
  for (const s of series) {
    smapeSum += smape(s.test, s.point);
    maseSum += mase(s.train, s.test, s.point, M4_HOURLY_PERIOD);
    msisSum += msis(s.train, s.test, s.lower95, s.upper95, M4_HOURLY_PERIOD);
    const counted = coverageCount(s.test, s.lower95, s.upper95);
    inside += counted.inside;
    total += counted.total;
  }
  const coverage = inside / total;
  return {
    smape: smapeSum / series.length,
    mase: maseSum / series.length,
    msis: msisSum / series.length,
    coverage,
    acd: Math.abs(coverage - 0.95),
  };
}
