/**
 * Redis RateLimiter for the scaled mode: every gateway shares each subject's window, and
 * `admit` and `addTokens` are one Lua script each, so concurrent requests never get
 * more than the limit.
 *
 * One hash per subject (P = prefix, S = subject), the in-process limiter's ring:
 *   P:S  hash  r<slot>, t<slot>   requests / tokens of the bucket in slot (bucket mod 61)
 *              requests, tokens   their totals over the window
 *              last               newest bucket seen (buckets are counted from the epoch)
 *              lastTokens         newest bucket tokens were added to
 * Each script first moves the window to now: it takes the slots of the buckets that left
 * off the totals and deletes them (at most 61 fields, usually 2). Every write sets the
 * key to expire when its newest bucket leaves the window, so idle subjects vanish on
 * their own. Time is the Redis server's TIME, so gateways with skewed clocks agree; the
 * window never moves back. Each script touches one key, so it works on Redis Cluster.
 * A prefix serves one window length. Redis errors reach the caller, which decides
 * whether to admit when the limiter cannot answer. The limiter does not close the
 * connection it is given. See `types.ts` for the rules.
 */
import type { RedisConnection } from '../redis-connection.ts';
import { luaScript, readLuaFile, runScript } from '../redis-script.ts';
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

export interface RedisRateLimiterOptions {
  redis: RedisConnection;
  /** Start of every key the limiter writes, e.g. `sg:ratelimit`. */
  prefix: string;
  /** Length of the sliding window (default a minute); a positive multiple of 60. */
  windowMs?: number;
}

/** The window's helpers (rate-window.lua), after the number of slots its ring has. */
const LUA_HELPERS = `local SLOTS = ${WINDOW_BUCKETS + 1}\n${readLuaFile(new URL('./rate-window.lua', import.meta.url))}`;

/**
 * KEYS: the subject's hash. ARGV: bucket ms, requests limit, tokens limit ('' = none),
 * expected tokens. Returns {1, requests, tokens, ms until reset} when admitted,
 * {0, 1 = requests | 2 = tokens, ms until the request fits} when refused.
 */
const ADMIT = luaScript(LUA_HELPERS, readLuaFile(new URL('./rate-admit.lua', import.meta.url)));

/** KEYS: the subject's hash. ARGV: bucket ms, tokens (> 0). */
const ADD_TOKENS = luaScript(LUA_HELPERS, readLuaFile(new URL('./rate-add-tokens.lua', import.meta.url)));

export function createRedisRateLimiter({ redis, prefix, windowMs = DEFAULT_RATE_WINDOW_MS }: RedisRateLimiterOptions): RateLimiter {
  const bucketMs = String(bucketMsFor(windowMs));
  const subjectKey = (subject: string) => `${prefix}:${subject}`;

  return {
    async admit(subject: string, limits: RateLimits, expectedTokens: number): Promise<RateDecision> {
      validateAdmit(subject, limits, expectedTokens);
      const reply = (await runScript(
        redis,
        ADMIT,
        [subjectKey(subject)],
        [bucketMs, String(limits.requestsPerMinute ?? ''), String(limits.tokensPerMinute ?? ''), String(expectedTokens)],
      )) as number[];
      if (reply[0] === 1) return admitted(limits, reply[1]!, reply[2]!, reply[3]!);
      if (reply[0] === 0 && (reply[1] === 1 || reply[1] === 2)) {
        return refused(limits, reply[1] === 1 ? 'requests' : 'tokens', reply[2]!);
      }
      throw new Error(`unexpected admit reply from Redis: ${JSON.stringify(reply)}`);
    },

    async addTokens(subject: string, tokens: number): Promise<void> {
      validateAddTokens(subject, tokens);
      if (tokens === 0) return;
      await runScript(redis, ADD_TOKENS, [subjectKey(subject)], [bucketMs, String(tokens)]);
    },

    async close(): Promise<void> {},
  };
}
