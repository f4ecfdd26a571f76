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
import type { Redis } from 'ioredis';
import { luaScript, runScript } from '../redis-script.ts';
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
  redis: Redis;
  /** Start of every key the limiter writes, e.g. `sg:ratelimit`. */
  prefix: string;
  /** Length of the sliding window (default a minute); a positive multiple of 60. */
  windowMs?: number;
}

const LUA_HELPERS = `
local SLOTS = ${WINDOW_BUCKETS + 1}

local function fmt(number)
  return string.format('%d', number)
end

local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- Moves the window to now (never back). Returns the bucket it is at, the totals of
-- requests and tokens, and the newest bucket with tokens (nil if none).
local function advance(key, bucketMs, now)
  local bucket = math.floor(now / bucketMs)
  local state = redis.call('HMGET', key, 'last', 'requests', 'tokens', 'lastTokens')
  local last = tonumber(state[1])
  if not last then return bucket, 0, 0, nil end
  local requests, tokens, lastTokens = tonumber(state[2]) or 0, tonumber(state[3]) or 0, tonumber(state[4])
  if bucket <= last then return last, requests, tokens, lastTokens end
  if bucket - last >= SLOTS then
    redis.call('DEL', key)
    return bucket, 0, 0, nil
  end
  local fields = {}
  for passed = last + 1, bucket do
    fields[#fields + 1] = 'r' .. (passed % SLOTS)
    fields[#fields + 1] = 't' .. (passed % SLOTS)
  end
  local counts = redis.call('HMGET', key, unpack(fields))
  for i = 1, #fields, 2 do
    requests = requests - (tonumber(counts[i]) or 0)
    tokens = tokens - (tonumber(counts[i + 1]) or 0)
  end
  redis.call('HDEL', key, unpack(fields))
  redis.call('HSET', key, 'last', fmt(bucket), 'requests', fmt(requests), 'tokens', fmt(tokens))
  return bucket, requests, tokens, lastTokens
end

-- When the oldest buckets holding at least \`needed\` of the counts named \`kind\` ('r'
-- or 't') have left the window.
local function freedAt(key, kind, current, needed, bucketMs)
  local oldest = current - SLOTS + 1
  local fields = {}
  for bucket = oldest, current do fields[#fields + 1] = kind .. (bucket % SLOTS) end
  local counts = redis.call('HMGET', key, unpack(fields))
  local freed = 0
  for i = 1, #fields do
    freed = freed + (tonumber(counts[i]) or 0)
    if freed >= needed then return (oldest + i - 1 + SLOTS) * bucketMs end
  end
  return (current + SLOTS) * bucketMs
end
`;

/**
 * KEYS: the subject's hash. ARGV: bucket ms, requests limit, tokens limit ('' = none),
 * expected tokens. Returns {1, requests, tokens, ms until reset} when admitted,
 * {0, 1 = requests | 2 = tokens, ms until the request fits} when refused.
 */
const ADMIT = luaScript(`${LUA_HELPERS}
local key, bucketMs = KEYS[1], tonumber(ARGV[1])
local requestLimit, tokenLimit, expected = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = nowMs()
local current, requests, tokens, lastTokens = advance(key, bucketMs, now)
local refusedBy, refusedAt = 0, 0
if requestLimit and requests + 1 > requestLimit then
  refusedBy, refusedAt = 1, freedAt(key, 'r', current, requests + 1 - requestLimit, bucketMs)
end
if tokenLimit then
  local excess = tokens + math.min(expected, tokenLimit) - tokenLimit
  if excess > 0 then
    local at = freedAt(key, 't', current, excess, bucketMs)
    if refusedBy == 0 or at > refusedAt then refusedBy, refusedAt = 2, at end
  end
end
if refusedBy > 0 then return {0, refusedBy, refusedAt - now} end
requests = requests + 1
redis.call('HINCRBY', key, 'r' .. (current % SLOTS), 1)
redis.call('HSET', key, 'last', fmt(current), 'requests', fmt(requests))
redis.call('PEXPIREAT', key, fmt((current + SLOTS) * bucketMs))
local resetAt = now
if requestLimit then resetAt = (current + SLOTS) * bucketMs end
if tokenLimit and tokens > 0 and lastTokens then
  resetAt = math.max(resetAt, (lastTokens + SLOTS) * bucketMs)
end
return {1, requests, tokens, resetAt - now}
`);

/** KEYS: the subject's hash. ARGV: bucket ms, tokens (> 0). */
const ADD_TOKENS = luaScript(`${LUA_HELPERS}
local key, bucketMs, amount = KEYS[1], tonumber(ARGV[1]), ARGV[2]
local current = advance(key, bucketMs, nowMs())
redis.call('HINCRBY', key, 't' .. (current % SLOTS), amount)
redis.call('HINCRBY', key, 'tokens', amount)
redis.call('HSET', key, 'last', fmt(current), 'lastTokens', fmt(current))
redis.call('PEXPIREAT', key, fmt((current + SLOTS) * bucketMs))
return 1
`);

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
