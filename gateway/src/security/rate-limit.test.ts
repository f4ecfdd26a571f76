import { TooManyRequestsError } from '@spendgate/core';
import type { SqlStore } from '@spendgate/store';
import { openTestSqlStore, sqlBackends } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter, RATE_LIMITS } from './rate-limit.ts';

for (const backend of sqlBackends) {
  describe(`rate limits on ${backend}`, () => {
    let store: SqlStore;
    let now = new Date('2026-11-22T10:00:30Z');
    beforeAll(async () => {
      store = await openTestSqlStore(backend);
    });
    afterAll(() => store?.close());

    it('limits one address across accounts, answers how long to wait, and opens a new window', async () => {
      const limiter = createRateLimiter({ db: store.db, now: () => now });
      const ipLimit = RATE_LIMITS.login.find((window) => window.per === 'ip')!.limit;
      for (let i = 0; i < ipLimit; i++) await limiter.hit('login', { account: `user${i}@example.com`, ip: '203.0.113.9' });
      const refused = await limiter.hit('login', { account: 'fresh@example.com', ip: '203.0.113.9' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(TooManyRequestsError);
      // Windows are 15 minutes from 10:00:00, so 14.5 minutes remain.
      expect((refused as TooManyRequestsError).retryAfterSeconds).toBe(870);
      await expect(limiter.hit('login', { account: 'fresh@example.com', ip: '198.51.100.1' })).resolves.toBeUndefined();
      now = new Date('2026-11-22T10:15:00Z');
      await expect(limiter.hit('login', { account: 'fresh@example.com', ip: '203.0.113.9' })).resolves.toBeUndefined();
    });

    it('allows one code a minute per account', async () => {
      const limiter = createRateLimiter({ db: store.db, now: () => now });
      await limiter.hit('otp-send', { account: 'Ada@example.com', ip: '192.0.2.1' });
      await expect(limiter.hit('otp-send', { account: 'ada@example.com', ip: '192.0.2.2' })).rejects.toBeInstanceOf(TooManyRequestsError);
      now = new Date(now.getTime() + 60_000);
      await expect(limiter.hit('otp-send', { account: 'ada@example.com', ip: '192.0.2.2' })).resolves.toBeUndefined();
    });
  });
}
