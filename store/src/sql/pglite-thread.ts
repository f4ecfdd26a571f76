// The embedded database on its own thread: PGlite runs in a worker (pglite-worker.mjs),
// so its statements never occupy the event loop that serves requests. Statements go
// one message each ({sql, params}); rows come back by structured clone, which keeps
// the worker's BigInt (int8) and Date (date/timestamp/timestamptz) values intact.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

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

export type PGliteRequest =
  | ({ kind: 'open' } & PGliteLocation)
  | { kind: 'query'; sql: string; params: readonly unknown[] }
  | { kind: 'dump' }
  | { kind: 'close' };

/** A PostgreSQL error's message and fields (code, constraint, detail…), which cloning an Error would drop. */
export type ErrorFields = { message: string } & Record<string, string | number>;

export type PGliteReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: ErrorFields };

export interface PGliteThread {
  query(sql: string, params: readonly unknown[]): Promise<StatementResult>;
  /** A snapshot of the data directory (tests clone a migrated template). */
  dump(): Promise<Blob>;
  /** Closes PGlite and ends the worker; until then the process stays alive. */
  close(): Promise<void>;
}

const WORKER_ENTRY = new URL('./pglite-worker.mjs', import.meta.url);

/**
 * Opens PGlite in a new worker thread. A data directory that does not hold a database
 * yet is created in a thread of its own, which is then closed: creating one (initdb)
 * leaves ~450 MiB in PGlite's WebAssembly memory, which never shrinks while its
 * thread lives.
 */
export async function openPGliteThread(location: PGliteLocation): Promise<PGliteThread> {
  if (location.dataDir && !existsSync(path.join(location.dataDir, 'PG_VERSION'))) {
    await (await startPGliteThread(location)).close();
  }
  return startPGliteThread(location);
}

async function startPGliteThread(location: PGliteLocation): Promise<PGliteThread> {
  const worker = new Worker(WORKER_ENTRY);
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let stopped: Error | undefined;

  const stop = (error: Error) => {
    stopped ??= error;
    for (const { reject } of pending.values()) reject(stopped);
    pending.clear();
  };
  worker.on('error', stop);
  worker.on('exit', (code) => stop(new Error(`the PGlite worker exited (code ${code})`)));
  worker.on('message', (reply: PGliteReply) => {
    const caller = pending.get(reply.id);
    if (!caller) return;
    pending.delete(reply.id);
    if (reply.ok) caller.resolve(reply.result);
    else caller.reject(Object.assign(new Error(reply.error.message), reply.error));
  });

  const call = <T>(request: PGliteRequest): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      worker.postMessage({ id, ...request });
    });
  };

  try {
    await call({ kind: 'open', ...location });
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return {
    query: (sql, params) => call({ kind: 'query', sql, params }),
    dump: () => call({ kind: 'dump' }),
    close: async () => {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      await call({ kind: 'close' });
      await exited;
    },
  };
}
