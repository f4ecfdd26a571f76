/**
 * BullMQ JobQueue for the scaled mode: gateways enqueue, `worker/` processes consume.
 *
 * One BullMQ Queue and, where this process consumes that name, one Worker per job
 * name, created on first use; the BullMQ queue is named after the job and its keys
 * start with `prefix`. Jobs are removed once completed, so their id is free again;
 * failed jobs are kept (the last 1,000, at most 7 days) for inspection, and while
 * one is kept an enqueue with its id is ignored.
 *
 * Retries follow the consumer's `attempts` and `backoffMs`, as the JobQueue interface
 * asks: jobs are enqueued with MAX_ATTEMPTS and a custom backoff type, each worker's
 * backoffStrategy doubles its processor's first delay, and the worker ends a job that
 * fails its last allowed attempt with BullMQ's UnrecoverableError.
 *
 * A schedule is a BullMQ job scheduler named after its job (`upsertJobScheduler`, so
 * every worker that schedules it shares one, its first run `everyMs` after it was first
 * made and later upserts keeping its cadence); its jobs get BullMQ's ids
 * (`repeat:<name>:<time>`) and the same attempts, backoff and removal as enqueued ones.
 * `drain` does not wait for a scheduler's next job while that job is only delayed, whichever
 * process made the schedule (a gateway drains queues whose schedules the worker made).
 *
 * On a Redis Cluster, `enqueue` resolves only once a replica of the queue's master has
 * the job too (WAIT 1 on the master's connection, within `replicaAckTimeoutMs`, else it
 * fails and the caller keeps the job elsewhere, as for an unreachable Redis): replication
 * is asynchronous, so a master killed right after answering would otherwise take an
 * acknowledged job with it. A master without replicas (by its ROLE) is not waited for.
 *
 * Job ids: BullMQ refuses ids containing ':' and ids that read as integers ('42'), so
 * ids are escaped one to one ('%' → '%25', ':' → '%3A', integers get a '%i' prefix);
 * handlers see the caller's id. Job names must not contain ':' (BullMQ queue names).
 *
 * Connections: the queue opens two, when first needed — one for producers and one,
 * with `maxRetriesPerRequest: null`, shared by the workers for their ordinary commands
 * (BullMQ gives each worker a blocking duplicate of it as well). `close` closes the
 * workers (waiting for running jobs), then the queues, then these connections. After a
 * Redis Cluster failover an idle worker's close may never end (BullMQ waits for its
 * fetch loop, which waits for a blocking cluster client that never reconnects once
 * closed), so `close` waits for each worker only until WORKER_CLOSE_GRACE_MS after the
 * last job its handlers were running has returned, reports one it gave up on, and
 * drops the connections anyway.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Job, type JobType, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Cluster } from 'ioredis';
import { type ConnectOptions, clusterQueuePrefix, connectRedis, isCluster, parseRedisUrl, type RedisConnection } from '../redis-connection.ts';
import {
  DEFAULT_BACKOFF_MS,
  MAX_ATTEMPTS,
  type QueueOptions,
  resolveErrorReporter,
  resolveProcessOptions,
  validateSchedule,
} from './options.ts';
import type { JobHandler, JobMap, JobQueue } from './types.ts';

export interface BullQueueOptions extends QueueOptions {
  /** A Redis URL (a cluster's too: see redis-connection.ts). */
  connection: { url: string };
  /** Start of every BullMQ key, e.g. `sg:queue`; on a cluster, wrapped in a hash tag (`{sg:queue}`), as BullMQ asks. */
  prefix: string;
  /** On a Redis Cluster, how long an enqueue waits for a replica of the queue's master to have the job (default REPLICA_ACK_TIMEOUT_MS). */
  replicaAckTimeoutMs?: number;
}

const KEEP_FAILED_JOBS = { count: 1_000, age: 7 * 24 * 3_600 };
/** The backoff type jobs carry: BullMQ asks the worker's backoffStrategy for the delay. */
const PER_JOB_BACKOFF = 'per-job';
/**
 * A job whose worker lost Redis (or died) mid-run is handed out again within about ten
 * seconds (lock expiry + stalled check) instead of BullMQ's default minute, and may
 * stall as often as it may fail: processors are idempotent, so running it again is safe,
 * while giving up would drop it.
 */
