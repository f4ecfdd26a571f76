/**
 * Request latency as a mergeable histogram: counts per fixed bucket, so hourly and daily
 * rollups add up (element by element) and any range's p50/p95 can be read from the sum.
 * Bucket i counts latencies in [LATENCY_BUCKET_BOUNDS_MS[i-1], LATENCY_BUCKET_BOUNDS_MS[i])
 * (bucket 0 from 0, the last one open-ended); a percentile is interpolated inside its
 * bucket, so it is exact to the bucket's width (about ±25 % of the value).
 */

/** Upper bounds (exclusive) of every bucket but the last, in milliseconds. */
export const LATENCY_BUCKET_BOUNDS_MS = [
  5, 10, 20, 35, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1_000, 1_500, 2_000, 3_000, 4_000, 5_000, 7_500, 10_000, 15_000, 20_000, 30_000,
  45_000, 60_000, 120_000, 300_000,
] as const;

/** Buckets in a histogram: one per bound, plus the open-ended last one. */
export const LATENCY_BUCKETS = LATENCY_BUCKET_BOUNDS_MS.length + 1;

/** The bucket a latency falls in. */
export function latencyBucket(latencyMs: number): number {
  let index = 0;
  while (index < LATENCY_BUCKET_BOUNDS_MS.length && latencyMs >= LATENCY_BUCKET_BOUNDS_MS[index]!) index += 1;
  return index;
}

/** Adds `more` into `into`, bucket by bucket. */
export function mergeLatencyHistograms(into: number[], more: readonly number[]): number[] {
  for (let index = 0; index < LATENCY_BUCKETS; index += 1) into[index] = (into[index] ?? 0) + (more[index] ?? 0);
  return into;
}

/**
 * The latency below which `quantile` (0–1) of the counted requests fall, interpolated in
 * its bucket (the open-ended one up to `maxMs`, else its lower bound); undefined when empty.
 */
export function latencyPercentile(histogram: readonly number[], quantile: number, maxMs?: number): number | undefined {
  const total = histogram.reduce((sum, count) => sum + count, 0);
  if (total === 0) return undefined;
  const rank = quantile * total;
  let below = 0;
  for (let index = 0; index < LATENCY_BUCKETS; index += 1) {
    const count = histogram[index] ?? 0;
    if (count > 0 && below + count >= rank) {
      const low = index === 0 ? 0 : LATENCY_BUCKET_BOUNDS_MS[index - 1]!;
      const high = LATENCY_BUCKET_BOUNDS_MS[index] ?? maxMs ?? low;
      const within = low + ((high - low) * (rank - below)) / count;
      return Math.round(maxMs === undefined ? within : Math.min(within, maxMs));
    }
    below += count;
  }
  return maxMs;
}
