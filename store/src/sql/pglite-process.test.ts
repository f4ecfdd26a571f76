// PGlite in its own process: values and PostgreSQL's errors cross the process boundary
// intact, a dump clones the database, it yields the CPU to its parent but not to the point
// of starving, and the process never outlives its use — closed, killed, or orphaned by its parent.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism, getPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { canUseIdlePolicy, HOLD_MS } from '../cpu-priority.ts';
import { loweredPriority, priorityOf, SCHED_IDLE, SCHED_NORMAL, schedulingPolicy, statFields } from '../testing/processes.ts';
import { openPGliteProcess, type PGliteProcess } from './pglite-process.ts';

const idlePolicy = await canUseIdlePolicy();

const openFromTemplate = async () =>
  openPGliteProcess({ loadDataDir: new Blob([await readFile(inject('pgliteTemplatePath'))]) });

/** Whether the process exists and has not exited (an exited orphan nobody has reaped yet is a zombie). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  // Field 3 is the state.
  return !existsSync(`/proc/${pid}/stat`) || statFields(pid)[0] !== 'Z';
}

async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

describe('PGlite process', () => {
  const opened: PGliteProcess[] = [];
  const open = async () => {
    const database = await openFromTemplate();
    opened.push(database);
    return database;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.close()));
  });

  it('returns int8 as BigInt and timestamps as Date, and takes them as parameters', async () => {
    const database = await open();
    const at = new Date('2026-11-15T12:34:56.789Z');
    const { rows } = await database.query('select $1::int8 as big, $2::timestamptz as at, $3::bytea as bytes, null::int8 as nothing', [
      9_007_199_254_740_993n,
      at,
      new Uint8Array([1, 2, 255]),
    ]);
    const [row] = rows as { big: unknown; at: unknown; bytes: Uint8Array; nothing: unknown }[];
    expect(row!.big).toBe(9_007_199_254_740_993n);
    expect(row!.at).toBeInstanceOf(Date);
    expect((row!.at as Date).toISOString()).toBe(at.toISOString());
    expect([...row!.bytes]).toEqual([1, 2, 255]);
    expect(row!.nothing).toBeNull();
  });

  it("rejects a failed statement with PostgreSQL's error fields", async () => {
    const database = await open();
    await database.query('create table pglite_process_test (id int primary key)', []);
    expect((await database.query('insert into pglite_process_test values (1), (2)', [])).affectedRows).toBe(2);

    const duplicate = await database.query('insert into pglite_process_test values (1)', []).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).toMatchObject({
      message: expect.stringContaining('duplicate key value violates unique constraint'),
      code: '23505',
      constraint: 'pglite_process_test_pkey',
      table: 'pglite_process_test',
      detail: 'Key (id)=(1) already exists.',
    });
    await expect(database.query('selec 1', [])).rejects.toMatchObject({ code: '42601', position: '1' });
    // The failed statements left the database usable.
    expect((await database.query('select count(*)::int8 as n from pglite_process_test', [])).rows).toEqual([{ n: 2n }]);
  });

  it('runs each statement prepared: again after its table changed, and after hundreds of others', async () => {
    const database = await open();
    await database.query('create table pglite_process_prepared (id int)', []);
    await database.query('insert into pglite_process_prepared values ($1), ($2)', [1, 2]);
    const everything = 'select * from pglite_process_prepared order by id';
    expect((await database.query(everything, [])).rows).toEqual([{ id: 1 }, { id: 2 }]);
    // The prepared plan's columns no longer match the table: it is prepared again.
    await database.query("alter table pglite_process_prepared add column note text default 'new'", []);
    expect((await database.query(everything, [])).rows).toEqual([
      { id: 1, note: 'new' },
      { id: 2, note: 'new' },
    ]);
    // Past the statements kept prepared, the oldest are closed; each still runs, with its parameters.
    for (let n = 0; n < 300; n++) expect((await database.query(`select $1::int + ${n} as sum`, [n])).rows).toEqual([{ sum: 2 * n }]);
    expect((await database.query(`select $1::int + 0 as sum`, [7])).rows).toEqual([{ sum: 7 }]);
    expect((await database.query('select count(*)::int as prepared from pg_prepared_statements', [])).rows).toEqual([{ prepared: 256 }]);
  });

  it('clones a database through dump()', async () => {
    const original = await open();
    await original.query('create table pglite_process_clone (note text)', []);
    await original.query("insert into pglite_process_clone values ('kept')", []);
    const dump = await original.dump();
    expect(dump).toBeInstanceOf(Blob);

    const clone = await openPGliteProcess({ loadDataDir: dump });
    opened.push(clone);
    expect(clone.pid).not.toBe(original.pid);
    await clone.query("insert into pglite_process_clone values ('clone only')", []);
    expect((await clone.query('select note from pglite_process_clone order by note', [])).rows).toEqual([
      { note: 'clone only' },
      { note: 'kept' },
    ]);
    expect((await original.query('select note from pglite_process_clone', [])).rows).toEqual([{ note: 'kept' }]);
  });

  it.skipIf(!existsSync('/proc/self/cmdline'))('runs the server module on plain Node, without its parent’s flags', async () => {
    const database = await open();
    const commandLine = readFileSync(`/proc/${database.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(commandLine).toHaveLength(2);
    expect(commandLine[0]).toBe(process.execPath);
    expect(commandLine[1]).toMatch(/pglite-server\.mjs$/);
  });

  it('runs in the idle scheduling policy where it can be raised again, else nicer than its parent', async () => {
    const database = await open();
    expect(priorityOf(database.pid)).toEqual(loweredPriority(idlePolicy));
  });

  it.skipIf(!idlePolicy)(
    'leaves the idle policy while a statement starves for CPU, and goes back when none has for a while',
    async () => {
      const database = await open();
      expect(schedulingPolicy(database.pid)).toBe(SCHED_IDLE);
      // Every core busy at normal priority: an idle-policy process gets next to no CPU. Two
      // per core: with the kernel's autogroups, a core where the process met no busy-loop of
      // its own group would give it that group's share while other sessions load the machine.
      const hogs = Array.from({ length: 2 * availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
      try {
        await sleep(200);
        const answered = await database.query('select count(*) as n from generate_series(1, 100000)', []);
        expect(answered.rows).toEqual([{ n: 100000n }]);
        expect(priorityOf(database.pid)).toEqual({ policy: SCHED_NORMAL, nice: getPriority() });
      } finally {
        for (const hog of hogs) hog.kill('SIGKILL');
      }
      await sleep(HOLD_MS + 500);
      expect(schedulingPolicy(database.pid)).toBe(SCHED_IDLE);
    },
    HOLD_MS + 15_000,
  );

  it('ends its process on close(), after which queries are refused', async () => {
    const database = await openFromTemplate();
    expect(isRunning(database.pid)).toBe(true);
    await database.close();
    expect(isRunning(database.pid)).toBe(false);
    await expect(database.query('select 1', [])).rejects.toThrow('the PGlite process is closed');
    await database.close();
  });

  it('keeps answering when SIGINT or SIGTERM reaches it: its parent closes it', async () => {
    const database = await open();
    process.kill(database.pid, 'SIGINT');
    process.kill(database.pid, 'SIGTERM');
    await sleep(200);
    expect((await database.query('select 1 as one', [])).rows).toEqual([{ one: 1 }]);
  });

  it('rejects the query in flight and every later one when its process dies', async () => {
    const database = await openFromTemplate();
    const inFlight = database.query('select pg_sleep(20)', []);
    await sleep(200);
    process.kill(database.pid, 'SIGKILL');
    await expect(inFlight).rejects.toThrow('the PGlite process exited (SIGKILL)');
    await expect(database.query('select 1', [])).rejects.toThrow('the PGlite process exited (SIGKILL)');
    await database.close();
    expect(isRunning(database.pid)).toBe(false);
  });

  it('exits when its parent dies without closing it', async () => {
    const script = `
      import { readFile } from 'node:fs/promises';
      import { openPGliteProcess } from ${JSON.stringify(new URL('./pglite-process.ts', import.meta.url).href)};
      const database = await openPGliteProcess({ loadDataDir: new Blob([await readFile(process.env.TEMPLATE)]) });
      console.log(database.pid);
    `;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, TEMPLATE: inject('pgliteTemplatePath') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const parentExited = new Promise((resolve) => parent.once('exit', resolve));
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (data: Buffer) => resolve(Number(data.toString())));
      parent.once('exit', (code) => reject(new Error(`the parent exited first (code ${code})`)));
    });
    expect(isRunning(pid)).toBe(true);
    parent.kill('SIGKILL');
    await parentExited;
    expect(await waitUntilGone(pid, 10_000)).toBe(true);
  });
});
