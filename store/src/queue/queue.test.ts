// One contract suite for every JobQueue: the in-process queue always, the BullMQ queue
// on each Redis target set (TEST_REDIS_URL, TEST_REDIS_CLUSTER_URL). Each test gets its own queue (and BullMQ key prefix).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { connectTestRedis, deleteKeysWithPrefix, redisClusterUrl, redisTargets, uniquePrefix } from '../testing/redis.ts';
import { startRedisCluster } from '../testing/redis-cluster.ts';
import { createBullQueue } from './bull-queue.ts';
import { createInProcessQueue } from './in-process-queue.ts';
import type { QueueOptions } from './options.ts';
import type { JobQueue } from './types.ts';

type TestJobs = {
  meter: { requestId: string; costMicros: number };
  mail: { to: string };
  raw: { value: unknown };
};

interface QueueImplementation {
  name: string;
  create(options: QueueOptions): JobQueue<TestJobs>;
}

const bullPrefix = uniquePrefix('queue');
let bullQueueCount = 0;

const IMPLEMENTATIONS: QueueImplementation[] = [
  { name: 'in-process queue', create: (options) => createInProcessQueue<TestJobs>(options) },
];
for (const { name, url } of redisTargets) {
  IMPLEMENTATIONS.push({
    name: `bullmq queue on ${name}`,
    create(options) {
      bullQueueCount += 1;
      return createBullQueue<TestJobs>({ connection: { url }, prefix: `${bullPrefix}:${bullQueueCount}`, ...options });
    },
  });
}

const openQueues: JobQueue<TestJobs>[] = [];
afterEach(async () => {
  await Promise.all(openQueues.splice(0).map((queue) => queue.close()));
});
afterAll(async () => {
  for (const { url } of redisTargets) {
    const redis = connectTestRedis(url);
    // On a cluster the prefix is a hash tag: `{<prefix>}`.
    for (const prefix of [bullPrefix, `{${bullPrefix}`]) await deleteKeysWithPrefix(redis, prefix);
    await redis.quit();
  }
});

interface ReportedError {
  error: unknown;
  context: string;
}

