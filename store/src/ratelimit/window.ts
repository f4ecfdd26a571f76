/**
 * What both rate limiters share: the window's shape, argument checks (so both refuse
 * the same inputs) and how counts become a RateDecision.
 *
 * Counts stay below 2^53 so the Redis limiter, whose Lua numbers are doubles, is exact.
 */
import type { RateDecision, RateLimits } from './types.ts';

export const DEFAULT_RATE_WINDOW_MS = 60_000;

/** Buckets per window; one more bucket, the one now filling, also counts. */
export const WINDOW_BUCKETS = 60;

/** Checks `windowMs` and returns the length of one bucket in milliseconds. */
export function bucketMsFor(windowMs: number): number {
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0 || windowMs % WINDOW_BUCKETS !== 0) {
    throw new RangeError(`windowMs must be a positive multiple of ${WINDOW_BUCKETS}, got ${windowMs}`);
  }
  return windowMs / WINDOW_BUCKETS;
}

function assertCount(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${value}`);
  }
}

function assertSubject(subject: string): void {
  if (typeof subject !== 'string' || subject === '') {
    throw new RangeError('subject must be a non-empty string');
  }
}

export function validateAdmit(subject: string, limits: RateLimits, expectedTokens: number): void {
  assertSubject(subject);
  if (limits.requestsPerMinute !== undefined) assertCount('requestsPerMinute', limits.requestsPerMinute, 1);
  if (limits.tokensPerMinute !== undefined) assertCount('tokensPerMinute', limits.tokensPerMinute, 1);
  assertCount('expectedTokens', expectedTokens, 0);
}

export function validateAddTokens(subject: string, tokens: number): void {
  assertSubject(subject);
  assertCount('tokens', tokens, 0);
}

/** Whole seconds until `waitMs` has passed: at least 1 for any wait. */
export function wholeSeconds(waitMs: number): number {
  return waitMs <= 0 ? 0 : Math.max(1, Math.ceil(waitMs / 1000));
}

/** An admission, from the counts in the window once the request is counted. */
export function admitted(limits: RateLimits, requests: number, tokens: number, resetWaitMs: number): RateDecision {
  const decision: Extract<RateDecision, { ok: true }> = { ok: true, resetSeconds: wholeSeconds(resetWaitMs) };
  if (limits.requestsPerMinute !== undefined) decision.remainingRequests = Math.max(0, limits.requestsPerMinute - requests);
  if (limits.tokensPerMinute !== undefined) decision.remainingTokens = Math.max(0, limits.tokensPerMinute - tokens);
  return decision;
}

export function refused(limits: RateLimits, limit: 'requests' | 'tokens', retryWaitMs: number): RateDecision {
  const limitValue = limit === 'requests' ? limits.requestsPerMinute : limits.tokensPerMinute;
  if (limitValue === undefined) throw new Error(`refused on ${limit}, which has no limit`);
  return { ok: false, limit, limitValue, retryAfterSeconds: Math.max(1, wholeSeconds(retryWaitMs)) };
}
