// One contract suite for every KeyCache: the in-process cache always, the Redis cache
// on each Redis target set (TEST_REDIS_URL, TEST_REDIS_CLUSTER_URL; plus its
// cross-gateway invalidation). Both run on a fake
// clock, since expiry is local to each process.
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { RedisConnection } from '../redis-connection.ts';
import { connectTestRedis, redisTargets, uniquePrefix } from '../testing/redis.ts';
import { createInProcessKeyCache } from './in-process-key-cache.ts';
import { createRedisKeyCache } from './redis-key-cache.ts';
import type { KeyCache, KeyCacheOptions } from './types.ts';

interface Principal {
  teamId: string;
}

interface CacheUnderTest {
  cache: KeyCache<Principal>;
  elapse(ms: number): void;
}

interface KeyCacheImplementation {
  name: string;
  create(options: KeyCacheOptions): Promise<CacheUnderTest>;
}

function fakeClock() {
  let now = Date.UTC(2026, 10, 1);
  return {
    clock: () => now,
    elapse: (ms: number) => {
      now += ms;
    },
  };
}

const redisConnections: RedisConnection[] = [];
function openRedis(url: string): RedisConnection {
  const connection = connectTestRedis(url);
  redisConnections.push(connection);
  return connection;
}
const channelPrefix = uniquePrefix('keycache');
let channelCount = 0;
const nextChannel = () => `${channelPrefix}:${++channelCount}`;

afterAll(async () => {
  await Promise.all(redisConnections.map((connection) => connection.quit()));
});

const IMPLEMENTATIONS: KeyCacheImplementation[] = [
  {
    name: 'in-process key cache',
    async create(options) {
      const { clock, elapse } = fakeClock();
      return { cache: createInProcessKeyCache<Principal>(options, clock), elapse };
    },
  },
];
for (const { name, url } of redisTargets) {
  IMPLEMENTATIONS.push({
    name: `${name} key cache`,
    async create(options) {
      const { clock, elapse } = fakeClock();
      const cache = await createRedisKeyCache<Principal>(
        { redis: openRedis(url), subscriber: openRedis(url), channel: nextChannel(), ...options },
        clock,
      );
      return { cache, elapse };
    },
  });
}

const alice = { teamId: 'team-alice' };
const bob = { teamId: 'team-bob' };
const carol = { teamId: 'team-carol' };

for (const implementation of IMPLEMENTATIONS) {
  describe(implementation.name, () => {
    it('returns what was set, the latest value, and nothing for an unknown key', async () => {
      const { cache } = await implementation.create({ maxEntries: 10, ttlMs: 60_000 });
      cache.set('hash-a', alice);
      expect(cache.get('hash-a')).toEqual(alice);
      cache.set('hash-a', bob);
      expect(cache.get('hash-a')).toEqual(bob);
      expect(cache.get('hash-unknown')).toBeUndefined();
      await cache.close();
    });

    it('forgets an entry once its ttl has passed, counting from the last set', async () => {
      const { cache, elapse } = await implementation.create({ maxEntries: 10, ttlMs: 1_000 });
      cache.set('hash-a', alice);
      cache.set('hash-b', bob);
      elapse(600);
      cache.set('hash-b', bob);
      elapse(399);
      expect(cache.get('hash-a')).toEqual(alice);
      elapse(1);
      expect(cache.get('hash-a')).toBeUndefined();
      expect(cache.get('hash-b')).toEqual(bob);
      elapse(600);
      expect(cache.get('hash-b')).toBeUndefined();
      await cache.close();
    });

    it('evicts the least recently used entry beyond maxEntries', async () => {
      const { cache } = await implementation.create({ maxEntries: 3, ttlMs: 60_000 });
      cache.set('hash-a', alice);
      cache.set('hash-b', bob);
      cache.set('hash-c', carol);
      expect(cache.get('hash-a')).toEqual(alice);

      cache.set('hash-d', alice);

      expect(cache.get('hash-b')).toBeUndefined();
      expect(cache.get('hash-a')).toEqual(alice);
      expect(cache.get('hash-c')).toEqual(carol);
      expect(cache.get('hash-d')).toEqual(alice);
      await cache.close();
    });

    it('invalidates one entry and keeps the others', async () => {
      const { cache } = await implementation.create({ maxEntries: 10, ttlMs: 60_000 });
      cache.set('hash-a', alice);
      cache.set('hash-b', bob);

      await cache.invalidate('hash-a');
      await cache.invalidate('hash-unknown');

      expect(cache.get('hash-a')).toBeUndefined();
      expect(cache.get('hash-b')).toEqual(bob);
      await cache.close();
    });

    it('refuses a maxEntries below one', async () => {
      await expect(implementation.create({ maxEntries: 0, ttlMs: 60_000 })).rejects.toThrow(RangeError);
    });
  });
}

for (const { name, url } of redisTargets) describe(`${name} key cache across gateways`, () => {
  const options = { maxEntries: 100, ttlMs: 60_000 };
  const openGateway = (channel: string) =>
    createRedisKeyCache<Principal>({ redis: openRedis(url), subscriber: openRedis(url), channel, ...options });

  it('removes an invalidated entry from every gateway on the channel, and only there', async () => {
    const channel = nextChannel();
    const gatewayA = await openGateway(channel);
    const gatewayB = await openGateway(channel);
    const otherChannel = await openGateway(nextChannel());
    for (const cache of [gatewayA, gatewayB, otherChannel]) {
      cache.set('hash-a', alice);
      cache.set('hash-b', bob);
    }

    await gatewayA.invalidate('hash-a');

    expect(gatewayA.get('hash-a')).toBeUndefined();
    await vi.waitFor(() => expect(gatewayB.get('hash-a')).toBeUndefined(), { timeout: 2_000, interval: 5 });
    expect(gatewayB.get('hash-b')).toEqual(bob);
    expect(otherChannel.get('hash-a')).toEqual(alice);
    await Promise.all([gatewayA.close(), gatewayB.close(), otherChannel.close()]);
  });

  it('stops receiving invalidations once closed', async () => {
    const channel = nextChannel();
    const gatewayA = await openGateway(channel);
    const gatewayB = await openGateway(channel);
    const witness = await openGateway(channel);
    await gatewayB.close();
    gatewayB.set('hash-a', alice);
    witness.set('hash-a', alice);

    await gatewayA.invalidate('hash-a');

    await vi.waitFor(() => expect(witness.get('hash-a')).toBeUndefined(), { timeout: 2_000, interval: 5 });
    expect(gatewayB.get('hash-a')).toEqual(alice);
    await Promise.all([gatewayA.close(), witness.close()]);
  });

  it('forgets every entry when its subscriber reconnects, since invalidations may have been missed', async () => {
    const subscriber = openRedis(url);
    const cache = await createRedisKeyCache<Principal>({
      redis: openRedis(url),
      subscriber,
      channel: nextChannel(),
      ...options,
    });
    cache.set('hash-a', alice);
    const reconnected = new Promise((resolve) => subscriber.once('ready', resolve));

    subscriber.disconnect(true);
    await reconnected;

    expect(cache.get('hash-a')).toBeUndefined();
    await cache.close();
  });
});
