/**
 * The messages between the harness and its child processes (over Node's IPC channel).
 * A child announces itself once with `ChildReady`; then the harness sends
 * `CommandMessage`s and the child answers each with a `ReplyMessage` of the same id.
 */

/** CPU time and memory of one process at one moment (for CPU% over a cell). */
export interface ProcessStats {
  cpuUserMicros: number;
  cpuSystemMicros: number;
  rssBytes: number;
  /** performance.timeOrigin + performance.now(), in ms. */
  atMs: number;
}

/** The gateway's `runtime` command: its JavaScript heap now, its event loop since the last call. */
export interface GatewayRuntime {
  heapUsedBytes: number;
  heapTotalBytes: number;
  /** Memory of C++ objects bound to JavaScript ones (Buffers among them). */
  externalBytes: number;
  /** How late the event loop ran what was due (monitorEventLoopDelay, its 10 ms timer period subtracted). */
  loopDelay: { p99Ms: number; maxMs: number };
}

export interface ChildReady {
  kind: 'ready';
  /** Where a server child listens, e.g. http://127.0.0.1:40123. */
  url?: string;
}

export interface CommandMessage {
  kind: 'command';
  id: number;
  command: string;
  args?: unknown;
}

export type ReplyMessage = { kind: 'reply'; id: number; ok: true; result: unknown } | { kind: 'reply'; id: number; ok: false; error: string };

/** Commands every child answers. */
export const STATS_COMMAND = 'stats';
export const SHUTDOWN_COMMAND = 'shutdown';

export function isMessage<K extends string>(value: unknown, kind: K): value is { kind: K } {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === kind;
}

export function processStats(): ProcessStats {
  const cpu = process.cpuUsage();
  return {
    cpuUserMicros: cpu.user,
    cpuSystemMicros: cpu.system,
    rssBytes: process.memoryUsage.rss(),
    atMs: performance.timeOrigin + performance.now(),
  };
}

/** CPU used between two snapshots, as % of one core (100 = one core busy the whole time). */
export function cpuPercent(before: ProcessStats, after: ProcessStats): number {
  const cpuMicros = after.cpuUserMicros + after.cpuSystemMicros - (before.cpuUserMicros + before.cpuSystemMicros);
  const wallMicros = (after.atMs - before.atMs) * 1000;
  return wallMicros > 0 ? (100 * cpuMicros) / wallMicros : 0;
}
