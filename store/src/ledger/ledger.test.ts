// One contract suite for every SpendLedger: the in-process ledger always, the Redis
// ledger with and without budget leases on each Redis target set (TEST_REDIS_URL,
// TEST_REDIS_CLUSTER_URL). The in-process
// ledger runs on a fake clock; the Redis ledger uses Redis server time, so its `elapse`
// really waits. Then what only leases do: admit without a script per request, flush
// spend, share a budget between two gateways, outlive a dead gateway only by their short
// hold, which a live gateway renews.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectRedis, type RedisConnection } from '../redis-connection.ts';
import { luaScript, runScript, SCRIPT_COMMAND_PREFIX } from '../redis-script.ts';
import { connectTestRedis, deleteKeysWithPrefix, redisTargets, uniquePrefix } from '../testing/redis.ts';
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

const redisConnections = redisTargets.map((target) => ({ ...target, redis: connectTestRedis(target.url) }));
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
for (const { name, redis } of redisConnections) {
  IMPLEMENTATIONS.push(
    {
      name: `${name} ledger without leases`,
      create() {
        redisLedgerCount += 1;
        return {
          ledger: createRedisLedger({ redis, prefix: `${redisPrefix}:${redisLedgerCount}`, leases: false }),
          elapse: (ms) => sleep(ms),
        };
      },
    },
    {
      name: `${name} ledger with leases`,
      create() {
        redisLedgerCount += 1;
        return {
          ledger: createRedisLedger({ redis, prefix: `${redisPrefix}:${redisLedgerCount}` }),
          elapse: (ms) => sleep(ms),
        };
      },
    },
  );
}

for (const { name, url } of redisTargets) {
  for (const leases of [false, undefined] as const) {
    describe(`${name} ledger ${leases === false ? 'without' : 'with'} leases when Redis is unreachable`, () => {
      // A connection of its own, as the gateway opens it: no offline queue, so commands
      // fail at once while it is down.
      const connection = connectRedis(url, { enableOfflineQueue: false, commandTimeout: 250, lazyConnect: true });
      const prefix = `${redisPrefix}:outage:${leases === false ? 'plain' : 'leased'}`;
      afterAll(() => connection.quit().catch(() => undefined));

      it('refuses to reserve at once, even with a lease that has room, keeps settlements and unreserved spend and applies them when Redis is back', async () => {
        await connection.connect();
        const ledger = createRedisLedger({ redis: connection, prefix, retryMs: 50, leases });
        const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
        const roomy = [{ scope: GROUP, limitMicros: 1_000_000n }];
        await ledger.reserve({ reservationId: 'before', scopes, amountMicros: 400n });
        await ledger.reserve({ reservationId: 'roomy-before', scopes: roomy, amountMicros: 10n });
        const seed = async () => 1_000n;
        expect(await ledger.read(KEY, seed)).toEqual({ spentMicros: 1_000n, reservedMicros: 0n });

        const closed = once(connection, 'end');
        connection.disconnect();
        const startedAt = performance.now();
        await expect(ledger.reserve({ reservationId: 'during', scopes, amountMicros: 1n })).rejects.toThrow(LedgerUnavailableError);
        await expect(ledger.reserve({ reservationId: 'roomy-during', scopes: roomy, amountMicros: 10n })).rejects.toThrow(LedgerUnavailableError);
        await expect(ledger.read(TEAM)).rejects.toThrow(LedgerUnavailableError);
        await ledger.settle('before', 300n);
        await ledger.settle('roomy-before', 7n);
        // Requests admitted unreserved meanwhile: their spend is kept too, once per id.
        const unreserved = [
          { scope: KEY, limitMicros: null, seed },
          { scope: TEAM, limitMicros: null },
        ];
        await ledger.spend('unreserved-1', unreserved, 50n);
        await ledger.spend('unreserved-2', unreserved, 20n);
        await ledger.spend('unreserved-1', unreserved, 50n);
        expect(performance.now() - startedAt).toBeLessThan(500);

        await closed;
        await connection.connect();
        const elsewhere = createRedisLedger({ redis: connection, prefix, leases: false });
        await expect.poll(() => elsewhere.read(TEAM), { timeout: 5_000 }).toEqual({ spentMicros: 370n, reservedMicros: 0n });
        await expect.poll(() => elsewhere.read(GROUP), { timeout: 5_000 }).toEqual({ spentMicros: 7n, reservedMicros: 0n });
        await expect.poll(() => elsewhere.read(KEY, seed), { timeout: 5_000 }).toEqual({ spentMicros: 1_070n, reservedMicros: 0n });
        // Applied once: a spend of an id already counted changes nothing.
        await ledger.spend('unreserved-1', unreserved, 50n);
        expect(await elsewhere.read(TEAM)).toEqual({ spentMicros: 370n, reservedMicros: 0n });
        await ledger.close();
      });
    });
  }
}

