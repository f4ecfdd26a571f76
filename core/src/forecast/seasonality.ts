// Seasonal periods are detected, not assumed: a candidate period m is kept when the
// series' autocorrelation at lag m is significant (the M4 competition's seasonality test:
// |r_m| > 1.645 · sqrt((1 + 2 Σ_{k<m} r_k²) / n), 90 % one-sided) and the series holds at
// least three full cycles of it.

export function autocorrelations(values: readonly number[], maxLag: number): number[] {
  const n = values.length;
  let mean = 0;
  for (const v of values) mean += v;
  mean /= n;
  let variance = 0;
  for (const v of values) variance += (v - mean) ** 2;
  const acf: number[] = [];
  for (let lag = 1; lag <= maxLag; lag++) {
    let sum = 0;
    for (let t = lag; t < n; t++) sum += ((values[t] as number) - mean) * ((values[t - lag] as number) - mean);
    acf.push(variance > 0 ? sum / variance : 0);
  }
  return acf;
}

/** The candidates (ascending) whose seasonality is significant in `values`. */
export function detectSeasonalPeriods(values: readonly number[], candidates: readonly number[]): number[] {
  const n = values.length;
  const usable = candidates.filter((m) => n >= 3 * m);
  if (usable.length === 0) return [];
  const acf = autocorrelations(values, Math.max(...usable));
  return usable.filter((m) => {
    let sumSquares = 0;
    for (let k = 0; k < m - 1; k++) sumSquares += (acf[k] as number) ** 2;
    const limit = 1.645 * Math.sqrt((1 + 2 * sumSquares) / n);
    return Math.abs(acf[m - 1] as number) > limit;
  });
}
