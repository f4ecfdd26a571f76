/**
 * The usage outbox: a usage event the queue cannot take (Redis unreachable, or too slow
 * to answer) is kept in the database and handed to the queue once it answers again,
 * oldest first, by a delivery loop in every gateway. The meter claims each request id,
 * so an event delivered twice (by two gateways, or after an enqueue that only seemed to
 * fail) is still recorded once.
 */
import { randomUUID } from 'node:crypto';
import type { JobPayloads, JobQueue, SqlStore, UsageEventJob } from '@spendgate/store';
import { deleteUsageOutbox, insertUsageOutbox, listUsageOutbox } from '@spendgate/store';
import type { FastifyBaseLogger } from 'fastify';

const DELIVERY_BATCH = 200;

export function createUsageOutbox(deps: { sql: SqlStore; queue: JobQueue<JobPayloads>; log: FastifyBaseLogger; intervalMs?: number }) {
  const intervalMs = deps.intervalMs ?? 1_000;
  let timer: NodeJS.Timeout | undefined;
  let delivering: Promise<number> | undefined;

  /** Hands kept events to the queue, a batch per job, until none is left or the queue refuses; answers how many went. */
  async function deliverAll(): Promise<number> {
    let delivered = 0;
    for (;;) {
      const rows = await listUsageOutbox(deps.sql.db, DELIVERY_BATCH);
      const done: string[] = [];
      try {
        if (rows.length > 0) {
          await deps.queue.enqueue('meter', { events: rows.map((row) => row.payload as UsageEventJob) }, { jobId: randomUUID() });
          done.push(...rows.map((row) => row.request_id));
        }
      } finally {
        await deleteUsageOutbox(deps.sql.db, done);
        delivered += done.length;
      }
      if (rows.length < DELIVERY_BATCH) return delivered;
    }
  }

  const deliver = (): Promise<number> => {
    delivering ??= deliverAll().finally(() => {
      delivering = undefined;
    });
    return delivering;
  };

  return {
    /** Keeps events for later delivery. */
    keep: (events: UsageEventJob[]) => insertUsageOutbox(deps.sql.db, events.map((event) => ({ requestId: event.requestId, payload: event }))),

    deliver,

    /** Delivers what earlier runs left, then keeps delivering every `intervalMs`. */
    start(): void {
      const tick = () => {
        deliver()
          .then((count) => {
            if (count > 0) deps.log.info({ count }, 'usage outbox: delivered kept usage events to the queue');
          })
          .catch(() => {
            // The queue or the database is still away: the events stay kept; try again next tick.
          })
          .finally(() => {
            if (timer !== undefined) timer = setTimeout(tick, intervalMs).unref();
          });
      };
      timer = setTimeout(tick, 0).unref();
    },

    async stop(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      await delivering?.catch(() => undefined);
    },
  };
}

export type UsageOutbox = ReturnType<typeof createUsageOutbox>;
