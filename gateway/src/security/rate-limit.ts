/**
 * Rate limits for sign-in, one-time codes and connection tests: fixed windows counted
 * in the database, so every gateway process shares them. Each rule has windows per
 * account (email or user id) and per client address; going over any answers 429 with
 * Retry-After.
 *
 * @example
 *   await limiter.hit('login', { account: email, ip: request.ip });
 */

import { TooManyRequestsError } from '@spendgate/core';
import { countHit, type Db } from '@spendgate/store';

interface Window {
  per: 'account' | 'ip';
  limit: number;
  seconds: number;
}

export const RATE_LIMITS = {
  login: [
    { per: 'account', limit: 10, seconds: 900 },
    { per: 'ip', limit: 100, seconds: 900 },
  ],
  /** Sending a code: one a minute and five an hour per account. */
  'otp-send': [
    { per: 'account', limit: 1, seconds: 60 },
    { per: 'account', limit: 5, seconds: 3600 },
    { per: 'ip', limit: 30, seconds: 3600 },
  ],
  /**
   * Answers that tell whether an address has an account (check-email, register, a sign-up
   * code), counted together so no one of them is a faster way to list accounts.
   */
  'account-lookup': [
    { per: 'account', limit: 10, seconds: 900 },
    { per: 'ip', limit: 60, seconds: 3600 },
  ],
  'otp-verify': [
    { per: 'account', limit: 20, seconds: 900 },
    { per: 'ip', limit: 100, seconds: 900 },
  ],
  /** Live connection tests that would go out: enough to set a connection up, too few to scan a network. */
  'connection-test': [
    { per: 'account', limit: 10, seconds: 60 },
    { per: 'account', limit: 60, seconds: 3600 },
    { per: 'ip', limit: 30, seconds: 60 },
  ],
  /** A sample spend digest by e-mail: enough to see it, too few to flood an inbox. */
  'digest-preview': [
    { per: 'account', limit: 3, seconds: 3600 },
    { per: 'ip', limit: 20, seconds: 3600 },
  ],
} as const satisfies Record<string, readonly Window[]>;

export type RateLimitRule = keyof typeof RATE_LIMITS;

export function createRateLimiter(deps: { db: Db; now?: () => Date }) {
  const now = deps.now ?? (() => new Date());
  return {
    /** Counts one try; throws TooManyRequestsError when the account or the address is over a limit. */
    async hit(rule: RateLimitRule, subject: { account: string; ip: string }): Promise<void> {
      const at = now().getTime();
      for (const window of RATE_LIMITS[rule] as readonly Window[]) {
        const windowMs = window.seconds * 1000;
        const windowStart = Math.floor(at / windowMs) * windowMs;
        const who = window.per === 'ip' ? subject.ip : subject.account.toLowerCase();
        const hits = await countHit(deps.db, `${rule}:${window.per}:${window.seconds}:${who}`, new Date(windowStart));
        if (hits > window.limit) {
          throw new TooManyRequestsError(Math.max(1, Math.ceil((windowStart + windowMs - at) / 1000)));
        }
      }
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
