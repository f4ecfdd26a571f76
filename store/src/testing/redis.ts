/**
 * Test helpers for Redis-backed stores.
 *
 * Redis suites run only when TEST_REDIS_URL names a server. Each test file takes its
 * own key prefix from `uniquePrefix` and removes its keys with `deleteKeysWithPrefix`
 * in `afterAll`, so files can run side by side on one Redis.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const redisUrl: string | undefined = process.env.TEST_REDIS_URL;

/** `sgtest:<name>:<random>`: a key / queue prefix no other test run shares. */
export function uniquePrefix(name: string): string {
  return `sgtest:${name}:${randomBytes(6).toString('hex')}`;
}

/** Opens a connection to TEST_REDIS_URL; the caller quits it in `afterAll`. */
export function connectTestRedis(): Redis {
  if (redisUrl === undefined) throw new Error('TEST_REDIS_URL is not set');
  return new Redis(redisUrl);
}

/** Deletes every key that starts with `prefix`; returns how many were deleted. */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    if (keys.length > 0) deleted += await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  return deleted;
}
