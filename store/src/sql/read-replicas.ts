/**
 * PostgreSQL read replicas (DATABASE_READ_URL, one or more): the dashboards', exports' and
 * analytics' reads go to them in turn, so those scans leave the primary to writes.
 *
 * Each replica's lag is measured every PROBE_INTERVAL_MS on the replica itself: 0 when it
 * has replayed all the WAL it received, else the seconds since the last transaction it
 * replayed was committed on the primary. A replica lagging past its limit
 * (DATABASE_READ_MAX_LAG_SECONDS) or failing its probe is skipped until a probe finds it
 * well again; with none well, reads go to the primary.
 *
 * The fresh-read rule: a read that must see the latest data asks the primary (`db`),
 * never `readDb`: budgets' spent, auth, sessions, keys, plans and subscriptions, and every
 * write's own reads. And a user who changed something reads from the primary for
 * FRESH_READ_MS after it (`wrote(userId)`, stamped by the API on every successful
 * non-GET request), so they always see their own change, even on a lagging replica. The
 * stamp lives in the process that served the change; in the scaled mode every gateway
 * also finds it in Redis (shared-fresh-reads.ts), so the rule holds behind a load balancer.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.ts';

const PROBE_INTERVAL_MS = 2_000;
/** A user reads from the primary this long after their last change. */
export const FRESH_READ_MS = 10_000;

export interface ReplicaLag {
  /** host:port/database, nothing secret. */
  replica: string;
  /** Seconds behind the primary at the last probe; undefined when the probe failed (unreachable). */
  lagSeconds: number | undefined;
  /** Whether reads go to it now. */
  serving: boolean;
}

export interface ReadReplicas {
  /** A well replica in turn for `userId`'s read, or the primary. */
  readDb(userId?: string): Kysely<Database>;
  wrote(userId: string): void;
  /** Whether `userId` changed something within the fresh-read window (this process's stamps only). */
  wroteRecently(userId: string): boolean;
  /** Each replica's lag at its last probe. */
  lag(): ReplicaLag[];
  /** Probes every replica now (tests; start-up). */
  probe(): Promise<void>;
  close(): Promise<void>;
}

interface Replica {
  name: string;
  db: Kysely<Database>;
  lagSeconds: number | undefined;
}

function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}`;
}

/** Read replicas over `urls`; with none, `readDb` is always `primary`. */
export function createReadReplicas(options: {
  primary: Kysely<Database>;
  urls: string[];
  maxLagSeconds: number;
  pool: (url: string) => pg.Pool;
  /** How long a user reads from the primary after a change (default FRESH_READ_MS). */
  freshReadMs?: number | undefined;
  now?: () => number;
}): ReadReplicas {
  const now = options.now ?? Date.now;
  const freshReadMs = options.freshReadMs ?? FRESH_READ_MS;
  const replicas: Replica[] = options.urls.map((url) => ({
    name: replicaName(url),
    db: new Kysely<Database>({ dialect: new PostgresDialect({ pool: options.pool(url) }) }),
    lagSeconds: undefined,
  }));
  const wroteAt = new Map<string, number>();
  const serving = (replica: Replica) => replica.lagSeconds !== undefined && replica.lagSeconds <= options.maxLagSeconds;
  let turn = 0;

  const probeOne = async (replica: Replica) => {
    try {
      const { rows } = await sql<{ lag: number | string }>`
        select case when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
                    else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()), 0) end as lag`.execute(replica.db);
      replica.lagSeconds = Math.max(0, Number(rows[0]!.lag));
    } catch {
      replica.lagSeconds = undefined;
    }
  };
  const probe = async () => {
    await Promise.all(replicas.map(probeOne));
    const stale = now() - freshReadMs;
    for (const [userId, at] of wroteAt) if (at < stale) wroteAt.delete(userId);
  };
  const timer = replicas.length > 0 ? setInterval(() => void probe(), PROBE_INTERVAL_MS) : undefined;
  timer?.unref();

  const wroteRecently = (userId: string) => now() - (wroteAt.get(userId) ?? Number.NEGATIVE_INFINITY) < freshReadMs;

  return {
    readDb(userId) {
      if (userId !== undefined && wroteRecently(userId)) return options.primary;
      for (let tried = 0; tried < replicas.length; tried++) {
        const replica = replicas[turn++ % replicas.length]!;
        if (serving(replica)) return replica.db;
      }
      return options.primary;
    },
    wrote(userId) {
      if (replicas.length > 0) wroteAt.set(userId, now());
    },
    wroteRecently,
    lag: () => replicas.map((replica) => ({ replica: replica.name, lagSeconds: replica.lagSeconds, serving: serving(replica) })),
    probe,
    async close() {
      clearInterval(timer);
      await Promise.all(replicas.map((replica) => replica.db.destroy()));
    },
  };
}