/** `redis` as a ledger sees it, counting the scripts sent through it. */
function countingScripts(redis: RedisConnection) {
  let scripts = 0;
  const counting = new Proxy(redis, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !property.startsWith(SCRIPT_COMMAND_PREFIX)) return value.bind(target);
      return (...args: unknown[]) => {
        scripts += 1;
        return value.apply(target, args);
      };
    },
  });
  return { redis: counting, scripts: () => scripts };
}

for (const { name, url, redis } of redisConnections) {
  describe(`${name} ledger leases`, () => {
    const connections: RedisConnection[] = [];
    const connect = () => {
      const connection = connectTestRedis(url);
      connections.push(connection);
      return connection;
    };
    afterAll(() => Promise.all(connections.map((connection) => connection.quit().catch(() => undefined))));
    let prefixCount = 0;
    const newPrefix = () => {
      prefixCount += 1;
      return `${redisPrefix}:leases:${prefixCount}`;
    };

    it('runs a script Redis does not know yet in the order it was sent, as leases rely on', async () => {
      // A new server, a cluster node never sent the script, a replica just promoted: had the
      // script gone by SHA first, the command after it would have run before it.
      const key = `${newPrefix()}:order`;
      const unknownScript = luaScript(`-- ${randomUUID()}`, "redis.call('RPUSH', KEYS[1], ARGV[1])");
      await Promise.all([runScript(redis, unknownScript, [key], ['script']), redis.rpush(key, 'sent after')]);
      expect(await redis.lrange(key, 0, -1)).toEqual(['script', 'sent after']);
    });

    it('admits the requests of a scope list from a few leases, not one script per request', async () => {
      const prefix = newPrefix();
      const { redis: counting, scripts } = countingScripts(redis);
      const ledger = createRedisLedger({ redis: counting, prefix });
      const scopes = limits(null, 10_000_000n, null);
      for (let i = 0; i < 200; i++) {
        expect(await ledger.reserve({ reservationId: `r${i}`, scopes, amountMicros: 100n }), `request ${i}`).toMatchObject({ ok: true });
        await ledger.settle(`r${i}`, 60n);
      }
      // Two requests' worth of scripts (RESERVE + FINISH each) would be 400.
      expect(scripts()).toBeGreaterThan(0);
      expect(scripts()).toBeLessThanOrEqual(12);
      const spent = { spentMicros: 12_000n, reservedMicros: 0n };
      expect(await balances(ledger)).toEqual({ key: spent, group: spent, team: spent });
      await ledger.close();
      expect(await createRedisLedger({ redis, prefix, leases: false }).read(GROUP)).toEqual(spent);
    });

    it('shows settled spend to other gateways within the flush interval, and to its own reads at once', async () => {
      const prefix = newPrefix();
      const ledger = createRedisLedger({ redis, prefix, leases: { flushMs: 250 } });
      const elsewhere = createRedisLedger({ redis, prefix, leases: false });
      const scopes = [{ scope: TEAM, limitMicros: 1_000_000n }];
      await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 1_000n });
      await ledger.settle('r1', 700n);
      const settledAt = performance.now();
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 700n, reservedMicros: 0n });
      // The lease (64 × 1 000) still holds its spare, and its spend waits for the next flush.
      expect(await elsewhere.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 64_000n });

      await expect.poll(async () => (await elsewhere.read(TEAM)).spentMicros, { interval: 10, timeout: 2_000 }).toBe(700n);
      expect(performance.now() - settledAt).toBeLessThan(500);
      // Retired after its second, the lease gives all its hold back.
      await expect.poll(() => elsewhere.read(TEAM), { interval: 50, timeout: 3_000 }).toEqual({ spentMicros: 700n, reservedMicros: 0n });
      await ledger.close();
    });

    it('keeps two gateways on one budget within its cap, and counts exactly what they spent', async () => {
      // As the end-to-end test: 1 665 reserved, 915 spent per request, a 50 000 cap.
      const gateways = [connect(), connect()];
      for (let round = 0; round < 10; round++) {
        const prefix = newPrefix();
        const ledgers = gateways.map((connection) => createRedisLedger({ redis: connection, prefix }));
        const scopes = [{ scope: KEY, limitMicros: 50_000n }, { scope: TEAM, limitMicros: null }];
        const results = await Promise.all(
          Array.from({ length: 200 }, async (_, i) => {
            const ledger = ledgers[i % 2]!;
            const result = await ledger.reserve({ reservationId: `c${i}`, scopes, amountMicros: 1_665n });
            if (result.ok) {
              await sleep(Math.random() * 5);
              await ledger.settle(`c${i}`, 915n);
            }
            return result.ok;
          }),
        );
        const admitted = results.filter(Boolean).length;
        expect(admitted * 915, `round ${round}: spend admitted`).toBeLessThanOrEqual(50_000 + 1_665);
        expect(admitted, `round ${round}: admitted`).toBeGreaterThanOrEqual(30);
        await Promise.all(ledgers.map((ledger) => ledger.close()));
        const counted = { spentMicros: BigInt(admitted * 915), reservedMicros: 0n };
        const elsewhere = createRedisLedger({ redis, prefix, leases: false });
        expect(await elsewhere.read(KEY), `round ${round}`).toEqual(counted);
        expect(await elsewhere.read(TEAM), `round ${round}`).toEqual(counted);
      }
    });

    it('lets the budget a dead gateway leased go once its hold lapses, long before the ttl', async () => {
      const prefix = newPrefix();
      // As the gateway opens it: no offline queue (on a cluster, a disconnected one would keep the dead gateway's last update waiting).
      const doomed = connectRedis(url, { enableOfflineQueue: false });
      await once(doomed, 'ready');
      const dying = createRedisLedger({ redis: doomed, prefix, leases: { holdMs: 300 } });
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      const reservedAt = performance.now();
      // A quarter of the headroom: a 250 lease for a request of 100 with the default ttl (5 minutes), never settled.
      expect(await dying.reserve({ reservationId: 'r1', scopes, amountMicros: 100n })).toMatchObject({ ok: true });
      doomed.disconnect();

      const survivor = createRedisLedger({ redis, prefix });
      expect(await survivor.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 250n });
      expect(await survivor.reserve({ reservationId: 's1', scopes, amountMicros: 800n })).toMatchObject({ ok: false });
      await expect.poll(() => survivor.read(TEAM), { interval: 20, timeout: 3_000 }).toEqual({ spentMicros: 0n, reservedMicros: 0n });
      // Within its hold time and some slack for a busy machine (without the heartbeat's short hold: the 5-minute ttl).
      expect(performance.now() - reservedAt).toBeLessThan(300 + 700);
      expect(await survivor.reserve({ reservationId: 's2', scopes, amountMicros: 800n })).toMatchObject({ ok: true });
      await survivor.close();
      await dying.close();
    });

    it('keeps a live gateway’s hold for a long request past many hold times, and counts its spend when it settles', async () => {
      const prefix = newPrefix();
      // Updates every 50 ms renew a hold of 600 ms whenever less than 350 ms of it is left.
      const ledger = createRedisLedger({ redis, prefix, leases: { holdMs: 600, flushMs: 50 } });
      const elsewhere = createRedisLedger({ redis, prefix, leases: false });
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      // A 250 lease for a stream of 100; retired after half its hold, it keeps only the stream's 100.
      expect(await ledger.reserve({ reservationId: 'stream', scopes, amountMicros: 100n })).toMatchObject({ ok: true });
      await expect.poll(() => elsewhere.read(TEAM), { interval: 20, timeout: 1_000 }).toEqual({ spentMicros: 0n, reservedMicros: 100n });

      const until = performance.now() + 2_400;
      while (performance.now() < until) {
        expect(await elsewhere.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 100n });
        await sleep(25);
      }
      await ledger.settle('stream', 90n);
      await expect.poll(() => elsewhere.read(TEAM), { interval: 20, timeout: 1_000 }).toEqual({ spentMicros: 90n, reservedMicros: 0n });
      await ledger.close();
    });

    it('renews a leased request’s hold only up to its ttl, and still records its spend when it settles after twice the ttl', async () => {
      const prefix = newPrefix();
      const ledger = createRedisLedger({ redis, prefix, leases: { holdMs: 300, flushMs: 50 } });
      const elsewhere = createRedisLedger({ redis, prefix, leases: false });
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      const reservedAt = performance.now();
      expect(await ledger.reserve({ reservationId: 'long', scopes, amountMicros: 100n, ttlMs: 1_000 })).toMatchObject({ ok: true });
      await expect.poll(() => elsewhere.read(TEAM), { interval: 20, timeout: 1_000 }).toEqual({ spentMicros: 0n, reservedMicros: 100n });
      await sleep(reservedAt + 800 - performance.now());
      expect(await elsewhere.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 100n });
      await expect.poll(() => elsewhere.read(TEAM), { interval: 20, timeout: 1_000 }).toEqual({ spentMicros: 0n, reservedMicros: 0n });
      expect(performance.now() - reservedAt).toBeLessThan(1_000 + 400);

      // Its updates kept the lease's record 2 × ttl past the last of them.
      await sleep(reservedAt + 2_300 - performance.now());
      await ledger.settle('long', 90n);
      await expect.poll(() => elsewhere.read(TEAM), { interval: 20, timeout: 1_000 }).toEqual({ spentMicros: 90n, reservedMicros: 0n });
      await ledger.close();
    });

    it('stops a lease at once when its budget gets another limit', async () => {
      const prefix = newPrefix();
      const ledger = createRedisLedger({ redis, prefix });
      // A quarter of the headroom under a 1 000 limit: a lease of 250.
      await ledger.reserve({ reservationId: 'r1', scopes: [{ scope: KEY, limitMicros: 1_000n }], amountMicros: 100n });
      await ledger.settle('r1', 100n);
      const raised = [{ scope: KEY, limitMicros: 1_000_000n }];
      expect(await ledger.reserve({ reservationId: 'r2', scopes: raised, amountMicros: 100n })).toEqual({
        ok: true,
        balances: [{ spentMicros: 100n, reservedMicros: 100n }],
      });
      // The lease under the old limit is finished: its spend is counted, its hold given back.
      expect(await createRedisLedger({ redis, prefix, leases: false }).read(KEY)).toEqual({ spentMicros: 100n, reservedMicros: 6_400n });
      await ledger.close();
    });
  });
}

