// What Linux's /proc tells of a process: its fields and its main thread's scheduling policy.
import { readFileSync } from 'node:fs';

export const SCHED_NORMAL = 0;
export const SCHED_IDLE = 5;

/** Fields 3 on of /proc/<pid>/stat (those after the command name, which is in parentheses and may hold spaces). */
export function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The scheduling policy a process's main thread runs under: field 41. */
export const schedulingPolicy = (pid: number) => Number(statFields(pid)[41 - 3]);
