// Multiple seasonal decomposition (in the spirit of MSTL): each detected period's seasonal
// profile is the per-phase mean of the series less its centred moving-average trend and
// the other periods' profiles, taken over the most recent cycles and refined in turn.

export interface Decomposition {
  /** The series less every seasonal component. */
  adjusted: number[];
  /** One zero-mean profile per period, indexed by phase (t mod period). */
  profiles: { period: number; profile: number[] }[];
}

function centredMovingAverage(x: ArrayLike<number>, period: number): (number | null)[] {
  const n = x.length;
  const out: (number | null)[] = new Array(n).fill(null);
  const half = Math.floor(period / 2);
  const prefix = new Float64Array(n + 1);
  for (let t = 0; t < n; t++) prefix[t + 1] = (prefix[t] as number) + (x[t] as number);
  for (let t = half; t + half < n; t++) {
    if (period % 2 === 1) {
      out[t] = ((prefix[t + half + 1] as number) - (prefix[t - half] as number)) / period;
    } else {
      // 2×m moving average: half weight on both ends.
      const inner = (prefix[t + half] as number) - (prefix[t - half + 1] as number);
      out[t] = (inner + 0.5 * (x[t - half] as number) + 0.5 * (x[t + half] as number)) / period;
    }
  }
  return out;
}

export function decompose(x: readonly number[], periods: readonly number[], recentCycles: number): Decomposition {
  const n = x.length;
  const seasonal = periods.map(() => new Float64Array(n));
  const profiles = periods.map((period) => ({ period, profile: new Array<number>(period).fill(0) }));
  for (let pass = 0; pass < 2; pass++) {
    periods.forEach((period, index) => {
      const partial = Float64Array.from(x);
      seasonal.forEach((component, j) => {
        if (j !== index) for (let t = 0; t < n; t++) partial[t] = (partial[t] as number) - (component[t] as number);
      });
      const trend = centredMovingAverage(partial, period);
      const sums = new Float64Array(period);
      const counts = new Float64Array(period);
      const from = Math.max(0, n - Math.floor(period / 2) - recentCycles * period);
      for (let t = from; t < n; t++) {
        const tr = trend[t];
        if (tr == null) continue;
        const phase = t % period;
        sums[phase] = (sums[phase] as number) + (partial[t] as number) - tr;
        counts[phase] = (counts[phase] as number) + 1;
      }
      const profile = Array.from(sums, (s, phase) => ((counts[phase] as number) > 0 ? s / (counts[phase] as number) : 0));
      const mean = profile.reduce((a, b) => a + b, 0) / period;
      const centred = profile.map((v) => v - mean);
      (profiles[index] as { profile: number[] }).profile = centred;
      const component = seasonal[index] as Float64Array;
      for (let t = 0; t < n; t++) component[t] = centred[t % period] as number;
    });
  }
  const adjusted = [...x];
  for (const component of seasonal) for (let t = 0; t < n; t++) adjusted[t] = (adjusted[t] as number) - (component[t] as number);
  return { adjusted, profiles };
}

/** The seasonal part of steps n+1..n+horizon (phase continues from the series' length n). */
export function seasonalAhead(decomposition: Decomposition, n: number, horizon: number): number[] {
  const out: number[] = [];
  for (let h = 0; h < horizon; h++) {
    let sum = 0;
    for (const { period, profile } of decomposition.profiles) sum += profile[(n + h) % period] as number;
    out.push(sum);
  }
  return out;
}
