// The embedded database in a process of its own: PGlite runs in a child process
// (pglite-server.mjs, forked), like PostgreSQL in the scaled mode. Its statements never
// occupy the event loop that serves requests, and its memory — the WebAssembly heap
// with PostgreSQL's buffer pool, 150–190 MiB — is not in the caller's (the gateway's)
// RSS. Statements go one message each ({sql, params}) over the IPC channel with V8
// serialisation, which keeps int8 (BigInt) and date/timestamp (Date) values intact.
// Once open, it runs at a lower CPU priority than its parent (../cpu-priority.ts).
// The process ends with its channel: on close(), or when the parent exits in any way;
// while it opens (its WebAssembly running, deaf to its channel) the parent's exit kills it.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lowerPriority } from '../cpu-priority.ts';

export interface PGliteLocation {
  /** undefined = in memory. */
  dataDir?: string;
  /** Start from a dump (tests' migrated template). */
  loadDataDir?: Blob;
}

export interface StatementResult {
  rows: unknown[];
  affectedRows?: number;
}

/** A request to the database process. Blobs do not survive V8 serialisation: a dump travels as bytes. */
export type PGliteRequest =
  | { kind: 'open'; dataDir?: string; loadDataDir?: Uint8Array<ArrayBuffer> }
  | { kind: 'query'; sql: string; params: readonly unknown[] }
  | { kind: 'dump' };

/** A PostgreSQL error's message and fields (code, constraint, detail…), which serialising an Error would drop. */
export type ErrorFields = { message: string } & Record<string, string | number>;

/** The answer to request `id`; id 0 is the process's start (it listens). */
export type PGliteReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: ErrorFields };

export interface PGliteProcess {
  /** The database process's id. */
  readonly pid: number;
  query(sql: string, params: readonly unknown[]): Promise<StatementResult>;
  /** A snapshot of the data directory (tests clone a migrated template). */
  dump(): Promise<Blob>;
  /**
   * Closes PGlite and resolves when its process has exited; until then the caller's
   * process stays alive (the IPC channel holds its event loop).
   */
  close(): Promise<void>;
}

const SERVER_ENTRY = fileURLToPath(new URL('./pglite-server.mjs', import.meta.url));
/** PGlite closes in well under a second; a process still there after this is killed. */
const CLOSE_TIMEOUT_MS = 15_000;

/**
 * Opens PGlite in a new child process. A data directory that does not hold a database
 * yet is created in a process of its own, which is then closed: creating one (initdb)
 * grows PGlite's WebAssembly heap, which never shrinks — kept, ~500 MiB more RSS for
 * the life of the database process (~750 MiB instead of ~230). It is created beside
 * (`<dataDir>.creating`) and then moved in place, so a creation cut short (the server
 * stopped while it runs) leaves no half-made database.
 *
 * @example
 *   const db = await openPGliteProcess({ dataDir: 'data/pg' });
 *   const { rows } = await db.query('select $1::int8 as n', [1n]); // [{ n: 1n }]
 *   await db.close();
 */
export async function openPGliteProcess(location: PGliteLocation): Promise<PGliteProcess> {
  if (location.dataDir && !existsSync(path.join(location.dataDir, 'PG_VERSION'))) {
    const creating = `${location.dataDir}.creating`;
    await rm(creating, { recursive: true, force: true });
    await (await startPGliteProcess({ dataDir: creating })).close();
    await rm(location.dataDir, { recursive: true, force: true });
    await rename(creating, location.dataDir);
  }
  return startPGliteProcess(location);
}

async function startPGliteProcess(location: PGliteLocation): Promise<PGliteProcess> {
  const child = fork(SERVER_ENTRY, [], {
    // Plain JavaScript: none of the parent's flags (a TypeScript loader, --inspect) are needed.
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  /** Requests sent and not answered yet, oldest first. */
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void; sentAt: number }>();
  let nextId = 1;
  let stopped: Error | undefined;

  const stop = (error: Error) => {
    stopped ??= error;
    for (const { reject } of pending.values()) reject(stopped);
    pending.clear();
  };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      stop(new Error(`the PGlite process exited (${signal ?? `code ${code}`})`));
      resolve({ code, signal });
    });
  });
  child.on('error', stop);
  child.on('message', (reply: PGliteReply) => {
    const caller = pending.get(reply.id);
    if (!caller) return;
    pending.delete(reply.id);
    if (reply.ok) caller.resolve(reply.result);
    else caller.reject(Object.assign(new Error(reply.error.message), reply.error));
  });

  // Opening runs PGlite's WebAssembly without a break, so the process would not hear its
  // channel close: should this process exit meanwhile, it is killed instead.
  const killWhileOpening = () => child.kill('SIGKILL');
  process.once('exit', killWhileOpening);
  const listening = new Promise((resolve, reject) => pending.set(0, { resolve, reject, sentAt: Date.now() }));
  const call = <T>(request: PGliteRequest): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (result: unknown) => void, reject, sentAt: Date.now() });
      child.send({ id, ...request }, (error) => error && stop(error));
    });
  };

  try {
    await listening;
    const loadDataDir = location.loadDataDir && new Uint8Array(await location.loadDataDir.arrayBuffer());
    await call({ kind: 'open', dataDir: location.dataDir, loadDataDir });
    const stopWatching = await lowerPriority(child.pid!, () => {
      const oldest = pending.values().next().value;
      return oldest ? Date.now() - oldest.sentAt : 0;
    });
    child.once('exit', stopWatching);
  } catch (error) {
    await shutDown(child, exited).catch(() => {});
    throw error;
  } finally {
    process.off('exit', killWhileOpening);
  }
  return {
    pid: child.pid!,
    query: (sql, params) => call({ kind: 'query', sql, params }),
    dump: async () => new Blob([await call<Uint8Array<ArrayBuffer>>({ kind: 'dump' })]),
    close: async () => {
      stop(new Error('the PGlite process is closed'));
      await shutDown(child, exited);
    },
  };
}

/**
 * Disconnects the database process, which closes PGlite and exits, and waits for its
 * exit. A process that has not exited within CLOSE_TIMEOUT_MS is killed.
 */
async function shutDown(
  child: ChildProcess,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_TIMEOUT_MS);
  const { code, signal } = await exited.finally(() => clearTimeout(timer));
  if (code !== 0) throw new Error(`the PGlite process did not close cleanly (${signal ?? `code ${code}`})`);
}
