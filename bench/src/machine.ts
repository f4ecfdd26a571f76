/**
 * Machine-wide CPU time from /proc/stat (Linux), so a cell can say how much of the
 * machine's CPU went to processes that are not part of the bench (other engineers'
 * tests, a build) and how much the hypervisor stole — both make the numbers noisy.
 * Also the CPU and memory of processes the bench did not start itself (PostgreSQL and
 * Redis in the scaled mode, the gateway's PGlite process in the embedded mode), and how
 * long each process waited for a core.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { ProcessStats } from './protocol.ts';

export interface CpuTimes {
  /** user + nice + system + irq + softirq, in clock ticks, all cores summed. */
  busy: number;
  steal: number;
  /** Every field but guest time (already counted in user), all cores summed. */
  total: number;
}

/** The machine's CPU counters now, or undefined where /proc/stat does not exist. */
export function readCpuTimes(): CpuTimes | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    return { busy: user + nice + system + irq + softirq, steal, total: user + nice + system + idle + iowait + irq + softirq + steal };
  } catch {
    return undefined;
  }
}

/** Busy and stolen CPU between two readings, in % of one core (cores × 100 = all busy). */
export function machineCpuPercent(before: CpuTimes, after: CpuTimes, cores: number): { busy: number; steal: number } {
  const total = after.total - before.total;
  if (total <= 0) return { busy: 0, steal: 0 };
  return {
    busy: (100 * cores * (after.busy - before.busy)) / total,
    steal: (100 * cores * (after.steal - before.steal)) / total,
  };
}

/** Clock ticks per second of /proc's per-process times (USER_HZ; 100 on Linux). */
const USER_HZ = 100;

/**
 * One process's CPU time and resident memory now, read from /proc (as a bench child's
 * own `stats` reports them), or undefined without /proc or once the process is gone.
 */
export function readProcessStats(pid: number): ProcessStats | undefined {
  try {
    const atMs = performance.timeOrigin + performance.now();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    if (!Number.isFinite(rssKiB)) return undefined; // exited, not yet reaped
    // The fields after the command start with the state (field 3); utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksToMicros = 1e6 / USER_HZ;
    return {
      cpuUserMicros: Number(fields[11]) * ticksToMicros,
      cpuSystemMicros: Number(fields[12]) * ticksToMicros,
      rssBytes: rssKiB * 1024,
      atMs,
    };
  } catch {
    return undefined;
  }
}

/**
 * How long a process's main thread has waited so far for a core while runnable (Linux
 * schedstat), in ms, or undefined without it. Over a run, it shows when the machine,
 * not the process, held a server back: it had work, and every core was busy.
 */
export function readRunQueueWaitMs(pid: number): number | undefined {
  try {
    const waitNs = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
    return Number.isFinite(waitNs) ? waitNs / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used so far by every process `matches` selects by command name and
 * command line (e.g. this run's PostgreSQL backends and the Redis server), or undefined
 * without /proc. A process that exits between two readings is missed; servers are not.
 */
export function readProcessesCpuSeconds(matches: (command: string, commandLine: string) => boolean): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!matches(command, readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))) continue;
      // The fields after the command start with the state (field 3); utime and stime are fields 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended while we read it.
    }
  }
  return ticks / USER_HZ;
}
