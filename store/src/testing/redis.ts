/**
 * Test helpers for Redis-backed stores.
 *
 * Redis suites run only when TEST_REDIS_URL names a server, and once more on a Redis
 * Cluster when TEST_REDIS_CLUSTER_URL names one (`redis+cluster://…`; `.ci/run` starts
 * one with redis-cluster.ts): `redisTargets` lists them. Each test file takes its own key
 * prefix from `uniquePrefix` and removes its keys with `deleteKeysWithPrefix` in
 * `afterAll`, so files can run side by side on one Redis.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connectRedis, isCluster, type RedisConnection } from '../redis-connection.ts';

export const redisUrl: string | undefined = process.env.TEST_REDIS_URL;

export const redisClusterUrl: string | undefined = process.env.TEST_REDIS_CLUSTER_URL;

export interface RedisTarget {
  /** As a suite's title says it: 'redis' or 'redis cluster'. */
  name: string;
  url: string;
}

/** Where the Redis suites run: TEST_REDIS_URL's server, then TEST_REDIS_CLUSTER_URL's cluster, those set. */
export const redisTargets: RedisTarget[] = [
  ...(redisUrl === undefined ? [] : [{ name: 'redis', url: redisUrl }]),
  ...(redisClusterUrl === undefined ? [] : [{ name: 'redis cluster', url: redisClusterUrl }]),
];

/** `sgtest:<name>:<random>`: a key / queue prefix no other test run shares. */
export function uniquePrefix(name: string): string {
  return `sgtest:${name}:${randomBytes(6).toString('hex')}`;
}

/** Opens a connection to `url` (TEST_REDIS_URL by default); the caller quits it in `afterAll`. */
export function connectTestRedis(url = redisUrl): RedisConnection {
  if (url === undefined) throw new Error('TEST_REDIS_URL is not set');
  return connectRedis(url);
}

/** Deletes every key that starts with `prefix` (on a cluster, on each master); returns how many were deleted. */
export async function deleteKeysWithPrefix(redis: RedisConnection, prefix: string): Promise<number> {
  const pattern = `${prefix.replace(/[*?[\]\\{}]/g, '\\$&')}*`;
  let deleted = 0;
  // A cluster connection lists its masters once it knows the slots; nodes it was only started from are dropped then.
  if (isCluster(redis) && redis.status !== 'ready') await once(redis, 'ready');
  for (const node of isCluster(redis) ? redis.nodes('master') : [redis]) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0 && !isCluster(redis)) deleted += await node.unlink(...keys);
      // On a cluster one key per command: keys of several slots may not share one.
      else for (const count of await Promise.all(keys.map((key) => node.unlink(key)))) deleted += count;
      cursor = next;
    } while (cursor !== '0');
  }
  return deleted;
}
