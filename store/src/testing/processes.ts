// What Linux's /proc tells of a process: its fields and its main thread's scheduling policy.
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { NICENESS } from '../cpu-priority.ts';

export const SCHED_NORMAL = 0;
export const SCHED_IDLE = 5;

/** Fields 3 on of /proc/<pid>/stat (those after the command name, which is in parentheses and may hold spaces). */
export function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The scheduling policy a process's main thread runs under: field 41. */
export const schedulingPolicy = (pid: number) => Number(statFields(pid)[41 - 3]);

/** A process's scheduling policy and nice value. */
export const priorityOf = (pid: number) => ({ policy: schedulingPolicy(pid), nice: getPriority(pid) });

/** Where cpu-priority.ts lowers a process started at this one's nice value: the idle policy where it may, else nicer. */
export const loweredPriority = (idlePolicy: boolean) =>
  idlePolicy ? { policy: SCHED_IDLE, nice: getPriority() } : { policy: SCHED_NORMAL, nice: Math.min(19, getPriority() + NICENESS) };
