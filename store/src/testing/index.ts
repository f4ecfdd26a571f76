// Helpers for tests that need real stores: per-file databases and Redis prefixes.
export * from './redis.ts';
export * from './pg-replica.ts';
export * from './redis-cluster.ts';
export * from './sql.ts';
export * from './usage-events.ts';
