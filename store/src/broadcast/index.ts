/** Broadcast: the interface and its in-process and Redis implementations. */

export { createInProcessBroadcast } from './in-process-broadcast.ts';
export { createRedisBroadcast, type RedisBroadcastOptions } from './redis-broadcast.ts';
export * from './types.ts';
