/**
 * In-process JobQueue for the embedded mode: the gateway process runs the worker's
 * processors itself, with the BullMQ queue's rules.
 *
 * A job id is taken while its job waits, runs or waits for a retry, and is free again
 * once the job has finished or been given up. A failed try is retried after
 * `backoffMs`, doubling each time, until `attempts` tries have failed; then `onError`
 * hears of it. A job starts on the next turn of the event loop, never inside `enqueue`
 * (the caller's own work, e.g. answering a request, goes first). The payload is handed to
 * the processor as it is, not copied: neither side may change it. A job runs outside the
 * request that enqueued it, as a BullMQ worker would: what it audits is the system's, with no
 * IP or user agent.
 *
 * A schedule enqueues its job on a timer, with the id `schedule:<name>`, so a turn that
 * comes while the last run is pending is skipped.
 *
 * `close` stops accepting jobs, cancels schedules and pending retries and waits for running jobs;
 * jobs still waiting are dropped with the process, so call `drainForShutdown` first to finish
 * them. `drain` waits for every job, including those of names no processor has taken yet;
 * `drainForShutdown` for every job but those of `resumable` processors, whose work the
 * next start finds again (a job that hands on work for minutes would hold a shutdown up),
 * and a resumable job that fails because the queue closed under it is not reported.
 */
import { withoutAuditOrigin } from '../sql/repos/audit.ts';
import { DEFAULT_BACKOFF_MS, type QueueOptions, resolveErrorReporter, resolveProcessOptions, validateSchedule } from './options.ts';
import type { EnqueueOptions, JobHandler, JobMap, JobQueue, ProcessOptions, ScheduleOptions } from './types.ts';

export interface InProcessQueue<M extends JobMap> extends JobQueue<M> {
  /** Resolves when no job is waiting or running but those of `resumable` processors: what a shutdown would lose is done. */
  drainForShutdown(): Promise<void>;
}

interface QueuedJob {
  name: string;
  jobId: string;
  payload: unknown;
  /** Tries already made. */
  triesMade: number;
}

interface Processor {
  handler: JobHandler<unknown>;
  concurrency: number;
  attempts: number;
  backoffMs: number;
  resumable: boolean;
  running: number;
}

