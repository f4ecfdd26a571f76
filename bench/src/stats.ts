// Latency statistics from raw samples (ms, fractional — autocannon's own histogram
// rounds to whole milliseconds, too coarse for a loopback proxy).

/** The value at quantile q (0..1) of ascending `sorted`, nearest-rank; 0 for no samples. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

/** The nearest-rank median of `values` (in any order); 0 for none. */
export function median(values: readonly number[]): number {
  return quantile(Float64Array.from(values).sort(), 0.5);
}

/** A growable list of numbers without boxing. */
export class Samples {
  #values = new Float64Array(1 << 16);
  #length = 0;

  push(value: number): void {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length++] = value;
  }

  get length(): number {
    return this.#length;
  }

  summary() {
    const sorted = this.#values.slice(0, this.#length).sort();
    let sum = 0;
    for (const value of sorted) sum += value;
    return {
      mean: sorted.length ? sum / sorted.length : 0,
      p50: quantile(sorted, 0.5),
      p90: quantile(sorted, 0.9),
      p99: quantile(sorted, 0.99),
      max: sorted.length ? sorted[sorted.length - 1]! : 0,
    };
  }
}
