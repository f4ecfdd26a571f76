// One contract suite for every SpendLedger: the in-process ledger always, the Redis
// ledger when TEST_REDIS_URL is set. The in-process ledger runs on a fake clock; the
// Redis ledger uses Redis server time, so its `elapse` really waits.
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { connectTestRedis, deleteKeysWithPrefix, redisUrl, uniquePrefix } from '../testing/redis.ts';
import { createInProcessLedger } from './in-process-ledger.ts';
import { createRedisLedger } from './redis-ledger.ts';
import { LedgerUnavailableError, type ScopeLimit, type SpendLedger } from './types.ts';

interface LedgerUnderTest {
  ledger: SpendLedger;
  /** Lets `ms` milliseconds pass for the ledger. */
  elapse(ms: number): Promise<void>;
}

interface LedgerImplementation {
  name: string;
  create(): LedgerUnderTest;
}

const redis = redisUrl === undefined ? undefined : connectTestRedis();
const redisPrefix = uniquePrefix('ledger');
let redisLedgerCount = 0;

const IMPLEMENTATIONS: LedgerImplementation[] = [
  {
    name: 'in-process ledger',
    create() {
      let now = Date.UTC(2026, 10, 1);
      return {
        ledger: createInProcessLedger(() => now),
        elapse: async (ms) => {
          now += ms;
        },
      };
    },
  },
];
if (redis !== undefined) {
  IMPLEMENTATIONS.push({
    name: 'redis ledger',
    create() {
      redisLedgerCount += 1;
      return {
        ledger: createRedisLedger({ redis, prefix: `${redisPrefix}:${redisLedgerCount}` }),
        elapse: (ms) => sleep(ms),
      };
    },
  });
}

const outageRedisUrl = redisUrl;
if (outageRedisUrl !== undefined) {
  describe('redis ledger when Redis is unreachable', () => {
    // A connection of its own, as the gateway opens it: no offline queue, so commands
    // fail at once while it is down.
    const connection = new Redis(outageRedisUrl, { enableOfflineQueue: false, commandTimeout: 250, lazyConnect: true });
    const prefix = `${redisPrefix}:outage`;
    afterAll(() => connection.quit().catch(() => undefined));

    it('refuses to reserve at once, keeps settlements and applies them when Redis is back', async () => {
      await connection.connect();
      const ledger = createRedisLedger({ redis: connection, prefix, retryMs: 50 });
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      await ledger.reserve({ reservationId: 'before', scopes, amountMicros: 400n });

      const closed = once(connection, 'end');
      connection.disconnect();
      const startedAt = performance.now();
      await expect(ledger.reserve({ reservationId: 'during', scopes, amountMicros: 1n })).rejects.toThrow(LedgerUnavailableError);
      await expect(ledger.read(TEAM)).rejects.toThrow(LedgerUnavailableError);
      await ledger.settle('before', 300n);
      expect(performance.now() - startedAt).toBeLessThan(500);

      await closed;
      await connection.connect();
      await expect.poll(() => ledger.read(TEAM), { timeout: 5_000 }).toEqual({ spentMicros: 300n, reservedMicros: 0n });
      await ledger.close();
    });
  });
}

afterAll(async () => {
  if (redis === undefined) return;
  await deleteKeysWithPrefix(redis, redisPrefix);
  await redis.quit();
});

const KEY = 'key:k1:2026-11';
const GROUP = 'group:g1:2026-11';
const TEAM = 'team:t1:2026-11';

function limits(key: bigint | null, group: bigint | null, team: bigint | null): ScopeLimit[] {
  return [
    { scope: KEY, limitMicros: key },
    { scope: GROUP, limitMicros: group },
    { scope: TEAM, limitMicros: team },
  ];
}

async function balances(ledger: SpendLedger) {
  return {
    key: await ledger.read(KEY),
    group: await ledger.read(GROUP),
    team: await ledger.read(TEAM),
  };
}