export function createInProcessQueue<M extends JobMap>(options: QueueOptions = {}): InProcessQueue<M> {
  const { backoffMs = DEFAULT_BACKOFF_MS } = options;
  const onError = resolveErrorReporter(options);
  const waiting = new Map<string, QueuedJob[]>();
  const processors = new Map<string, Processor>();
  /** `name \0 jobId` of every job waiting, running or waiting for a retry, with its name. */
  const pendingJobKeys = new Map<string, string>();
  const retryTimers = new Set<NodeJS.Timeout>();
  const scheduleTimers = new Map<string, NodeJS.Timeout>();
  const runningJobs = new Set<Promise<void>>();
  let drainWaiters: (() => void)[] = [];
  let shutdownWaiters: (() => void)[] = [];
  let closing: Promise<void> | undefined;

  const jobKey = (name: string, jobId: string) => `${name}\u0000${jobId}`;

  function waitingJobs(name: string): QueuedJob[] {
    let jobs = waiting.get(name);
    if (jobs === undefined) {
      jobs = [];
      waiting.set(name, jobs);
    }
    return jobs;
  }

  /** Whether a shutdown would lose nothing: every job pending is a resumable processor's. */
  const onlyResumablePending = () => [...pendingJobKeys.values()].every((name) => processors.get(name)?.resumable === true);

  function settleDrainWaitersIfIdle(): void {
    if (shutdownWaiters.length > 0 && onlyResumablePending()) {
      const waiters = shutdownWaiters;
      shutdownWaiters = [];
      for (const resolve of waiters) resolve();
    }
    if (pendingJobKeys.size > 0) return;
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function forget(job: QueuedJob): void {
    pendingJobKeys.delete(jobKey(job.name, job.jobId));
    settleDrainWaitersIfIdle();
  }

  function startWaitingJobs(name: string): void {
    const processor = processors.get(name);
    const jobs = waiting.get(name);
    if (processor === undefined || jobs === undefined || closing !== undefined) return;
    while (processor.running < processor.concurrency) {
      const job = jobs.shift();
      if (job === undefined) return;
      const run = runJob(processor, job);
      runningJobs.add(run);
      void run.finally(() => runningJobs.delete(run));
    }
  }

  async function runJob(processor: Processor, job: QueuedJob): Promise<void> {
    processor.running += 1;
    const attempt = job.triesMade + 1;
    try {
      await withoutAuditOrigin(() => processor.handler(job.payload, { jobId: job.jobId, attempt }));
      forget(job);
    } catch (error) {
      if (attempt < processor.attempts && closing === undefined) {
        scheduleRetry({ ...job, triesMade: attempt }, processor.backoffMs);
      } else {
        if (closing === undefined || !processor.resumable) onError(error, `gave up on ${job.name} job ${job.jobId} after ${attempt} attempt(s)`);
        forget(job);
      }
    } finally {
      processor.running -= 1;
      startWaitingJobs(job.name);
    }
  }

  /** Names whose waiting jobs start on the next turn of the event loop. */
  const toStart = new Set<string>();
  function startSoon(name: string): void {
    if (toStart.size === 0) {
      setImmediate(() => {
        const names = [...toStart];
        toStart.clear();
        for (const each of names) startWaitingJobs(each);
      });
    }
    toStart.add(name);
  }

  function scheduleRetry(job: QueuedJob, firstDelayMs: number): void {
    const timer = setTimeout(
      () => {
        retryTimers.delete(timer);
        waitingJobs(job.name).push(job);
        startWaitingJobs(job.name);
      },
      firstDelayMs * 2 ** (job.triesMade - 1),
    );
    retryTimers.add(timer);
  }

  function enqueue(name: string, payload: unknown, jobId: string): void {
    if (closing !== undefined) throw new Error('the job queue is closed');
    const key = jobKey(name, jobId);
    if (pendingJobKeys.has(key)) return;
    pendingJobKeys.set(key, name);
    waitingJobs(name).push({ name, jobId, payload, triesMade: 0 });
    startSoon(name);
  }

  return {
    async enqueue(name, payload, { jobId }: EnqueueOptions) {
      enqueue(name, payload, jobId);
    },

    async schedule(name, payload, scheduleOptions: ScheduleOptions) {
      validateSchedule(scheduleOptions);
      const jobId = `schedule:${name}`;
      clearInterval(scheduleTimers.get(name));
      scheduleTimers.set(name, setInterval(() => enqueue(name, payload, jobId), scheduleOptions.everyMs).unref());
    },

    process(name, handler, processOptions?: ProcessOptions) {
      if (closing !== undefined) throw new Error('the job queue is closed');
      if (processors.has(name)) throw new Error(`jobs named ${name} already have a processor`);
      const { concurrency, attempts, backoffMs: firstRetryMs, resumable } = resolveProcessOptions(processOptions, backoffMs);
      processors.set(name, { handler: handler as JobHandler<unknown>, concurrency, attempts, backoffMs: firstRetryMs, resumable, running: 0 });
      startWaitingJobs(name);
    },

    drain() {
      if (pendingJobKeys.size === 0) return Promise.resolve();
      return new Promise((resolve) => drainWaiters.push(resolve));
    },

    async waitingJobs(name) {
      let pending = 0;
      for (const pendingName of pendingJobKeys.values()) if (pendingName === name) pending += 1;
      return pending - (processors.get(name)?.running ?? 0);
    },

    drainForShutdown() {
      if (onlyResumablePending()) return Promise.resolve();
      return new Promise((resolve) => shutdownWaiters.push(resolve));
    },

    close() {
      closing ??= (async () => {
        for (const timer of scheduleTimers.values()) clearInterval(timer);
        scheduleTimers.clear();
        for (const timer of retryTimers) clearTimeout(timer);
        retryTimers.clear();
        waiting.clear();
        await Promise.all(runningJobs);
        pendingJobKeys.clear();
        settleDrainWaitersIfIdle();
      })();
      return closing;
    },
  };
}
