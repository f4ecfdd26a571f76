import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs, retryDelayMs } from './backoff.ts';
import { CircuitBreaker, LatencyAverage } from './health.ts';

describe('circuit breaker', () => {
  it('opens after consecutive failures, probes once after the cooldown, closes on success', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1000 });
    breaker.failed(0);
    breaker.failed(10);
    breaker.succeeded(); // a success in between resets the count
    breaker.failed(20);
    breaker.failed(30);
    expect(breaker.allows(30)).toBe(true);
    breaker.failed(40);
    expect([breaker.state(40), breaker.allows(500)]).toEqual(['open', false]);

    expect(breaker.state(1040)).toBe('half-open');
    expect(breaker.allows(1040)).toBe(true);
    breaker.started(1040);
    expect(breaker.allows(1041)).toBe(false); // one probe at a time
    breaker.succeeded();
    expect([breaker.state(1050), breaker.allows(1050)]).toEqual(['closed', true]);
  });

  it('opens again for a full cooldown when the probe fails', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 1000 });
    breaker.failed(0);
    breaker.started(1000);
    breaker.failed(1200);
    expect([breaker.state(2100), breaker.state(2200)]).toEqual(['open', 'half-open']);
  });

  it('says when it opens and closes, once per change, so the news can be passed on', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 2, cooldownMs: 1000 });
    expect([breaker.failed(0), breaker.failed(10)]).toEqual([false, true]);
    expect(breaker.failed(20)).toBe(false); // already open: its cooldown restarts, no news
    expect(breaker.state(1010)).toBe('open');
    breaker.started(1020);
    expect(breaker.failed(1030)).toBe(true); // the probe failed: open again
    expect([breaker.succeeded(), breaker.succeeded()]).toEqual([true, false]);
  });

  it('opens on another process’s news unless already open, and lets its probe through after the cooldown', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 5, cooldownMs: 1000 });
    breaker.openedElsewhere(100);
    expect([breaker.state(100), breaker.allows(1099), breaker.allows(1100)]).toEqual(['open', false, true]);
    breaker.openedElsewhere(1050); // open: the news does not restart the cooldown
    expect(breaker.state(1100)).toBe('half-open');
    breaker.started(1100);
    breaker.openedElsewhere(1200); // half-open, its probe out: a peer's failed probe opens it again
    expect([breaker.state(2199), breaker.state(2200), breaker.allows(2200)]).toEqual(['open', 'half-open', true]);
    expect(breaker.succeeded()).toBe(true);
  });
});

describe('latency average', () => {
  it('starts at the first sample and moves by alpha towards each new one', () => {
    const latency = new LatencyAverage(0.5);
    expect(latency.valueMs()).toBeUndefined();
    latency.add(100);
    latency.add(300);
    expect(latency.valueMs()).toBe(200);
  });
});

describe('retry backoff', () => {
  it('waits a random share of base × 2^retry, capped', () => {
    expect([0, 1, 2, 3, 4].map((retry) => retryDelayMs({ retry, random: () => 0.999 }))).toEqual([249, 499, 999, 1998, 1998]);
    expect(retryDelayMs({ retry: 2, random: () => 0 })).toBe(0);
  });

  it('honours a short retry-after and gives up on a long one', () => {
    expect(retryDelayMs({ retry: 0, random: () => 0.5, retryAfterMs: 1000 })).toBe(1000);
    expect(retryDelayMs({ retry: 0, random: () => 0.5, retryAfterMs: 60_000 })).toBeUndefined();
  });

  it('reads retry-after in seconds or as a date', () => {
    const now = Date.parse('2026-09-01T00:00:00Z');
    expect(parseRetryAfterMs('2', now)).toBe(2000);
    expect(parseRetryAfterMs('Tue, 01 Sep 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
  });
});
