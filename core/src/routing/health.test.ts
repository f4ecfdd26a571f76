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