const STALLED_JOB_RECOVERY = { lockDuration: 5_000, stalledInterval: 5_000, maxStalledCount: MAX_ATTEMPTS };
const DRAIN_POLL_MS = 20;
/** How long an enqueue on a cluster waits by default for a replica to have the job: within the gateway's 200 ms enqueue deadline. */
const REPLICA_ACK_TIMEOUT_MS = 150;
/** How long a worker may take to close once no handler of this queue runs: long enough for BullMQ to record the last job done. */
const WORKER_CLOSE_GRACE_MS = 3_000;
const WAITING_STATES = ['waiting', 'delayed', 'prioritized', 'waiting-children'] as const;
const UNFINISHED_STATES = [...WAITING_STATES, 'active'] as const;

/** Maps a caller's job id to one BullMQ accepts; `fromBullJobId` reverses it. */
function toBullJobId(jobId: string): string {
  const escaped = jobId.replace(/[%:]/g, (character) => (character === '%' ? '%25' : '%3A'));
  return String(Number.parseInt(escaped, 10)) === escaped ? `%i${escaped}` : escaped;
}

function fromBullJobId(bullJobId: string): string {
  return bullJobId.replace(/^%i/, '').replace(/%(25|3A)/g, (sequence) => (sequence === '%25' ? '%' : ':'));
}

/**
 * @example
 * type Jobs = { meter: UsageEvent; mail: OutboxMessage };
 * const queue = createBullQueue<Jobs>({ connection: { url: process.env.REDIS_URL! }, prefix: 'sg-queue' });
 * queue.process('meter', (event, { jobId }) => insertUsage(db, event), { concurrency: 4 });
 * await queue.enqueue('meter', event, { jobId: `usage:${event.requestId}` });
 */
