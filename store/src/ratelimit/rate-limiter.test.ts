// One contract suite for every RateLimiter: the in-process limiter always, the Redis
// limiter on each Redis target set (TEST_REDIS_URL, TEST_REDIS_CLUSTER_URL). The in-process limiter runs on a fake clock with
// the one-minute window; the Redis limiter uses Redis server time, so its tests that
// move time use a 1.2 s window and really wait. Exact retry-after values are checked
// on the fake clock, below the contract suite.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deleteKeysWithPrefix, redisTargets, uniquePrefix } from '../testing/redis.ts';
import { createInProcessRateLimiter } from './in-process-rate-limiter.ts';
import { createRedisRateLimiter } from './redis-rate-limiter.ts';
import type { RateDecision, RateLimiter } from './types.ts';

interface LimiterUnderTest {
  limiter: RateLimiter;
  /** The window the limiter was made with. */
  windowMs: number;
  /** Lets `ms` milliseconds pass for the limiter. */
  elapse(ms: number): Promise<void>;
  /** Milliseconds on a clock that runs with the limiter's. */
  now(): number;
}

interface LimiterImplementation {
  name: string;
  /** A limiter on the default one-minute window. */
  create(): LimiterUnderTest;
  /** A limiter whose window passes quickly enough to wait for (the fake clock needs no help). */
  createShort(): LimiterUnderTest;
  createWithWindow(windowMs: number): RateLimiter;
}

const redisConnections = redisTargets.map((target) => ({ ...target, redis: connectTestRedis(target.url) }));
const redisPrefix = uniquePrefix('ratelimit');
let redisLimiterCount = 0;
const nextRedisPrefix = () => {
  redisLimiterCount += 1;
  return `${redisPrefix}:${redisLimiterCount}`;
};

/** 1 Nov 2026, 00:00:00 UTC: a whole second, so buckets start on the clock's seconds. */
const START = Date.UTC(2026, 10, 1);

function inProcessUnderTest(windowMs?: number) {
  let now = START;
  const limiter = createInProcessRateLimiter({ clock: () => now, windowMs });
  return {
    limiter,
    windowMs: windowMs ?? 60_000,
    elapse: async (ms: number) => {
      now += ms;
    },
    now: () => now,
  };
}

const IMPLEMENTATIONS: LimiterImplementation[] = [
  {
    name: 'in-process rate limiter',
    create: () => inProcessUnderTest(),
    createShort: () => inProcessUnderTest(),
    createWithWindow: (windowMs) => createInProcessRateLimiter({ windowMs }),
  },
];
for (const { name, redis } of redisConnections) {
  const redisUnderTest = (windowMs?: number): LimiterUnderTest => ({
    limiter: createRedisRateLimiter({ redis, prefix: nextRedisPrefix(), windowMs }),
    windowMs: windowMs ?? 60_000,
    elapse: (ms) => sleep(ms),
    now: () => performance.now(),
  });
  IMPLEMENTATIONS.push({
    name: `${name} rate limiter`,
    create: () => redisUnderTest(),
    createShort: () => redisUnderTest(1_200),
    createWithWindow: (windowMs) => createRedisRateLimiter({ redis, prefix: nextRedisPrefix(), windowMs }),
  });
}

afterAll(async () => {
  for (const { redis } of redisConnections) {
    await deleteKeysWithPrefix(redis, redisPrefix);
    await redis.quit();
  }
});

/** The longest wait a window can ask for: a request counts for up to 61/60 of it. */
function maxWaitSeconds(windowMs: number): number {
  return Math.ceil((windowMs + windowMs / 60) / 1000);
}

function expectRefused(decision: RateDecision, limit: 'requests' | 'tokens', limitValue: number, windowMs: number): number {
  expect(decision).toMatchObject({ ok: false, limit, limitValue });
  if (decision.ok) throw new Error('admitted');
  expect(Number.isInteger(decision.retryAfterSeconds)).toBe(true);
  expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  expect(decision.retryAfterSeconds).toBeLessThanOrEqual(maxWaitSeconds(windowMs));
  return decision.retryAfterSeconds;
}

