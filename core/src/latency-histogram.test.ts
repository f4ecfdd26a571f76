import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKETS, latencyBucket, latencyPercentile, mergeLatencyHistograms } from './latency-histogram.ts';

function histogramOf(latencies: number[]): number[] {
  const histogram = new Array<number>(LATENCY_BUCKETS).fill(0);
  for (const latency of latencies) histogram[latencyBucket(latency)]! += 1;
  return histogram;
}

describe('latency histogram', () => {
  it('puts each latency in the bucket whose bounds hold it, the lower bound included', () => {
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(4)).toBe(0);
    expect(latencyBucket(5)).toBe(1);
    expect(latencyBucket(999)).toBe(LATENCY_BUCKET_BOUNDS_MS.indexOf(1_000));
    expect(latencyBucket(1_000)).toBe(LATENCY_BUCKET_BOUNDS_MS.indexOf(1_000) + 1);
    expect(latencyBucket(10_000_000)).toBe(LATENCY_BUCKETS - 1);
  });

  it('merges bucket by bucket, so the sum of two hours reads like both hours at once', () => {
    const first = [120, 130, 800, 2_500];
    const second = [90, 140, 160, 40_000];
    const merged = mergeLatencyHistograms(histogramOf(first), histogramOf(second));
    expect(merged).toEqual(histogramOf([...first, ...second]));
    expect(merged.reduce((sum, count) => sum + count, 0)).toBe(8);
  });

  it('reads p50 and p95 within the width of their bucket', () => {
    const latencies = Array.from({ length: 1_000 }, (_, index) => 100 + index); // 100..1099 ms
    const histogram = histogramOf(latencies);
    const p50 = latencyPercentile(histogram, 0.5)!;
    const p95 = latencyPercentile(histogram, 0.95)!;
    expect(Math.abs(p50 - 600)).toBeLessThanOrEqual(125);
    expect(Math.abs(p95 - 1_050)).toBeLessThanOrEqual(250);
    expect(latencyPercentile(histogram, 1, 1_099)).toBe(1_099);
  });

  it('answers nothing for an empty histogram, and the maximum caps the open-ended bucket', () => {
    expect(latencyPercentile(new Array(LATENCY_BUCKETS).fill(0), 0.5)).toBeUndefined();
    expect(latencyPercentile(histogramOf([400_000, 500_000]), 0.95, 500_000)).toBe(490_000);
    expect(latencyPercentile(histogramOf([400_000, 500_000]), 1, 500_000)).toBe(500_000);
    expect(latencyPercentile(histogramOf([400_000]), 0.5)).toBe(300_000);
  });
});
