// CPU priority of Spendgate's background processes: the embedded database (mostly the
// meter's batched inserts, ~23 µs of CPU per usage event) and the scaled mode's BullMQ
// worker (~16 µs per event, plus PostgreSQL's work it asks for). Their work can wait a
// few milliseconds; the requests the gateway serves on the same machine cannot.
//
// On Linux with 2 or more cores such a process runs as SCHED_IDLE (set with util-linux's
// `chrt`). What counts is not its share of the CPU but where the scheduler wakes other
// processes: a core that runs only an idle-policy task counts as idle, so the gateway's
// clients and upstreams wake there instead of preempting the gateway. On 2 cores under
// the bench's closed loop (10 connections) that gave the gateway +22 % requests a second
// (json, embedded database) and +11 % (streams), with p99 0.7–0.9 ms lower, and +4–6 %
// in the scaled mode (the worker); a nice value, even 19, changed neither.
//
// An idle-policy process gets almost no CPU while every core is busy with other work
// (a build on the same machine), so work that has waited longer than STARVED_MS (a
// statement to the database; the worker's own event loop, as late as its watch ran)
// raises the process to the normal policy, at the nice value it had, until no work has
// starved for HOLD_MS: its work then waits a quarter of a second at most before it runs
// as it would have. Work queued before the database (the meter's next batches) is not
// seen: on a machine the gateway saturates, the database gets the cores' spare time and
// may fall behind by a second or so (see STARVED_MS).
//
// Leaving SCHED_IDLE takes CAP_SYS_NICE or a RLIMIT_NICE that allows the process's nice
// value; where that is missing (a probe tells, e.g. in a container), or `chrt` is, or
// there is one core, the process stays in the normal policy and runs NICENESS nicer.
import { execFile } from 'node:child_process';
import { availableParallelism, getPriority, setPriority } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** How much nicer a background process runs where the idle policy is not used. */
export const NICENESS = 10;
/**
 * Work that has waited this long means the idle policy starves the process. On 2 cores
 * under the bench at 10 connections, a batch of 1,000 usage events waited under 100 ms
 * for the embedded database; at 100 ms the watch raised it again and again and the
 * gateway lost what the idle policy gave it. At 50 connections (the machine saturated)
 * the meter's batches queue in the gateway before each statement is sent, so no
 * statement waits long while the backlog grows: within 10-second cells it reached 0.7 s
 * of events at 250 ms and 1 s at 1 s (gateway RSS up to 201 and 213 MiB against ≤ 175
 * before).
 */
export const STARVED_MS = 250;
/** Raised, the process stays in the normal policy until no work has starved for this long. */
export const HOLD_MS = 5_000;
/** How often the watch asks how long work has waited. */
const WATCH_MS = STARVED_MS / 4;

let idlePolicyReversible: Promise<boolean> | undefined;

/** Whether this process may put a process at its own nice value into SCHED_IDLE and take it out again, where that pays. */
export function canUseIdlePolicy(): Promise<boolean> {
  if (process.platform !== 'linux' || availableParallelism() < 2) return Promise.resolve(false);
  // A probe: idle, then back to normal (chrt fails when it may not).
  idlePolicyReversible ??= run('chrt', ['--idle', '0', 'chrt', '--other', '0', 'true']).then(
    () => true,
    () => false,
  );
  return idlePolicyReversible;
}

/** Sets the policy of the process's main thread (threads it starts later inherit it). */
const setPolicy = (pid: number, policy: '--idle' | '--other') => run('chrt', [policy, '--pid', '0', String(pid)]);

/**
 * Lowers a process's priority (this one's, or a child's running at this one's nice
 * value) and, under the idle policy, asks `waitedMs` every WATCH_MS how long the
 * process's oldest work has waited (0 when none), to raise it while it starves. The
 * watch runs in this process; `waitedMs` gets how late the watch itself ran, which is
 * how long this process's own work waited. Answers a stop for the watch, called when
 * the process ends.
 */
export async function lowerPriority(pid: number, waitedMs: (watchLateMs: number) => number): Promise<() => void> {
  const idlePolicySet = (await canUseIdlePolicy()) && (await setPolicy(pid, '--idle').then(() => true, () => false));
  if (!idlePolicySet) {
    try {
      setPriority(pid, Math.min(19, getPriority() + NICENESS));
    } catch {
      // Gone already (its exit is reported as such), or a system that refuses: it then
      // runs at its parent's priority, which is correct, only less kind to requests.
    }
    return () => {};
  }

  let idle = true;
  let switching = false;
  let lastStarvedAt = 0;
  let lastWatchAt = Date.now();
  const watch = setInterval(() => {
    const now = Date.now();
    const watchLateMs = now - lastWatchAt - WATCH_MS;
    lastWatchAt = now;
    if (waitedMs(watchLateMs) > STARVED_MS) lastStarvedAt = now;
    const wanted = now - lastStarvedAt >= HOLD_MS;
    if (switching || wanted === idle) return;
    switching = true;
    setPolicy(pid, wanted ? '--idle' : '--other')
      .then(() => {
        idle = wanted;
      })
      // The process is gone (its exit ends the watch), or its policy cannot change after all.
      .catch(() => clearInterval(watch))
      .finally(() => {
        switching = false;
      });
  }, WATCH_MS);
  watch.unref();
  return () => clearInterval(watch);
}

/**
 * Lowers this process's own priority (the scaled mode's worker): its work has starved
 * when its event loop ran the watch late.
 */
export const lowerOwnPriority = () => lowerPriority(process.pid, (watchLateMs) => watchLateMs);
