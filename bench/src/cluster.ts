/**
 * The bench's cluster topology (`--topology cluster`): `npm run topology`'s 3 gateways
 * behind HAProxy, 2 workers, a Redis Cluster and PostgreSQL with a streaming replica
 * (tools/topology), the mock upstream allowed. Its gateways are not the bench's children,
 * so what the single topology asks its forked gateway is read from the topology's primary
 * database instead: the code mailed to an address, and how many usage events the workers
 * have written. Each group of its processes (gateways, workers, HAProxy) is measured from
 * /proc, summed.
 */
import { listOutboxMail, openSqlStore, type SqlStore } from '@spendgate/store';
import { DEFAULT_RUN_DIR, type Topology, topologyDown, topologyUp } from '../../tools/topology/topology.ts';
import { readProcessStats, readRunQueueWaitMs } from './machine.ts';
import type { ProcessStats } from './protocol.ts';

export const CLUSTER_GATEWAYS = 3;
export const CLUSTER_WORKERS = 2;
/** How often the usage events are counted while waiting for the workers. */
const POLL_MS = 100;

/** Processes measured together: their CPU and memory summed (as one bench child's would be). */
export interface ProcessGroup {
  name: 'gateway' | 'worker' | 'haproxy';
  pids: number[];
}

export interface BenchCluster {
  topology: Topology;
  groups: ProcessGroup[];
  /** The one-time code in the newest message mailed to `email` (the mail outbox of the primary). */
  mailedCode(email: string): Promise<string>;
  /** How many usage events the group has on the primary. */
  usageEvents(groupId: string): Promise<number>;
  /**
   * Waits until the group has at least `atLeast` usage events; answers how long that
   * took in ms, or undefined if it had not within `timeoutMs`.
   */
  waitForUsageEvents(groupId: string, atLeast: number, timeoutMs: number): Promise<number | undefined>;
  /** Closes the database connection and takes the whole topology down. */
  close(): Promise<void>;
}

/** Brings the topology up in `.topology/` (so `npm run topology -- down` also stops it after a crash). */
export async function startBenchCluster(env: Record<string, string>): Promise<BenchCluster> {
  const topology = await topologyUp({ gateways: CLUSTER_GATEWAYS, workers: CLUSTER_WORKERS, runDir: DEFAULT_RUN_DIR, env });
  let store: SqlStore;
  try {
    store = await openSqlStore({ kind: 'postgres', url: topology.databaseUrl, poolSize: 2 });
  } catch (error) {
    await topologyDown(topology.runDir);
    throw error;
  }
  const pidsOf = (prefix: string) => topology.processes.filter((started) => started.name.startsWith(prefix)).map((started) => started.pid);
  const usageEvents = async (groupId: string) => {
    const { count } = await store.db
      .selectFrom('usage_events')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('group_id', '=', groupId)
      .executeTakeFirstOrThrow();
    return Number(count);
  };
  return {
    topology,
    groups: [
      { name: 'gateway', pids: pidsOf('gateway-') },
      { name: 'worker', pids: pidsOf('worker-') },
      { name: 'haproxy', pids: pidsOf('haproxy') },
    ],
    mailedCode: async (email) => {
      const newest = (await listOutboxMail(store.db, email)).at(-1);
      const code = newest && /^\s+(\d{6})\s*$/m.exec(newest.text_body)?.[1];
      if (!code) throw new Error(`no code mailed to ${email}`);
      return code;
    },
    usageEvents,
    waitForUsageEvents: async (groupId, atLeast, timeoutMs) => {
      const startedAt = performance.now();
      while ((await usageEvents(groupId)) < atLeast) {
        if (performance.now() - startedAt > timeoutMs) return undefined;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      return performance.now() - startedAt;
    },
    close: async () => {
      await store.close();
      await topologyDown(topology.runDir);
    },
  };
}

/** The group's CPU times and RSS summed over its processes still running, read from /proc. */
export function groupStats(group: ProcessGroup): ProcessStats {
  const atMs = performance.timeOrigin + performance.now();
  const sum: ProcessStats = { cpuUserMicros: 0, cpuSystemMicros: 0, rssBytes: 0, atMs };
  for (const pid of group.pids) {
    const stats = readProcessStats(pid);
    if (!stats) continue;
    sum.cpuUserMicros += stats.cpuUserMicros;
    sum.cpuSystemMicros += stats.cpuSystemMicros;
    sum.rssBytes += stats.rssBytes;
  }
  return sum;
}

/** How long the group's processes have waited for a core so far, summed, in ms (Linux schedstat). */
export function groupRunQueueWaitMs(group: ProcessGroup): number | undefined {
  const waits = group.pids.map(readRunQueueWaitMs).filter((waited): waited is number => waited !== undefined);
  return waits.length ? waits.reduce((sum, waited) => sum + waited, 0) : undefined;
}
