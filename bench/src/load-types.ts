// What the harness asks the load generator to do, and what it answers.

export interface LoadRun {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  /** Closed loop: requests in flight. Fixed rate: the most connections the paced run may open. */
  connections: number;
  durationS: number;
  /**
   * Requests per second, sent evenly spaced whatever the answers' pace (open loop);
   * absent for a closed-loop run.
   */
  ratePerSec?: number;
  /** Each response body must equal this; a different one counts as a mismatch. */
  expectBody?: string;
}

export interface LatencySummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface LoadResult {
  /** Seconds the run lasted. */
  elapsedS: number;
  /** Responses with a 2xx status (latencies are of these only). */
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts (timeouts also counted apart). */
  errors: number;
  timeouts: number;
  /** 2xx responses whose body was not the expected one. */
  mismatches: number;
  /** Latency of 2xx responses, request written → response complete, in ms. */
  latencyMs: LatencySummary;
  /** Time to first byte of 2xx responses, request written → response head received, in ms. */
  ttfbMs: LatencySummary;
  /** The load generator's own CPU over the run, % of one core. */
  cpuPercent: number;
}
