/** JobQueue: the interface, its in-process and BullMQ implementations, and the job map. */

export { type BullQueueOptions, createBullQueue } from './bull-queue.ts';
export { createInProcessQueue } from './in-process-queue.ts';
export * from './jobs.ts';
export { DEFAULT_ATTEMPTS, MAX_ATTEMPTS, type QueueOptions } from './options.ts';
export * from './types.ts';