async function admitMany(limiter: RateLimiter, count: number, subject: string, requestsPerMinute: number) {
  const decisions: RateDecision[] = [];
  for (let i = 0; i < count; i += 1) decisions.push(await limiter.admit(subject, { requestsPerMinute }, 0));
  return decisions;
}

for (const implementation of IMPLEMENTATIONS) {
  describe(implementation.name, () => {
    it('admits up to the request limit and refuses the next, naming the limit and when to retry', async () => {
      const { limiter, windowMs } = implementation.create();
      const decisions = await admitMany(limiter, 3, 'key-1', 3);
      expect(decisions.map((decision) => decision.ok && decision.remainingRequests)).toEqual([2, 1, 0]);
      for (const decision of decisions) {
        expect(decision.ok && decision.resetSeconds).toBeGreaterThanOrEqual(1);
        expect(decision.ok && decision.resetSeconds).toBeLessThanOrEqual(maxWaitSeconds(windowMs));
      }
      expectRefused(await limiter.admit('key-1', { requestsPerMinute: 3 }, 0), 'requests', 3, windowMs);
    });

    it('admits again once the retry-after has passed, as the window slides', async () => {
      const { limiter, windowMs, elapse } = implementation.createShort();
      await admitMany(limiter, 2, 'key-1', 2);
      const retryAfter = expectRefused(await limiter.admit('key-1', { requestsPerMinute: 2 }, 0), 'requests', 2, windowMs);

      await elapse(retryAfter * 1000);

      expect(await limiter.admit('key-1', { requestsPerMinute: 2 }, 0)).toMatchObject({ ok: true, remainingRequests: 1 });
    });

    it('counts nothing for a refused request', async () => {
      const { limiter, windowMs, elapse } = implementation.createShort();
      await admitMany(limiter, 2, 'key-1', 2);
      await elapse(windowMs / 2);
      const retryAfter = expectRefused(await limiter.admit('key-1', { requestsPerMinute: 2 }, 0), 'requests', 2, windowMs);
      for (let i = 0; i < 5; i += 1) {
        expect(await limiter.admit('key-1', { requestsPerMinute: 2 }, 0)).toMatchObject({ ok: false, retryAfterSeconds: retryAfter });
      }

      // The first two have left the window; the refused ones, made later, would still be in it.
      await elapse(retryAfter * 1000);

      const decisions = await admitMany(limiter, 3, 'key-1', 2);
      expect(decisions.map((decision) => decision.ok)).toEqual([true, true, false]);
    });

    it('counts a request for at least one window and at most one window and a bucket', async () => {
      const { limiter, windowMs, elapse, now } = implementation.createShort();
      await admitMany(limiter, 3, 'key-1', 3);
      const admittedAt = now();
      const step = windowMs / 120;
      for (let polls = 0; !(await limiter.admit('key-1', { requestsPerMinute: 3 }, 0)).ok; polls += 1) {
        if (polls > 1_000) throw new Error('never admitted again');
        await elapse(step);
      }
      const waited = now() - admittedAt;
      expect(waited).toBeGreaterThanOrEqual(windowMs - 2);
      expect(waited).toBeLessThanOrEqual(windowMs + windowMs / 60 + step + 100);
    });

    it('counts the tokens added against the token limit, with the tokens a request expects', async () => {
      const { limiter, windowMs } = implementation.create();
      const limits = { tokensPerMinute: 100 };
      expect(await limiter.admit('key-1', limits, 0)).toMatchObject({ ok: true, remainingTokens: 100 });
      await limiter.addTokens('key-1', 60);
      expect(await limiter.admit('key-1', limits, 40)).toMatchObject({ ok: true, remainingTokens: 40 });
      expectRefused(await limiter.admit('key-1', limits, 41), 'tokens', 100, windowMs);
      await limiter.addTokens('key-1', 40);
      expect(await limiter.admit('key-1', limits, 0)).toMatchObject({ ok: true, remainingTokens: 0 });
      await limiter.addTokens('key-1', 1);
      expectRefused(await limiter.admit('key-1', limits, 0), 'tokens', 100, windowMs);
    });

    it('admits again once the tokens used have left the window', async () => {
      const { limiter, windowMs, elapse } = implementation.createShort();
      await limiter.admit('key-1', { tokensPerMinute: 100 }, 0);
      await limiter.addTokens('key-1', 150);
      const retryAfter = expectRefused(await limiter.admit('key-1', { tokensPerMinute: 100 }, 0), 'tokens', 100, windowMs);

      await elapse(retryAfter * 1000);

      expect(await limiter.admit('key-1', { tokensPerMinute: 100 }, 0)).toMatchObject({ ok: true, remainingTokens: 100 });
    });

    it('admits a request expecting more tokens than the limit only when the window holds no tokens', async () => {
      const { limiter, windowMs } = implementation.create();
      const limits = { tokensPerMinute: 100 };
      expect(await limiter.admit('key-1', limits, 500)).toMatchObject({ ok: true });
      expect(await limiter.admit('key-1', limits, 500)).toMatchObject({ ok: true });
      await limiter.addTokens('key-1', 1);
      expectRefused(await limiter.admit('key-1', limits, 500), 'tokens', 100, windowMs);
      expect(await limiter.admit('key-1', limits, 99)).toMatchObject({ ok: true });
    });

    it('names the limit with the longer wait when both refuse', async () => {
      const { limiter, windowMs, elapse } = implementation.createShort();
      const limits = { requestsPerMinute: 1, tokensPerMinute: 100 };
      await limiter.admit('key-1', limits, 0);
      await elapse(windowMs / 2);
      await limiter.addTokens('key-1', 500);
      const retryAfter = expectRefused(await limiter.admit('key-1', limits, 0), 'tokens', 100, windowMs);

      await elapse(retryAfter * 1000);

      expect(await limiter.admit('key-1', limits, 0)).toMatchObject({ ok: true, remainingRequests: 0, remainingTokens: 100 });
    });

    it('keeps each subject’s limits apart', async () => {
      const { limiter, windowMs } = implementation.create();
      const limits = { requestsPerMinute: 2, tokensPerMinute: 100 };
      await limiter.admit('key-1', limits, 0);
      await limiter.admit('key-1', limits, 0);
      await limiter.addTokens('key-1', 1_000);
      expectRefused(await limiter.admit('key-1', limits, 0), 'requests', 2, windowMs);

      expect(await limiter.admit('key-2', limits, 0)).toMatchObject({ ok: true, remainingRequests: 1, remainingTokens: 100 });
    });

    it('never refuses on an absent limit, and still counts requests', async () => {
      const { limiter } = implementation.create();
      for (let i = 0; i < 150; i += 1) expect(await limiter.admit('key-1', {}, 1_000_000)).toMatchObject({ ok: true });
      await limiter.addTokens('key-1', 10_000_000);
      expect(await limiter.admit('key-1', { requestsPerMinute: 1_000 }, 1_000_000)).toEqual({
        ok: true,
        remainingRequests: 1_000 - 151,
        resetSeconds: expect.any(Number),
      });
      expect(await limiter.admit('key-1', {}, 0)).toEqual({ ok: true, resetSeconds: 0 });
    });

    it('admits exactly the limit of 200 requests made at once', async () => {
      const { limiter } = implementation.create();
      const decisions = await Promise.all(
        Array.from({ length: 200 }, () => limiter.admit('key-1', { requestsPerMinute: 50 }, 0)),
      );
      expect(decisions.filter((decision) => decision.ok)).toHaveLength(50);
      expect(decisions.filter((decision) => !decision.ok && decision.limit === 'requests')).toHaveLength(150);
      const remaining = decisions.flatMap((decision) => (decision.ok ? [decision.remainingRequests] : []));
      expect(remaining.sort((a, b) => a! - b!)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    it('refuses negative and fractional arguments with a RangeError naming them, counting nothing', async () => {
      const { limiter } = implementation.create();
      const rejects = (promise: Promise<unknown>, name: string) =>
        expect(promise).rejects.toThrow(expect.objectContaining({ name: 'RangeError', message: expect.stringContaining(name) }));
      await rejects(limiter.admit('key-1', { requestsPerMinute: -1 }, 0), 'requestsPerMinute');
      await rejects(limiter.admit('key-1', { requestsPerMinute: 0 }, 0), 'requestsPerMinute');
      await rejects(limiter.admit('key-1', { requestsPerMinute: 2.5 }, 0), 'requestsPerMinute');
      await rejects(limiter.admit('key-1', { tokensPerMinute: -5 }, 0), 'tokensPerMinute');
      await rejects(limiter.admit('key-1', { tokensPerMinute: 1.5 }, 0), 'tokensPerMinute');
      await rejects(limiter.admit('key-1', { requestsPerMinute: 1 }, -1), 'expectedTokens');
      await rejects(limiter.admit('key-1', { requestsPerMinute: 1 }, 0.5), 'expectedTokens');
      await rejects(limiter.admit('key-1', { requestsPerMinute: 1 }, Number.NaN), 'expectedTokens');
      await rejects(limiter.admit('', { requestsPerMinute: 1 }, 0), 'subject');
      await rejects(limiter.addTokens('key-1', -1), 'tokens');
      await rejects(limiter.addTokens('key-1', 2.5), 'tokens');
      await rejects(limiter.addTokens('key-1', 2 ** 53), 'tokens');
      expect(() => implementation.createWithWindow(1_000)).toThrow(/windowMs/);
      expect(() => implementation.createWithWindow(0)).toThrow(RangeError);

      expect(await limiter.admit('key-1', { requestsPerMinute: 1, tokensPerMinute: 1 }, 1)).toMatchObject({
        ok: true,
        remainingRequests: 0,
        remainingTokens: 1,
      });
    });
  });
}

describe('in-process rate limiter on a fake clock', () => {
  function limiterAt(start: number) {
    let now = start;
    const limiter = createInProcessRateLimiter({ clock: () => now });
    return {
      limiter,
      elapse(ms: number) {
        now += ms;
      },
    };
  }

  it('answers a retry-after that is exactly when the request fits again', async () => {
    const { limiter, elapse } = limiterAt(START);
    await admitMany(limiter, 3, 'key-1', 3);
    expect(await limiter.admit('key-1', { requestsPerMinute: 3 }, 0)).toEqual({
      ok: false,
      limit: 'requests',
      limitValue: 3,
      retryAfterSeconds: 61,
    });
    elapse(60_999);
    expect(await limiter.admit('key-1', { requestsPerMinute: 3 }, 0)).toMatchObject({ ok: false, retryAfterSeconds: 1 });
    elapse(1);
    // All three were counted in the same second, so all three have left.
    expect(await limiter.admit('key-1', { requestsPerMinute: 3 }, 0)).toMatchObject({ ok: true, remainingRequests: 2 });
  });

  it('rounds a retry-after up to whole seconds, and not a second more', async () => {
    const { limiter, elapse } = limiterAt(START + 400);
    await admitMany(limiter, 1, 'key-1', 1);
    elapse(10_000);
    // The request counts in the bucket that began at START, which leaves at START + 61 s.
    expect(await limiter.admit('key-1', { requestsPerMinute: 1 }, 0)).toMatchObject({ ok: false, retryAfterSeconds: 51 });
    elapse(50_000);
    expect(await limiter.admit('key-1', { requestsPerMinute: 1 }, 0)).toMatchObject({ ok: false, retryAfterSeconds: 1 });
    elapse(600);
    expect(await limiter.admit('key-1', { requestsPerMinute: 1 }, 0)).toMatchObject({ ok: true });
  });

  it('frees the oldest requests first, so the wait is for as many as are needed', async () => {
    const { limiter, elapse } = limiterAt(START);
    await admitMany(limiter, 2, 'key-1', 4);
    elapse(20_000);
    await admitMany(limiter, 2, 'key-1', 4);
    elapse(5_000);
    expect(await limiter.admit('key-1', { requestsPerMinute: 4 }, 0)).toMatchObject({ ok: false, retryAfterSeconds: 36 });
    elapse(36_000);
    const decisions = await admitMany(limiter, 3, 'key-1', 4);
    expect(decisions.map((decision) => decision.ok)).toEqual([true, true, false]);
    expect(decisions[2]).toMatchObject({ retryAfterSeconds: 20 });
  });

  it('gives a burst at a minute boundary the limit once, not twice', async () => {
    const { limiter, elapse } = limiterAt(START);
    elapse(59_900);
    expect((await admitMany(limiter, 10, 'key-1', 10)).every((decision) => decision.ok)).toBe(true);
    elapse(100);
    expect(await limiter.admit('key-1', { requestsPerMinute: 10 }, 0)).toMatchObject({ ok: false, retryAfterSeconds: 60 });
  });

  it('never admits more than the limit in any 60 s, and keeps admitting at about the limit', async () => {
    const { limiter, elapse } = limiterAt(START + 123);
    const admittedAt: number[] = [];
    for (let t = 0; t < 300_000; t += 250) {
      if ((await limiter.admit('key-1', { requestsPerMinute: 10 }, 0)).ok) admittedAt.push(t);
      elapse(250);
    }
    for (const from of admittedAt) {
      expect(admittedAt.filter((t) => t >= from && t < from + 60_000).length).toBeLessThanOrEqual(10);
    }
    expect(admittedAt.length).toBeGreaterThanOrEqual(49);
  });

  it('tells when everything counted against the limits given has left the window', async () => {
    const { limiter, elapse } = limiterAt(START);
    expect(await limiter.admit('key-1', { requestsPerMinute: 5 }, 0)).toMatchObject({ ok: true, resetSeconds: 61 });
    expect(await limiter.admit('key-1', { tokensPerMinute: 5 }, 0)).toMatchObject({ ok: true, resetSeconds: 0 });
    elapse(30_000);
    await limiter.addTokens('key-1', 3);
    elapse(10_500);
    expect(await limiter.admit('key-1', { tokensPerMinute: 5 }, 0)).toMatchObject({ ok: true, resetSeconds: 51, remainingTokens: 2 });
    expect(await limiter.admit('key-1', { requestsPerMinute: 5, tokensPerMinute: 5 }, 0)).toMatchObject({
      ok: true,
      resetSeconds: 61,
      remainingRequests: 1,
    });
  });

  it('keeps counting when the clock goes back', async () => {
    const { limiter, elapse } = limiterAt(START + 5_000);
    await admitMany(limiter, 2, 'key-1', 2);
    elapse(-5_000);
    expect(await limiter.admit('key-1', { requestsPerMinute: 2 }, 0)).toMatchObject({ ok: false, retryAfterSeconds: 66 });
  });

  it('drops the windows of subjects idle for longer than the window', async () => {
    const { limiter, elapse } = limiterAt(START);
    for (let i = 0; i < 1_000; i += 1) await limiter.admit(`key-${i}`, { requestsPerMinute: 5 }, 0);
    await limiter.addTokens('key-tokens', 10);
    expect(limiter.subjectCount()).toBe(1_001);
    elapse(30_000);
    await limiter.admit('key-0', { requestsPerMinute: 5 }, 0);
    elapse(31_000);
    await limiter.admit('key-new', { requestsPerMinute: 5 }, 0);
    expect(limiter.subjectCount()).toBe(2);
  });
});

for (const { name, redis } of redisConnections) describe(`${name} rate limiter keys`, () => {
  it('are shared by every limiter on the prefix and expire once their window has passed', async () => {
    const prefix = nextRedisPrefix();
    const first = createRedisRateLimiter({ redis, prefix, windowMs: 1_200 });
    const second = createRedisRateLimiter({ redis, prefix, windowMs: 1_200 });
    await first.admit('key-1', { requestsPerMinute: 2 }, 0);
    await second.addTokens('key-1', 10);
    expect(await second.admit('key-1', { requestsPerMinute: 2, tokensPerMinute: 10 }, 0)).toMatchObject({
      ok: true,
      remainingRequests: 0,
      remainingTokens: 0,
    });
    expect(await first.admit('key-1', { requestsPerMinute: 2 }, 0)).toMatchObject({ ok: false, limit: 'requests' });

    const ttl = await redis.pttl(`${prefix}:key-1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_220);
    await sleep(ttl + 50);
    expect(await redis.exists(`${prefix}:key-1`)).toBe(0);
  });
});