afterAll(async () => {
  for (const { redis } of redisConnections) {
    await deleteKeysWithPrefix(redis, redisPrefix);
    await redis.quit();
  }
});

// One team's scopes: its hash tag puts them in one Redis Cluster slot, as budgetLedgerScope does.
const KEY = 'key:{t1}:k1:2026-11';
const GROUP = 'group:{t1}:g1:2026-11';
const TEAM = 'team:{t1}:2026-11';

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
    const opened: SpendLedger[] = [];
    const create = () => {
      const subject = implementation.create();
      opened.push(subject.ledger);
      return subject;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
    });

    it('reserves within the limits on every scope', async () => {
      const { ledger } = create();
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
      const { ledger } = create();
      const scopes = limits(1_000n, null, 10_000n);
      await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 200n });
      await ledger.settle('r1', 150n);
      const second = await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 300n });
      const balance = { spentMicros: 150n, reservedMicros: 300n };
      expect(second).toEqual({ ok: true, balances: [balance, balance, balance] });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 300n })).toEqual(second);
    });

    it('admits a reservation that reaches the limit exactly and refuses one micro more', async () => {
      const { ledger } = create();
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
      const { ledger } = create();
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
      const { ledger } = create();
      const scopes = [{ scope: TEAM, limitMicros: null }];
      const huge = 4_000_000_000_000_000n;
      expect(await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: huge })).toMatchObject({ ok: true });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: huge })).toMatchObject({ ok: true });
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 2n * huge });
      await ledger.settle('r1', 123n);
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 123n, reservedMicros: huge });
    });

    it('settles with the actual cost, lower or higher than the reservation', async () => {
      const { ledger } = create();
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
      const { ledger } = create();
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
      const { ledger } = create();
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
      const { ledger } = create();
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 800n });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 800n })).toMatchObject({ ok: false });

      await ledger.release('r1');

      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 0n });
      expect(await ledger.reserve({ reservationId: 'r2', scopes, amountMicros: 800n })).toMatchObject({ ok: true });
    });

    it('holds a reservation once when the same id is reserved twice', async () => {
      const { ledger } = create();
      const scopes = [{ scope: TEAM, limitMicros: 1_000n }];
      await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 600n });
      expect(await ledger.reserve({ reservationId: 'r1', scopes, amountMicros: 600n })).toMatchObject({ ok: true });
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 600n });
    });

    it('stops counting a reservation once its ttl has passed', async () => {
      const { ledger, elapse } = create();
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
      const { ledger, elapse } = create();
      await ledger.reserve({ reservationId: 'short', scopes: limits(null, null, null), amountMicros: 700n, ttlMs: 200 });
      await elapse(300);
      const free = { spentMicros: 0n, reservedMicros: 0n };
      expect(await balances(ledger)).toEqual({ key: free, group: free, team: free });
    });

    it('records a late settle within one more ttl, and forgets the reservation after that', async () => {
      const { ledger, elapse } = create();
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
      const { ledger } = create();
      const scopes = limits(null, 1_000n, null);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => ledger.reserve({ reservationId: `c${i}`, scopes, amountMicros: 30n })),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(33);
      expect(await ledger.read(GROUP)).toEqual({ spentMicros: 0n, reservedMicros: 990n });
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 990n });
    });

    it('starts a scope from its seed, once, before admitting anything on it', async () => {
      const { ledger } = create();
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
      const { ledger } = create();
      expect(await ledger.read(GROUP, async () => 42n)).toEqual({ spentMicros: 42n, reservedMicros: 0n });
      expect(await ledger.read(GROUP, async () => 1_000n)).toEqual({ spentMicros: 42n, reservedMicros: 0n });
    });

    it('reads an unknown scope as zero', async () => {
      const { ledger } = create();
      expect(await ledger.read('team:nobody:2026-11')).toEqual({ spentMicros: 0n, reservedMicros: 0n });
    });

    it('adds unreserved spend to each scope, once per id, without touching reservations', async () => {
      const { ledger } = create();
      const seed = async () => 500n;
      await ledger.reserve({ reservationId: 'r1', scopes: [{ scope: TEAM, limitMicros: 10_000n, seed }], amountMicros: 100n });
      const scopes = [
        { scope: KEY, limitMicros: 1_000n },
        { scope: TEAM, limitMicros: null, seed },
      ];
      await ledger.spend('u1', scopes, 300n);
      await ledger.spend('u1', scopes, 300n);
      expect(await ledger.read(KEY)).toEqual({ spentMicros: 300n, reservedMicros: 0n });
      expect(await ledger.read(TEAM, seed)).toEqual({ spentMicros: 800n, reservedMicros: 100n });

      // Spend goes past a limit (nothing is refused), and is no reservation to settle.
      await ledger.spend('u2', scopes, 900n);
      await ledger.settle('u2', 5n);
      await ledger.release('u1');
      expect(await ledger.read(KEY)).toEqual({ spentMicros: 1_200n, reservedMicros: 0n });
      expect(await ledger.read(TEAM, seed)).toEqual({ spentMicros: 1_700n, reservedMicros: 100n });
      expect(await ledger.reserve({ reservationId: 'r2', scopes: [{ scope: KEY, limitMicros: 1_000n }], amountMicros: 1n })).toMatchObject({
        ok: false,
        spentMicros: 1_200n,
      });
      await ledger.settle('r1', 40n);
      expect(await ledger.read(TEAM, seed)).toEqual({ spentMicros: 1_740n, reservedMicros: 0n });
    });

    it('leaves the unreserved spend of a scope not seeded yet to its seed', async () => {
      const { ledger } = create();
      let seeds = 0;
      const seed = async () => {
        seeds += 1;
        return 700n;
      };
      const scopes = [{ scope: GROUP, limitMicros: null, seed }];
      await ledger.spend('u1', scopes, 300n);
      expect(seeds).toBe(0);
      // The seed (the database's spend) already counts this request.
      expect(await ledger.read(GROUP, seed)).toEqual({ spentMicros: 700n, reservedMicros: 0n });
      await ledger.spend('u1', scopes, 300n);
      await ledger.spend('u2', scopes, 300n);
      expect(await ledger.read(GROUP, seed)).toEqual({ spentMicros: 1_000n, reservedMicros: 0n });
      expect(seeds).toBe(1);
    });

    it('refuses amounts from 2^53 micros up, negative amounts and a scope named twice', async () => {
      const { ledger } = create();
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
      await expect(ledger.spend('u1', scopes, 2n ** 53n)).rejects.toThrow(RangeError);
      await expect(ledger.spend('u2', scopes, -1n)).rejects.toThrow(RangeError);
      await expect(ledger.spend('u3', [...scopes, ...scopes], 1n)).rejects.toThrow(RangeError);
      expect(await ledger.read(TEAM)).toEqual({ spentMicros: 0n, reservedMicros: 1n });
    });
  });
}
