/** RateLimiter: the interface and its in-process and Redis implementations. */

export {
  createInProcessRateLimiter,
  type InProcessRateLimiter,
  type InProcessRateLimiterOptions,
} from './in-process-rate-limiter.ts';
export { createRedisRateLimiter, type RedisRateLimiterOptions } from './redis-rate-limiter.ts';
export * from './types.ts';
export { DEFAULT_RATE_WINDOW_MS } from './window.ts';