for (const implementation of IMPLEMENTATIONS) {
  describe(implementation.name, () => {
    it('reserves within the limits on every scope', async () => {
      const { ledger } = implementation.create();
      const result = await ledger.reserve({
        reservationId: 'r1',
        scopes: limits(1_000n, 5_000n, 10_000n),
        amountMicros: 300n,
      });
      const held = { spentMicros: 0n, reservedMicros: 300n };
      expect(result).toEqual({ ok: true, balances: [held, held, held] });
      expect(await balances(ledger)).toEqual({ key: held, group: held, team: held });
    });

    it('answers each scope’s balance with the reservation counted, also when asked again', async () => {
      const { ledger } = implementation.create();
      const scopes = limits(1_000n, null, 10_000n);
      await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 200n });
      await ledger.settle('r1', 150n);
      const second = await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 300n });
      const balance = { spentMicros: 150n, reservedMicros: 300n };
      expect(second).toEqual({ ok: true, balances: [balance, balance, balance] });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 300n })).toEqual(second);
    });

    it('admits a reservation that reaches the limit exactly and refuses one micro more', async () => {
      const { ledger } = implementation.create();
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      expect(await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 600n })).toMatchObject({ ok: true });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 400n })).toMatchObject({ ok: true });
      expect(await ledger.reserve({ reservationId: 'r3', scopes, amountMicros: 1n })).toEqual({
        ok: false,
        scope: TEAM,
        limitMicros: 1_000n,
        spentMicros: 0n,
        reservedMicros: 1_000n,
      });
    });

    it('refuses when one scope would overflow and then changes no scope', async () => {
      const { ledger } = implementation.create();
      await ledger.reserve({ reservationId: 'earlier', scopes: limits(null, null, null), amountMicros: 700n });
      await ledger.settle('earlier', 700n);
      await ledger.reserve({ reservationId: 'pending', scopes: limits(null, null, null), amountMicros: 100n });
      const before = await balances(ledger);

      const result = await ledger.reserve({
        reservationId: 'r1',
        scopes: limits(5_000n, 1_000n, 10_000n),
        amountMicros: 201n,
      });

      expect(result).toEqual({
        ok: false,
        scope: GROUP,
        limitMicros: 1_000n,
        spentMicros: 700n,
        reservedMicros: 100n,
      });
      expect(await balances(ledger)).toEqual(before);
      await ledger.settle('r1', 201n);
      expect(await balances(ledger)).toEqual(before);
    });

    it('always admits scopes without a limit and still counts them', async () => {
      const { ledger } = implementation.create();
      const scopes = [{ scope: TEAM, limitMicros: null }];
      const huge = 4_000_000_000_000_000n;
      expect(await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: huge })).toMatchObject({ ok: true });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: huge })).toMatchObject({ ok: true });
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 2n * huge });
      await ledger.settle('r1', 123n);
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 123n, reservedMicros: huge });
    });

    it('settles with the actual cost, lower or higher than the reservation', async () => {
      const { ledger } = implementation.create();
      const scopes = limits(null, 10_000n, 10_000n);
      await ledger.reserve({ reservationId: 'lower', scopes, amountMicros: 1_000n });
      await ledger.reserve({ reservationId: 'higher', scopes, amountMicros: 500n });

      await ledger.settle('lower', 250n);
      const afterLower = { spentMicros: 250n, reservedMicros: 500n };
      expect(await balances(ledger)).toEqual({ key: afterLower, group: afterLower, team: afterLower });

      await ledger.settle('higher', 800n);
      const afterHigher = { spentMicros: 1_050n, reservedMicros: 0n };
      expect(await balances(ledger)).toEqual({ key: afterHigher, group: afterHigher, team: afterHigher });
    });

    it('counts settled spend against the limit of later reservations', async () => {
      const { ledger } = implementation.create();
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 100n });
      await ledger.settle('r1', 900n);
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 101n })).toMatchObject({
        ok: false,
        spentMicros: 900n,
        reservedMicros: 0n,
      });
      expect(await ledger.reserve({ reservationId: 'r3', scopes, amountMicros: 100n })).toMatchObject({ ok: true });
    });

    it('treats a second settle or release as a no-op', async () => {
      const { ledger } = implementation.create();
      const scopes = limits(null, null, 10_000n);
      await ledger.reserve({ reservationId: 'settled', scopes, amountMicros: 400n });
      await ledger.reserve({ reservationId: 'released', scopes, amountMicros: 300n });
      await ledger.reserve({ reservationId: 'open', scopes, amountMicros: 200n });

      await ledger.settle('settled', 350n);
      await ledger.release('released');
      const after = await balances(ledger);
      expect(after.team).toEqual({ spentMicros: 350n, reservedMicros: 200n });

      await ledger.settle('settled', 350n);
      await ledger.release('settled');
      await ledger.release('released');
      await ledger.settle('released', 300n);
      await ledger.settle('never-reserved', 999n);
      await ledger.release('never-reserved');
      expect(await balances(ledger)).toEqual(after);
    });

    it('frees the capacity of a released reservation without spending', async () => {
      const { ledger } = implementation.create();
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 800n });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 800n })).toMatchObject({ ok: false });

      await ledger.release('r1');

      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 0n });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 800n })).toMatchObject({ ok: true });
    });

    it('holds a reservation once when the same id is reserved twice', async () => {
      const { ledger } = implementation.create();
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 600n });
      expect(await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 600n })).toMatchObject({ ok: true });
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 600n });
    });

    it('stops counting a reservation once its ttl has passed', async () => {
      const { ledger, elapse } = implementation.create();
      const scopes = limits(null, null, 1_000n);
      await ledger.reserve({ reservationId: 'short', scopes, amountMicros: 700n, ttlMs: 200 });
      await ledger.reserve({ reservationId: 'long', scopes, amountMicros: 100n, ttlMs: 60_000 });
      expect(await ledger.reserve({ reservationId: 'refused', scopes, amountMicros: 700n })).toMatchObject({
        ok: false,
      });

      await elapse(300);

      expect(await ledger.reserve({ reservationId: 'admitted', scopes, amountMicros: 700n })).toMatchObject({ ok: true });
      const held = { spentMicros: 0n, reservedMicros: 800n };
      expect(await balances(ledger)).toEqual({ key: held, group: held, team: held });
    });

    it('shows an expired reservation as no longer reserved when read', async () => {
      const { ledger, elapse } = implementation.create();
      await ledger.reserve({ reservationId: 'short', scopes: limits(null, null, null), amountMicros: 700n, ttlMs: 200 });
      await elapse(300);
      const free = { spentMicros: 0n, reservedMicros: 0n };
      expect(await balances(ledger)).toEqual({ key: free, group: free, team: free });
    });

    it('records a late settle within one more ttl, and forgets the reservation after that', async () => {
      const { ledger, elapse } = implementation.create();
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      await ledger.reserve({ reservationId: 'late', scopes, amountMicros: 500n, ttlMs: 400 });
      await ledger.reserve({ reservationId: 'forgotten', scopes, amountMicros: 300n, ttlMs: 100 });

      await elapse(550);
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 0n });
      await ledger.settle('late', 450n);
      await ledger.settle('forgotten', 250n);

      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 450n, reservedMicros: 0n });
    });

    it('admits exactly floor(limit / amount) of 50 concurrent reservations on one scope', async () => {
      const { ledger } = implementation.create();
      const scopes = limits(null, 1_000n, null);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => ledger.reserve({ reservationId: `c${i}`, scopes, amountMicros: 30n })),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(33);
      expect(await ledger.read(GROUP)).toEqual({ spentMicros: 0n, reservedMicros: 990n });
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 990n });
    });

    it('starts a scope from its seed, once, before admitting anything on it', async () => {
      const { ledger } = implementation.create();
      let seedCalls = 0;
      const seed = async () => {
        seedCalls += 1;
        return 900n;
      };
      const scopes = [{ scope: TEAM, limitMicros: 1_000n, seed }];
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => ledger.reserve({ reservationId: `s${i}`, scopes, amountMicros: 30n })),
      );
      // 900 already spent: three more reservations of 30 fit under 1 000, the rest are refused.
      expect(results.filter((result) => result.ok)).toHaveLength(3);
      expect(await ledger.read(TEAM, seed)).toEqual({ spentMicros: 900n, reservedMicros: 90n });
      await ledger.settle('s0', 10n);
      expect(await ledger.read(TEAM, seed)).toEqual({ spentMicros: 910n, reservedMicros: 60n });
      expect(seedCalls).toBeGreaterThanOrEqual(1);
      const callsSoFar = seedCalls;
      await ledger.reserve({ reservationId: 'later', scopes, amountMicros: 1n });
      expect(seedCalls).toBe(callsSoFar);
    });

    it('seeds a scope that is only read', async () => {
      const { ledger } = implementation.create();
      expect(await ledger.read(GROUP, async () => 42n)).toEqual({ spentMicros: 42n, reservedMicros: 0n });
      expect(await ledger.read(GROUP, async () => 1_000n)).toEqual({ spentMicros: 42n, reservedMicros: 0n });
    });

    it('reads an unknown scope as zero', async () => {
      const { ledger } = implementation.create();
      expect(await ledger.read('team:nobody:2026-11')).toEqual({ spentMicros: 0n, reservedMicros: 0n });
    });

    it('refuses amounts from 2^53 micros up, negative amounts and a scope named twice', async () => {
      const { ledger } = implementation.create();
      const scopes = [{ scope: TEAM, limitMicros: null }];
      await expect(ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 2n ** 53n })).rejects.toThrow(
        RangeError,
      );
      await expect(ledger.reserve({ reservationId: 'r2', scopes, amountMicros: -1n })).rejects.toThrow(RangeError);
      await expect(
        ledger.reserve({ reservationId: 'r3', scopes: [...scopes, ...scopes], amountMicros: 1n }),
      ).rejects.toThrow(RangeError);
      await ledger.reserve({ reservationId: 'r4', scopes, amountMicros: 1n });
      await expect(ledger.settle('r4', 2n ** 53n)).rejects.toThrow(RangeError);
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 1n });
    });
  });
}
