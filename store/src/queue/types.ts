/**
 * JobQueue: at-least-once background jobs with a typed map from job name to payload.
 *
 * Producers `enqueue`; workers `process`. A job id is deterministic (the caller gives
 * it) so a job enqueued twice while pending runs once. A failing handler is retried
 * with backoff up to `attempts` times. Processors must be idempotent. A scheduled job
 * runs every `everyMs`, as one job per turn (a turn while the last one is still pending
 * is skipped).
 */
export type JobMap = Record<string, unknown>;

export interface EnqueueOptions {
  /** Deterministic id: a second enqueue with the same id while pending is ignored. */
  jobId: string;
}

export interface ProcessOptions {
  concurrency?: number;
  /** Tries before a job is given up as failed (default 5). */
  attempts?: number;
  /** Delay before the first retry, doubling with each further one (default: the queue's `backoffMs`). */
  backoffMs?: number;
  /**
   * Its jobs' work is found again when a process starts (the job table's `unfinished`), so
   * a shutdown need not finish them, nor report one that fails because the queue closed.
   */
  resumable?: boolean;
}

export interface ScheduleOptions {
  /** Milliseconds from one run to the next. */
  everyMs: number;
}

export type JobHandler<P> = (payload: P, meta: { jobId: string; attempt: number }) => Promise<void>;

export interface JobQueue<M extends JobMap> {
  enqueue<N extends keyof M & string>(name: N, payload: M[N], options: EnqueueOptions): Promise<void>;
  /** Starts consuming jobs of this name in this process. */
  process<N extends keyof M & string>(name: N, handler: JobHandler<M[N]>, options?: ProcessOptions): void;
  /**
   * Enqueues `payload` under `name` every `everyMs`, the first time `everyMs` after the name
   * is first scheduled (a process starting does no work at once), one schedule per name for
   * the whole deployment; scheduling a name again keeps its cadence.
   */
  schedule<N extends keyof M & string>(name: N, payload: M[N], options: ScheduleOptions): Promise<void>;
  /**
   * Resolves when no job of any name is waiting, delayed or running (tests, shutdown);
   * a schedule's next turn does not count until it is due.
   */
  drain(): Promise<void>;
  /** Jobs of this name waiting to run — queued or waiting for a retry, not running, a schedule's next turn not counted (/metrics' queue depth). */
  waitingJobs(name: keyof M & string): Promise<number>;
  close(): Promise<void>;
}