for (const implementation of IMPLEMENTATIONS) {
  describe(implementation.name, () => {
    function openQueue() {
      const reported: ReportedError[] = [];
      const queue = implementation.create({ backoffMs: 10, onError: (error, context) => reported.push({ error, context }) });
      openQueues.push(queue);
      return { queue, reported };
    }

    it('runs a job once with its payload and the caller’s job id', async () => {
      const { queue, reported } = openQueue();
      const runs: unknown[] = [];
      queue.process('meter', async (payload, meta) => {
        runs.push({ payload, meta });
      });

      await queue.enqueue('meter', { requestId: 'req_1', costMicros: 1_200 }, { jobId: 'usage:req_1' });
      await queue.drain();

      expect(runs).toEqual([
        { payload: { requestId: 'req_1', costMicros: 1_200 }, meta: { jobId: 'usage:req_1', attempt: 1 } },
      ]);
      expect(reported).toEqual([]);
    });

    it('runs a job enqueued twice with one id while pending once, and frees the id when it is done', async () => {
      const { queue } = openQueue();
      const runs: string[] = [];
      await queue.enqueue('meter', { requestId: 'first', costMicros: 1 }, { jobId: 'usage-1' });
      await queue.enqueue('meter', { requestId: 'second', costMicros: 2 }, { jobId: 'usage-1' });
      queue.process('meter', async ({ requestId }) => {
        runs.push(requestId);
      });
      await queue.drain();
      expect(runs).toEqual(['first']);

      await queue.enqueue('meter', { requestId: 'third', costMicros: 3 }, { jobId: 'usage-1' });
      await queue.drain();
      expect(runs).toEqual(['first', 'third']);
    });

    it('accepts any job id, including ones with colons, percent signs or only digits', async () => {
      const { queue } = openQueue();
      const jobIds = ['42', '-7', 'usage:req:1', 'a:b', 'a%3Ab', '%i42', '100%'];
      const seen: string[] = [];
      queue.process('mail', async (_payload, { jobId }) => {
        seen.push(jobId);
      });
      for (const jobId of jobIds) await queue.enqueue('mail', { to: jobId }, { jobId });
      await queue.drain();
      expect(seen.sort()).toEqual([...jobIds].sort());
    });

    it('retries a handler that throws once, and it then succeeds', async () => {
      const { queue, reported } = openQueue();
      const attempts: number[] = [];
      queue.process(
        'mail',
        async (_payload, { attempt }) => {
          attempts.push(attempt);
          if (attempt === 1) throw new Error('SMTP timeout');
        },
        { attempts: 3 },
      );

      await queue.enqueue('mail', { to: 'ops@example.com' }, { jobId: 'mail-1' });
      await queue.drain();

      expect(attempts).toEqual([1, 2]);
      expect(reported).toEqual([]);
    });

    it('stops a handler that always fails after `attempts` tries and reports it once', async () => {
      const { queue, reported } = openQueue();
      const attempts: number[] = [];
      queue.process(
        'mail',
        async (_payload, { attempt }) => {
          attempts.push(attempt);
          throw new Error('mailbox full');
        },
        { attempts: 3 },
      );

      await queue.enqueue('mail', { to: 'ops@example.com' }, { jobId: 'mail-1' });
      await queue.drain();
      await sleep(50);

      expect(attempts).toEqual([1, 2, 3]);
      expect(reported).toHaveLength(1);
      expect(reported[0]?.context).toContain('mail-1');
      expect(reported[0]?.error).toMatchObject({ message: 'mailbox full' });
    });

    it('drains only once all of 100 jobs have run', async () => {
      const { queue } = openQueue();
      let done = 0;
      queue.process(
        'meter',
        async () => {
          await sleep(2);
          done += 1;
        },
        { concurrency: 8 },
      );
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          queue.enqueue('meter', { requestId: `req_${i}`, costMicros: i }, { jobId: `usage-${i}` }),
        ),
      );

      await queue.drain();

      expect(done).toBe(100);
    });

    it('runs no more handlers at once than `concurrency`', async () => {
      const { queue } = openQueue();
      let running = 0;
      let mostAtOnce = 0;
      for (let i = 0; i < 12; i += 1) {
        await queue.enqueue('meter', { requestId: `req_${i}`, costMicros: i }, { jobId: `usage-${i}` });
      }
      queue.process(
        'meter',
        async () => {
          running += 1;
          mostAtOnce = Math.max(mostAtOnce, running);
          await sleep(40);
          running -= 1;
        },
        { concurrency: 3 },
      );

      await queue.drain();

      expect(mostAtOnce).toBe(3);
    });

    it('counts the jobs waiting per name, not those running', async () => {
      const { queue } = openQueue();
      for (let i = 0; i < 5; i += 1) await queue.enqueue('meter', { requestId: `req_${i}`, costMicros: i }, { jobId: `waiting-${i}` });
      expect(await queue.waitingJobs('meter')).toBe(5);
      expect(await queue.waitingJobs('mail')).toBe(0);

      let running = 0;
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      queue.process(
        'meter',
        async () => {
          running += 1;
          await released;
        },
        { concurrency: 2 },
      );
      await expect.poll(() => running).toBe(2);
      expect(await queue.waitingJobs('meter')).toBe(3);
      release();
      await queue.drain();
      expect(await queue.waitingJobs('meter')).toBe(0);
    });

    it('refuses a second processor for one job name and out-of-range options', async () => {
      const { queue } = openQueue();
      queue.process('mail', async () => {});
      expect(() => queue.process('mail', async () => {})).toThrow(/already/);
      expect(() => queue.process('meter', async () => {}, { attempts: 0 })).toThrow(RangeError);
      expect(() => queue.process('meter', async () => {}, { concurrency: 1.5 })).toThrow(RangeError);
      expect(() => queue.process('meter', async () => {}, { backoffMs: -1 })).toThrow(RangeError);
      expect(() => queue.process('meter', async () => {}, { backoffMs: 3_600_001 })).toThrow(RangeError);
    });

    it('waits its processor’s own backoff before each retry, doubling it, whatever the queue’s', async () => {
      const { queue } = openQueue();
      const triedAt: number[] = [];
      queue.process(
        'mail',
        async () => {
          triedAt.push(performance.now());
          if (triedAt.length < 3) throw new Error('SMTP refused');
        },
        { attempts: 3, backoffMs: 150 },
      );
      await queue.enqueue('mail', { to: 'ops@example.com' }, { jobId: 'mail-backoff' });
      await vi.waitFor(() => expect(triedAt).toHaveLength(3), { timeout: 10_000, interval: 20 });
      const [first = 0, second = 0, third = 0] = triedAt;
      // Lower bounds only: the queue's own backoff (10 ms) would retry far sooner.
      expect(second - first).toBeGreaterThanOrEqual(145);
      expect(third - second).toBeGreaterThanOrEqual(295);
    });

    it('runs a scheduled job every `everyMs`, with its payload, not before the first turn', async () => {
      const { queue, reported } = openQueue();
      const runs: unknown[] = [];
      queue.process('mail', async (payload) => {
        runs.push(payload);
      });

      await queue.schedule('mail', { to: 'ops@example.com' }, { everyMs: 150 });
      expect(runs).toEqual([]);

      await expect.poll(() => runs.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
      expect(runs.every((payload) => JSON.stringify(payload) === JSON.stringify({ to: 'ops@example.com' }))).toBe(true);
      expect(reported).toEqual([]);
    });

    it('drains once the jobs due have run, not waiting for a schedule’s next turn', async () => {
      const { queue } = openQueue();
      const runs: string[] = [];
      queue.process('mail', async ({ to }) => {
        runs.push(to);
      });
      await queue.schedule('mail', { to: 'scheduled@example.com' }, { everyMs: 3_600_000 });
      await queue.enqueue('mail', { to: 'ops@example.com' }, { jobId: 'mail-1' });

      await queue.drain();

      expect(runs).toEqual(['ops@example.com']);
    });

    it('refuses a schedule that is not a positive whole number of milliseconds', async () => {
      const { queue } = openQueue();
      await expect(queue.schedule('mail', { to: 'ops@example.com' }, { everyMs: 0 })).rejects.toThrow(RangeError);
      await expect(queue.schedule('mail', { to: 'ops@example.com' }, { everyMs: 0.5 })).rejects.toThrow(RangeError);
    });

    it('closes after its running job finishes and then refuses new jobs', async () => {
      const { queue } = openQueue();
      let finished = false;
      let markStarted = () => {};
      const started = new Promise<void>((resolve) => {
        markStarted = resolve;
      });
      queue.process('mail', async () => {
        markStarted();
        await sleep(100);
        finished = true;
      });
      await queue.enqueue('mail', { to: 'ops@example.com' }, { jobId: 'mail-1' });
      await started;

      await queue.close();

      expect(finished).toBe(true);
      await expect(queue.enqueue('mail', { to: 'ops@example.com' }, { jobId: 'mail-2' })).rejects.toThrow(/closed/);
    });
  });
}

