/** JobQueue: the interface and its in-process and BullMQ implementations. */
export * from './types.ts';
export { type BullQueueOptions, createBullQueue } from './bull-queue.ts';
export { createInProcessQueue } from './in-process-queue.ts';
export { DEFAULT_ATTEMPTS, MAX_ATTEMPTS, type QueueOptions } from './options.ts';
