/**
 * Options and defaults shared by both queues, so a processor behaves the same embedded
 * and scaled.
 */
import { type Logger, sharedLogger } from '../logger.ts';
import type { ProcessOptions, ScheduleOptions } from './types.ts';

export interface QueueOptions {
  /** Delay before the first retry; it doubles with each further retry (default 1 s). */
  backoffMs?: number;
  /** Where `onError` reports by default (default: the shared logger). */
  log?: Logger;
  /**
   * Receives what must be reported but must not crash the process: connection errors
   * and jobs given up after their last attempt (default: an error on `log`).
   */
  onError?: (error: unknown, context: string) => void;
}

export const DEFAULT_ATTEMPTS = 5;
/** Beyond this the doubling backoff exceeds months; larger `attempts` are refused. */
export const MAX_ATTEMPTS = 20;
export const DEFAULT_BACKOFF_MS = 1_000;

/** `onError` as the options give it, else reporting to their logger. */
export function resolveErrorReporter(options: QueueOptions): (error: unknown, context: string) => void {
  const log = options.log ?? sharedLogger();
  return options.onError ?? ((error, context) => log.error({ err: error }, `spendgate queue: ${context}`));
}

export function validateSchedule({ everyMs }: ScheduleOptions): void {
  if (!Number.isSafeInteger(everyMs) || everyMs < 1) throw new RangeError(`everyMs must be a positive integer, got ${everyMs}`);
}

/** The largest first-retry delay a job may ask for: an hour. */
export const MAX_BACKOFF_MS = 3_600_000;

export function resolveProcessOptions(options: ProcessOptions = {}, queueBackoffMs = DEFAULT_BACKOFF_MS): Required<ProcessOptions> {
  const { concurrency = 1, attempts = DEFAULT_ATTEMPTS, backoffMs = queueBackoffMs, resumable = false } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  if (!Number.isSafeInteger(attempts) || attempts < 1 || attempts > MAX_ATTEMPTS) {
    throw new RangeError(`attempts must be an integer from 1 to ${MAX_ATTEMPTS}, got ${attempts}`);
  }
  if (!Number.isSafeInteger(backoffMs) || backoffMs < 0 || backoffMs > MAX_BACKOFF_MS) {
    throw new RangeError(`backoffMs must be an integer from 0 to ${MAX_BACKOFF_MS}, got ${backoffMs}`);
  }
  return { concurrency, attempts, backoffMs, resumable };
}