for (const { name, url } of redisTargets) describe(`bullmq queues of two processes on ${name}`, () => {
  it('drains in the process that did not make a schedule, not waiting for its next turn', async () => {
    const prefix = `${bullPrefix}:shared`;
    const worker = createBullQueue<TestJobs>({ connection: { url }, prefix, backoffMs: 10 });
    const gateway = createBullQueue<TestJobs>({ connection: { url }, prefix, backoffMs: 10 });
    openQueues.push(worker, gateway);
    const runs: string[] = [];
    worker.process('mail', async ({ to }) => {
      runs.push(to);
    });
    await worker.schedule('mail', { to: 'scheduled@example.com' }, { everyMs: 3_600_000 });
    await gateway.enqueue('mail', { to: 'ops@example.com' }, { jobId: 'mail-from-gateway' });

    await gateway.drain();

    expect(runs).toEqual(['ops@example.com']);
  });
});

// A cluster of the test's own, as the shared one's replica must not stall for other tests.
describe.skipIf(redisClusterUrl === undefined)('bullmq queue on a Redis Cluster', () => {
  it('answers an enqueue only once a replica of the queue’s master has the job, and fails it when none does in time', async () => {
    const cluster = await startRedisCluster();
    const prefix = uniquePrefix('queue-replica');
    // A second for the replica's answer, not the gateway's 150 ms: CI's loaded machine once left a healthy replica unscheduled for longer.
    const replicaAckTimeoutMs = 1_000;
    const queue = createBullQueue<TestJobs>({ connection: { url: cluster.url }, prefix, replicaAckTimeoutMs, onError: () => undefined });
    try {
      await queue.enqueue('raw', { value: 'replicated' }, { jobId: 'first' });
      const master = await cluster.masterOf(`{${prefix}}`);
      const replica = (await cluster.nodes()).find(({ masterPort }) => masterPort === master.port)!;
      await cluster.freeze(replica.port);
      const startedAt = performance.now();
      await expect(queue.enqueue('raw', { value: 'not replicated' }, { jobId: 'second' })).rejects.toThrow(/no replica .* within 1000 ms/);
      expect(performance.now() - startedAt, 'ms to give up').toBeLessThan(replicaAckTimeoutMs + 2_000);
      await cluster.thaw(replica.port);
      // The thawed replica first catches up on what it missed (on a loaded machine, longer than one enqueue's 150 ms);
      // then enqueues are answered again (the same job id each try: one job).
      const enqueued = () => queue.enqueue('raw', { value: 'replicated again' }, { jobId: 'third' }).then(() => true, () => false);
      await expect.poll(enqueued, { timeout: 10_000, interval: 200 }).toBe(true);
    } finally {
      await queue.close();
      await cluster.stop();
    }
  }, 60_000);
});

describe('in-process queue at shutdown', () => {
  it('finishes what a stop would lose, not a resumable job that hands on work, and does not report that one failing as it closes', async () => {
    const reported: ReportedError[] = [];
    const queue = createInProcessQueue<TestJobs>({ backoffMs: 10, onError: (error, context) => reported.push({ error, context }) });
    let days = 0;
    // A job that hands the next piece of its work on to the queue, for as long as it is let.
    queue.process(
      'raw',
      async () => {
        days += 1;
        await sleep(5);
        await queue.enqueue('raw', { value: days }, { jobId: `day-${days}` });
      },
      { resumable: true },
    );
    const sent: string[] = [];
    queue.process('mail', async ({ to }) => {
      await sleep(50);
      sent.push(to);
    });
    await queue.enqueue('raw', { value: 0 }, { jobId: 'day-0' });
    await queue.enqueue('mail', { to: 'ops@example.com' }, { jobId: 'mail-1' });

    await queue.drainForShutdown();
    expect(sent).toEqual(['ops@example.com']);
    await queue.close();
    const handedOn = days;
    await sleep(50);
    expect(days).toBe(handedOn);
    expect(reported).toEqual([]);
  });
});
