/**
 * Health of one upstream model, measured live: a circuit breaker and an average
 * latency. Pure state machines; the caller passes the time in.
 *
 * Breaker: closed → open after `failureThreshold` consecutive failures; once
 * `cooldownMs` has passed it lets one probe through (half-open): a success closes it,
 * a failure opens it for another cooldown. `failed` and `succeeded` say when they open
 * or close it, so the news can be passed on; `openedElsewhere` takes that news in.
 */

export interface BreakerOptions {
  failureThreshold: number;
  cooldownMs: number;
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = { failureThreshold: 5, cooldownMs: 30_000 };

export type CircuitState = 'closed' | 'open' | 'half-open';

export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openedAt: number | undefined;
  private probeInFlight = false;

  constructor(private readonly options: BreakerOptions = DEFAULT_BREAKER_OPTIONS) {}

  state(now: number): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return now - this.openedAt >= this.options.cooldownMs ? 'half-open' : 'open';
  }

  /** Whether a request may go now; in half-open, only the one probe may. */
  allows(now: number): boolean {
    const state = this.state(now);
    return state === 'closed' || (state === 'half-open' && !this.probeInFlight);
  }

  /** Call before sending: marks the half-open probe as taken. */
  started(now: number): void {
    if (this.state(now) === 'half-open') this.probeInFlight = true;
  }

  /** True when this closed an open (or half-open) circuit. */
  succeeded(): boolean {
    const wasOpen = this.openedAt !== undefined;
    this.consecutiveFailures = 0;
    this.openedAt = undefined;
    this.probeInFlight = false;
    return wasOpen;
  }

  /** True when this opened the circuit (closed or half-open before); a failure while open only restarts its cooldown. */
  failed(now: number): boolean {
    const wasOpen = this.state(now) === 'open';
    this.consecutiveFailures += 1;
    if (this.probeInFlight || this.consecutiveFailures >= this.options.failureThreshold) this.openedAt = now;
    this.probeInFlight = false;
    return !wasOpen && this.state(now) === 'open';
  }

  /** Another process's breaker for the same upstream opened: open now unless already open (its cooldown runs on). */
  openedElsewhere(now: number): void {
    if (this.state(now) === 'open') return;
    this.openedAt = now;
    this.probeInFlight = false;
  }
}

/** Exponentially weighted moving average of latency: each sample weighs `alpha`. */
export class LatencyAverage {
  private average: number | undefined;

  constructor(private readonly alpha = 0.3) {}

  add(latencyMs: number): void {
    this.average = this.average === undefined ? latencyMs : this.alpha * latencyMs + (1 - this.alpha) * this.average;
  }

  /** undefined until the first sample. */
  valueMs(): number | undefined {
    return this.average;
  }
}
