// The M4 competition's accuracy measures (sMAPE, MASE, MSIS, interval coverage), computed
// exactly as the M4 Hourly benchmark's README states; the benchmark and each team's backtest
// both score with these, so the figures they publish mean the same thing.

export interface IntervalForecast {
  point: readonly number[];
  lower: readonly number[];
  upper: readonly number[];
}

/** (200/h) · Σ |Y−F| / (|Y|+|F|); a step where both are 0 counts as a perfect 0. */
export function smape(actual: readonly number[], forecast: readonly number[]): number {
  let sum = 0;
  for (let t = 0; t < actual.length; t++) {
    const y = actual[t] as number;
    const f = forecast[t] as number;
    const denominator = Math.abs(y) + Math.abs(f);
    if (denominator > 0) sum += Math.abs(y - f) / denominator;
  }
  return (200 / actual.length) * sum;
}

/** The in-sample scale of MASE and MSIS: mean |y_t − y_{t−m}| over t = m+1..n. */
export function seasonalNaiveScale(history: readonly number[], m: number): number {
  let sum = 0;
  for (let t = m; t < history.length; t++) sum += Math.abs((history[t] as number) - (history[t - m] as number));
  return sum / (history.length - m);
}

export function mase(history: readonly number[], actual: readonly number[], forecast: readonly number[], m: number): number {
  let sum = 0;
  for (let t = 0; t < actual.length; t++) sum += Math.abs((actual[t] as number) - (forecast[t] as number));
  return sum / actual.length / seasonalNaiveScale(history, m);
}

/** Mean scaled interval score of a (1−alpha) interval. */
export function msis(
  history: readonly number[],
  actual: readonly number[],
  lower: readonly number[],
  upper: readonly number[],
  m: number,
  alpha = 0.05,
): number {
  let sum = 0;
  for (let t = 0; t < actual.length; t++) {
    const y = actual[t] as number;
    const l = lower[t] as number;
    const u = upper[t] as number;
    sum += u - l;
    if (y < l) sum += (2 / alpha) * (l - y);
    if (y > u) sum += (2 / alpha) * (y - u);
  }
  return sum / actual.length / seasonalNaiveScale(history, m);
}

/** How many actuals fall inside [lower, upper] (inclusive), out of how many. */
export function coverageCount(
  actual: readonly number[],
  lower: readonly number[],
  upper: readonly number[],
): { inside: number; total: number } {
  let inside = 0;
  for (let t = 0; t < actual.length; t++) {
    const y = actual[t] as number;
    if (y >= (lower[t] as number) && y <= (upper[t] as number)) inside++;
  }
  return { inside, total: actual.length };
}
