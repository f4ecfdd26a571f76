/**
 * RateLimiter: requests and tokens per minute for one subject (an issued key).
 *
 * Window. Each subject has a sliding window of one minute (`windowMs`, default 60 s)
 * kept as 60 buckets of 1/60 of the window (1 s by default), plus the bucket now
 * filling. A request or token counts in the bucket of the moment it was recorded and
 * stops counting when that bucket is more than 60 buckets old, so it counts for
 * between 60 and 61 s. Hence no span of 60 s ever admits more requests than
 * `requestsPerMinute` — a burst at a minute boundary gets the limit once, not twice —
 * and the window moves on second by second instead of resetting each minute.
 *
 * Admission. `admit` counts one request when every limit given fits:
 *   - requests: requests counted in the window + 1 ≤ requestsPerMinute;
 *   - tokens: tokens counted in the window + expectedTokens ≤ tokensPerMinute, where
 *     expectedTokens above the limit counts as the limit (such a request fits once the
 *     window holds no tokens, rather than never).
 * Tokens are usually known only once the answer has ended, so `addTokens` records them
 * then; expectedTokens (0 when unknown) is checked but not held, so requests running
 * at the same time may together go over tokensPerMinute, and later requests are refused
 * until that use has left the window. A refused request counts nothing. An absent
 * limit never refuses; requests are counted either way, so a limit set later sees the
 * traffic already in the window.
 *
 * Answers. A refusal names the limit that is binding (the one with the longer wait;
 * requests on a tie) and `retryAfterSeconds`: a whole number ≥ 1, the seconds until
 * enough of the window has slid out that this same request fits, assuming nothing else
 * is recorded meanwhile. An admission gives what is left of each limit given and
 * `resetSeconds`: whole seconds until everything counted against those limits has left
 * the window (0 when nothing counts against them).
 */
export interface RateLimits {
  /** Requests per window (a minute by default); absent = no limit. A positive integer. */
  requestsPerMinute?: number;
  /** Tokens per window (a minute by default); absent = no limit. A positive integer. */
  tokensPerMinute?: number;
}

export type RateDecision =
  | {
      ok: true;
      /** Requests that still fit after this one; only when requestsPerMinute is given. */
      remainingRequests?: number;
      /** Tokens still free (never below 0); only when tokensPerMinute is given. */
      remainingTokens?: number;
      resetSeconds: number;
    }
  | { ok: false; limit: 'requests' | 'tokens'; limitValue: number; retryAfterSeconds: number };

export interface RateLimiter {
  /**
   * Counts one request for `subject` (e.g. a key id) if it fits every limit; tokens are
   * checked against what was used in the window plus `expectedTokens` (0 when unknown).
   *
   * @example
   *   const decision = await limiter.admit(key.id, key.settings.rateLimit ?? {}, 0);
   *   if (!decision.ok) throw new TooManyRequestsError(decision.retryAfterSeconds);
   *   // … after the answer: await limiter.addTokens(key.id, usage.totalTokens);
   */
  admit(subject: string, limits: RateLimits, expectedTokens: number): Promise<RateDecision>;
  /** Adds the tokens a request really used (after it ended) to the subject's window. */
  addTokens(subject: string, tokens: number): Promise<void>;
  close(): Promise<void>;
}
