/** SpendLedger: the interface and its in-process and Redis implementations. */

export { budgetCounter } from './budget-counter.ts';
export { createInProcessLedger } from './in-process-ledger.ts';
export { createRedisLedger, type RedisLedgerOptions } from './redis-ledger.ts';
export * from './types.ts';
export { DEFAULT_RESERVATION_TTL_MS, MAX_MICROS } from './validation.ts';
