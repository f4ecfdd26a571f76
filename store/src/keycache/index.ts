/** KeyCache: the interface and its in-process and Redis implementations. */

export { createInProcessKeyCache } from './in-process-key-cache.ts';
export { createRedisKeyCache, type RedisKeyCacheOptions } from './redis-key-cache.ts';
export * from './types.ts';