export function createBullQueue<M extends JobMap>(options: BullQueueOptions): JobQueue<M> {
  const { connection, backoffMs = DEFAULT_BACKOFF_MS, replicaAckTimeoutMs = REPLICA_ACK_TIMEOUT_MS } = options;
  const prefix = parseRedisUrl(connection.url)?.kind === 'cluster' ? clusterQueuePrefix(options.prefix) : options.prefix;
  const openConnection = (overrides: ConnectOptions) => connectRedis(connection.url, overrides);
  const onError = resolveErrorReporter(options);
  const jobOptions = {
    attempts: MAX_ATTEMPTS,
    // Each worker computes the delay from its processor's backoffMs (retryDelay below).
    backoff: { type: PER_JOB_BACKOFF },
    removeOnComplete: true,
    removeOnFail: KEEP_FAILED_JOBS,
  };
  const queues = new Map<string, Queue>();
  /** Queues opened only to count their jobs (/metrics): `drain` does not wait for them. */
  const countedQueues = new Map<string, Queue>();
  /** Names this process scheduled: each has one delayed job waiting for its next turn. */
  const scheduledNames = new Set<string>();
  const workers = new Map<string, Worker>();
  /** Jobs whose handlers run now. */
  const runningHandlers = new Set<Promise<void>>();
  let producerConnection: RedisConnection | undefined;
  /** Resolves when the producer connection is first ready; enqueues before that wait for it. */
  let producerReady: Promise<void> | undefined;
  let workerConnection: RedisConnection | undefined;
  let closing: Promise<void> | undefined;

  function assertOpen(): void {
    if (closing !== undefined) throw new Error('the job queue is closed');
  }

  function openQueue(name: string): Queue {
    if (producerConnection === undefined) {
      // Producers fail fast while Redis is away (the caller keeps the job elsewhere)
      // rather than queueing in memory; only the very first connection is waited for.
      const opened = openConnection({ enableOfflineQueue: false });
      producerReady = new Promise((resolve) => opened.once('ready', () => resolve()));
      producerConnection = opened;
    }
    const queue = new Queue(name, { connection: producerConnection, prefix });
    queue.on('error', (error) => onError(error, `queue ${name}`));
    return queue;
  }

  function queueFor(name: string): Queue {
    let queue = queues.get(name);
    if (queue === undefined) {
      queue = openQueue(name);
      queues.set(name, queue);
    }
    return queue;
  }

  /** The hash slot of every queue's keys (their prefix is one hash tag), asked of the cluster once. */
  let queueSlot: Promise<number> | undefined;

  /** Resolves once a replica of the queue's master has every job this process enqueued (see the top of this file). */
  async function replicated(cluster: Cluster): Promise<void> {
    queueSlot ??= cluster.call('CLUSTER', 'KEYSLOT', prefix).then(Number);
    const [masterKey, ...replicaKeys] = cluster.slots[await queueSlot] ?? [];
    const master = cluster.nodes('master').find(({ options: node }) => `${node.host}:${node.port}` === masterKey);
    if (master === undefined) throw new Error(`the queue's master ${masterKey} is not connected`);
    // The client's slot map may not list a replica yet (or any more): the master's own list decides.
    const hasReplicas = async () => ((await master.role()) as [string, number, unknown[]])[2].length > 0;
    if (replicaKeys.length === 0 && !(await hasReplicas())) return;
    if ((await master.wait(1, replicaAckTimeoutMs)) >= 1 || !(await hasReplicas())) return;
    throw new Error(`no replica of the queue's master ${masterKey} had the job within ${replicaAckTimeoutMs} ms`);
  }

  /** Jobs of `name` in `states`, less the delayed job that is a schedule's next turn. */
  async function jobCount(name: string, queue: Queue, states: readonly JobType[]): Promise<number> {
    const { delayed = 0, ...others } = await queue.getJobCounts(...states);
    const nextTurns = scheduledNames.has(name) ? 1 : await queue.getJobSchedulersCount();
    return Object.values(others).reduce((sum, count) => sum + count, Math.max(0, delayed - nextTurns));
  }

  /** Closes a worker, waiting for it at most WORKER_CLOSE_GRACE_MS once no handler runs (see the top of this file). */
  async function closeWorker(name: string, worker: Worker): Promise<void> {
    const closed = worker.close().then(() => true);
    const handlersDone = (async () => {
      while (runningHandlers.size > 0) await Promise.allSettled([...runningHandlers]);
      return sleep(WORKER_CLOSE_GRACE_MS, false, { ref: false });
    })();
    if (!(await Promise.race([closed, handlersDone]))) {
      onError(new Error(`not closed ${WORKER_CLOSE_GRACE_MS} ms after its last job ended; its connections are dropped`), `worker ${name}`);
    }
  }

  return {
    async enqueue(name, payload, { jobId }) {
      assertOpen();
      const queue = queueFor(name);
      await producerReady;
      await queue.add(name, payload, { jobId: toBullJobId(jobId), ...jobOptions });
      if (producerConnection !== undefined && isCluster(producerConnection)) await replicated(producerConnection);
    },

    async schedule(name, payload, scheduleOptions) {
      assertOpen();
      validateSchedule(scheduleOptions);
      const queue = queueFor(name);
      await producerReady;
      const every = scheduleOptions.everyMs;
      await queue.upsertJobScheduler(name, { every, startDate: Date.now() + every }, { name, data: payload, opts: jobOptions });
      scheduledNames.add(name);
    },

    process(name, handler, processOptions) {
      assertOpen();
      if (workers.has(name)) throw new Error(`jobs named ${name} already have a processor`);
      const { concurrency, attempts, backoffMs: firstRetryMs } = resolveProcessOptions(processOptions, backoffMs);
      const typedHandler = handler as JobHandler<unknown>;
      queueFor(name);
      workerConnection ??= openConnection({ maxRetriesPerRequest: null });
      const worker = new Worker(
        name,
        async (job: Job) => {
          const jobId = fromBullJobId(job.id ?? '');
          const attempt = job.attemptsMade + 1;
          const running = (async () => typedHandler(job.data, { jobId, attempt }))();
          runningHandlers.add(running);
          try {
            await running;
          } catch (error) {
            if (attempt < attempts) throw error;
            onError(error, `gave up on ${name} job ${jobId} after ${attempt} attempt(s)`);
            throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
          } finally {
            runningHandlers.delete(running);
          }
        },
        {
          connection: workerConnection,
          prefix,
          concurrency,
          settings: { backoffStrategy: (attemptsMade: number) => firstRetryMs * 2 ** (attemptsMade - 1) },
          ...STALLED_JOB_RECOVERY,
        },
      );
      worker.on('error', (error) => onError(error, `worker ${name}`));
      workers.set(name, worker);
    },

    async drain() {
      for (;;) {
        const counts = await Promise.all([...queues].map(([name, queue]) => jobCount(name, queue, UNFINISHED_STATES)));
        if (counts.every((count) => count === 0)) return;
        await sleep(DRAIN_POLL_MS);
      }
    },

    async waitingJobs(name) {
      assertOpen();
      let queue = queues.get(name) ?? countedQueues.get(name);
      if (queue === undefined) {
        queue = openQueue(name);
        countedQueues.set(name, queue);
      }
      await producerReady;
      return jobCount(name, queue, WAITING_STATES);
    },

    close() {
      closing ??= (async () => {
        await Promise.all([...workers].map(([name, worker]) => closeWorker(name, worker)));
        await Promise.all([...queues.values(), ...countedQueues.values()].map((queue) => queue.close()));
        // Nothing is pending once workers and queues are closed. disconnect(), unlike quit(),
        // cannot fail: closing during a Redis outage must not throw.
        producerConnection?.disconnect();
        workerConnection?.disconnect();
      })();
      return closing;
    },
  };
}
