// A Kysely dialect for PGlite (PostgreSQL compiled to WASM, one connection), which runs
// in a process of its own (pglite-process.ts). Queries are serialised through one lock: a
// transaction holds it from begin to commit/rollback, so concurrent callers never
// interleave inside it.
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import type { PGliteProcess } from './pglite-process.ts';

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

class PGliteConnection implements DatabaseConnection {
  constructor(readonly database: PGliteProcess) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.database.query(query.sql, query.parameters);
    const affected = result.affectedRows === undefined ? undefined : BigInt(result.affectedRows);
    return { rows: result.rows as R[], numAffectedRows: affected };
  }

  async run(statement: 'begin' | 'commit' | 'rollback'): Promise<void> {
    await this.database.query(statement, []);
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

  constructor(database: PGliteProcess) {
    this.#connection = new PGliteConnection(database);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.#lock.acquire();
    this.#releases.set(this.#connection, release);
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).run('begin');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).run('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PGliteConnection).run('rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#releases.get(connection)?.();
  }

  /** The PGlite process is owned (and closed) by whoever opened it. */
  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  constructor(private readonly database: PGliteProcess) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new PGliteDriver(this.database);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
