/**
 * In-process RateLimiter for the embedded mode: the Redis limiter's twin, kept in a Map.
 *
 * Each subject has a ring of 61 request counters and 61 token counters (the 60 buckets
 * of the window plus the one now filling) and their totals. Moving to a later bucket
 * zeroes the slots of the buckets that left the window and takes them off the totals,
 * so each call costs O(1) amortised. Once per window, subjects with nothing left in their
 * window are dropped, so memory follows the subjects active in the last window. See
 * `types.ts` for the rules.
 */
import type { RateDecision, RateLimiter, RateLimits } from './types.ts';
import {
  admitted,
  bucketMsFor,
  DEFAULT_RATE_WINDOW_MS,
  refused,
  validateAddTokens,
  validateAdmit,
  WINDOW_BUCKETS,
} from './window.ts';

export interface InProcessRateLimiterOptions {
  /** Milliseconds since the epoch; tests inject one to move time. */
  clock?: () => number;
  /** Length of the sliding window (default a minute); a positive multiple of 60. */
  windowMs?: number;
}

/** The in-process limiter also tells how many subjects it holds (for tests and metrics). */
export interface InProcessRateLimiter extends RateLimiter {
  subjectCount(): number;
}

const SLOTS = WINDOW_BUCKETS + 1;

interface SubjectWindow {
  /** Newest bucket seen; slots of older buckets than `lastBucket - WINDOW_BUCKETS` are zero. */
  lastBucket: number;
  requests: Float64Array;
  tokens: Float64Array;
  requestTotal: number;
  tokenTotal: number;
  /** Newest bucket that tokens were added to. */
  lastTokenBucket: number;
}

function slotOf(bucket: number): number {
  return ((bucket % SLOTS) + SLOTS) % SLOTS;
}

/** Moves the window to `bucket` (never back) and returns the bucket it is now at. */
function advance(window: SubjectWindow, bucket: number): number {
  if (bucket <= window.lastBucket) return window.lastBucket;
  if (bucket - window.lastBucket >= SLOTS) {
    window.requests.fill(0);
    window.tokens.fill(0);
    window.requestTotal = 0;
    window.tokenTotal = 0;
  } else {
    for (let passed = window.lastBucket + 1; passed <= bucket; passed += 1) {
      const slot = slotOf(passed);
      window.requestTotal -= window.requests[slot]!;
      window.tokenTotal -= window.tokens[slot]!;
      window.requests[slot] = 0;
      window.tokens[slot] = 0;
    }
  }
  window.lastBucket = bucket;
  return bucket;
}

export function createInProcessRateLimiter(options: InProcessRateLimiterOptions = {}): InProcessRateLimiter {
  const clock = options.clock ?? Date.now;
  const windowMs = options.windowMs ?? DEFAULT_RATE_WINDOW_MS;
  const bucketMs = bucketMsFor(windowMs);
  const windows = new Map<string, SubjectWindow>();
  let nextSweepAt = Number.NEGATIVE_INFINITY;

  /** Time at which the bucket leaves the window. */
  const leavesAt = (bucket: number) => (bucket + SLOTS) * bucketMs;

  /** When the oldest buckets holding at least `needed` of `counts` have left the window. */
  function freedAt(counts: Float64Array, current: number, needed: number): number {
    let freed = 0;
    for (let bucket = current - WINDOW_BUCKETS; bucket < current; bucket += 1) {
      freed += counts[slotOf(bucket)]!;
      if (freed >= needed) return leavesAt(bucket);
    }
    return leavesAt(current);
  }

  function dropIdleSubjects(now: number): void {
    if (now < nextSweepAt) return;
    nextSweepAt = now + windowMs;
    const current = Math.floor(now / bucketMs);
    for (const [subject, window] of windows) {
      if (current - window.lastBucket >= SLOTS) windows.delete(subject);
    }
  }

  /** The subject's window moved to now, and the bucket it is at. */
  function windowAt(subject: string, now: number): [SubjectWindow, number] {
    dropIdleSubjects(now);
    const bucket = Math.floor(now / bucketMs);
    let window = windows.get(subject);
    if (window === undefined) {
      window = {
        lastBucket: bucket,
        requests: new Float64Array(SLOTS),
        tokens: new Float64Array(SLOTS),
        requestTotal: 0,
        tokenTotal: 0,
        lastTokenBucket: Number.NEGATIVE_INFINITY,
      };
      windows.set(subject, window);
    }
    return [window, advance(window, bucket)];
  }

  return {
    async admit(subject: string, limits: RateLimits, expectedTokens: number): Promise<RateDecision> {
      validateAdmit(subject, limits, expectedTokens);
      const now = clock();
      const [window, current] = windowAt(subject, now);
      const { requestsPerMinute, tokensPerMinute } = limits;

      let refusal: { limit: 'requests' | 'tokens'; at: number } | undefined;
      if (requestsPerMinute !== undefined && window.requestTotal + 1 > requestsPerMinute) {
        refusal = { limit: 'requests', at: freedAt(window.requests, current, window.requestTotal + 1 - requestsPerMinute) };
      }
      if (tokensPerMinute !== undefined) {
        const excess = window.tokenTotal + Math.min(expectedTokens, tokensPerMinute) - tokensPerMinute;
        if (excess > 0) {
          const at = freedAt(window.tokens, current, excess);
          if (refusal === undefined || at > refusal.at) refusal = { limit: 'tokens', at };
        }
      }
      if (refusal !== undefined) return refused(limits, refusal.limit, refusal.at - now);

      window.requests[slotOf(current)] = window.requests[slotOf(current)]! + 1;
      window.requestTotal += 1;
      let resetAt = now;
      if (requestsPerMinute !== undefined) resetAt = leavesAt(current);
      if (tokensPerMinute !== undefined && window.tokenTotal > 0) {
        resetAt = Math.max(resetAt, leavesAt(window.lastTokenBucket));
      }
      return admitted(limits, window.requestTotal, window.tokenTotal, resetAt - now);
    },

    async addTokens(subject: string, tokens: number): Promise<void> {
      validateAddTokens(subject, tokens);
      if (tokens === 0) return;
      const [window, current] = windowAt(subject, clock());
      window.tokens[slotOf(current)] = window.tokens[slotOf(current)]! + tokens;
      window.tokenTotal += tokens;
      window.lastTokenBucket = current;
    },

    subjectCount(): number {
      return windows.size;
    },

    async close(): Promise<void> {
      windows.clear();
    },
  };
}
