// A background process lowering its own priority (the scaled mode's worker), in a real
// process: the idle policy at the nice value it had (or nicer where the idle policy
// cannot be left again), raised while its own work waits, lowered again after a while.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { getPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { canUseIdlePolicy, HOLD_MS, STARVED_MS } from './cpu-priority.ts';
import { loweredPriority, priorityOf, SCHED_IDLE, SCHED_NORMAL, schedulingPolicy } from './testing/processes.ts';

const idlePolicy = await canUseIdlePolicy();

/** A process that lowers its own priority, then busies its event loop for as many ms as it is sent. */
const SCRIPT = `
  import { lowerOwnPriority } from ${JSON.stringify(new URL('./cpu-priority.ts', import.meta.url).href)};
  await lowerOwnPriority();
  process.stdout.write('ready\\n');
  process.stdin.on('data', (data) => {
    const until = Date.now() + Number(data);
    while (Date.now() < until);
    process.stdout.write('done\\n');
  });
`;

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function start(): Promise<ChildProcessWithoutNullStreams & { pid: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT]);
  children.push(child);
  await said(child, 'ready');
  return child as ChildProcessWithoutNullStreams & { pid: number };
}

function said(child: ChildProcessWithoutNullStreams, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (data: Buffer) => {
      if (!data.toString().includes(line)) return;
      child.stdout.off('data', onData);
      resolve();
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the process exited (code ${code})`)));
  });
}

async function policyBecomes(pid: number, policy: number, withinMs: number): Promise<number> {
  const until = Date.now() + withinMs;
  while (schedulingPolicy(pid) !== policy && Date.now() < until) await sleep(20);
  return schedulingPolicy(pid);
}

describe.skipIf(process.platform !== 'linux')('lowerOwnPriority', () => {
  it('runs the process in the idle policy where it can be raised again, else nicer than it was', async () => {
    const child = await start();
    expect(priorityOf(child.pid)).toEqual(loweredPriority(idlePolicy));
  });

  it.skipIf(!idlePolicy)(
    'leaves the idle policy once its own work has waited too long, and goes back when none has for a while',
    async () => {
      const child = await start();
      // Short waits leave it where it is.
      child.stdin.write(String(STARVED_MS / 2));
      await said(child, 'done');
      await sleep(STARVED_MS);
      expect(schedulingPolicy(child.pid)).toBe(SCHED_IDLE);

      // Its event loop busy past STARVED_MS: the watch runs that late, as it does when the process starves for CPU.
      child.stdin.write(String(2 * STARVED_MS));
      await said(child, 'done');
      expect(await policyBecomes(child.pid, SCHED_NORMAL, 2_000)).toBe(SCHED_NORMAL);
      expect(priorityOf(child.pid)).toEqual({ policy: SCHED_NORMAL, nice: getPriority() });

      expect(await policyBecomes(child.pid, SCHED_IDLE, HOLD_MS + 2_000)).toBe(SCHED_IDLE);
    },
    HOLD_MS + 10_000,
  );
});
