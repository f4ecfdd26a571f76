// A Kysely dialect for PGlite (PostgreSQL compiled to WASM, one connection).
// Queries are serialised through one lock: a transaction holds it from begin to
// commit/rollback, so concurrent callers never interleave inside it.
import type { PGlite } from '@electric-sql/pglite';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Kysely,
  type QueryResult,
} from 'kysely';

class Lock {
  #tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ready = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

/**
 * PGlite runs each statement synchronously on this thread and a transaction's next
 * statement would follow in the same microtask run: letting pending I/O go first keeps
 * a transaction from holding the event loop for all of its statements at once.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

class PGliteConnection implements DatabaseConnection {
  constructor(readonly client: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    await yieldToEventLoop();
    const result = await this.client.query<R>(query.sql, query.parameters as unknown[]);
    const affected = result.affectedRows === undefined ? undefined : BigInt(result.affectedRows);
    return { rows: result.rows, numAffectedRows: affected };
  }

  // biome-ignore lint/correctness/useYield: PGlite has no cursors; streaming is not offered.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamQuery is not supported on PGlite');
  }
}

class PGliteDriver implements Driver {
  readonly #lock = new Lock();
  readonly #releases = new WeakMap<DatabaseConnection, () => void>();
  readonly #connection: PGliteConnection;

  constructor(client: PGlite) {
    this.#connection = new PGliteConnection(client);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.#lock.acquire();
    this.#releases.set(this.#connection, release);
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).client.exec('begin');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).client.exec('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).client.exec('rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#releases.get(connection)?.();
  }

  /** The PGlite instance is owned (and closed) by whoever opened it. */
  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  constructor(private readonly client: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new PGliteDriver(this.client);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
