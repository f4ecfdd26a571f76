// Opens the SQL database: PostgreSQL when a URL is given (with its read replicas, if
// any: read-replicas.ts), else PGlite (embedded) in a data directory, in a child process
// of its own. Both come back as one Kysely<Database> with int8 read as bigint.
import { mkdir } from 'node:fs/promises';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { openPGliteProcess, type PGliteLocation } from './pglite-process.ts';
import { createReadReplicas, FRESH_READ_MS, type ReplicaLag } from './read-replicas.ts';
import type { Database } from './schema.ts';

export interface SqlStore {
  db: Kysely<Database>;
  kind: 'postgres' | 'pglite';
  /**
   * For the dashboards', exports' and analytics' reads: a read replica in turn, or `db`
   * when there is none, none is well, or `userId` changed something a moment ago (the
   * fresh-read rule, read-replicas.ts). A read that needs fresh data uses `db`.
   */
  readDb(userId?: string): Promise<Kysely<Database>>;
  /** `userId` just changed something: their reads go to the primary for `freshReadMs`. */
  wrote(userId: string): Promise<void>;
  /** Whether `userId` changed something within the last `freshReadMs` (so reads the primary). */
  wroteRecently(userId: string): Promise<boolean>;
  /** How long a user reads from the primary after a change (read-replicas.ts' FRESH_READ_MS unless set). */
  freshReadMs: number;
  /** Each read replica's lag at its last probe (none in the embedded mode). */
  replicaLag(): ReplicaLag[];
  /** Measures every read replica's lag now (it is also measured every 2 s). */
  probeReplicas(): Promise<void>;
  close(): Promise<void>;
  /** Embedded only: a snapshot of the data directory (tests clone a migrated template). */
  dump?(): Promise<Blob>;
  /** Embedded only: the process id of PGlite's database process. */
  pid?: number;
}

export type SqlLocation =
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      readUrls?: string[] | undefined;
      maxReplicaLagSeconds?: number | undefined;
      /** The fresh-read window (default FRESH_READ_MS); tests shorten it. */
      freshReadMs?: number | undefined;
    }
  | ({ kind: 'pglite' } & PGliteLocation);

const INT8_OID = 20;
const DEFAULT_MAX_REPLICA_LAG_SECONDS = 30;

/** Read replicas to open beside the primary: the gateway's (DATABASE_READ_URL), no other process's. */
export interface ReadReplicaSettings {
  urls: string[];
  maxLagSeconds: number;
}

/** PostgreSQL (with `replicas`, if given) when DATABASE_URL is set, else PGlite in DATA_DIR/pg. */
export function sqlLocationFor(config: Pick<Config, 'databaseUrl' | 'dataDir'>, replicas?: ReadReplicaSettings): SqlLocation {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl, readUrls: replicas?.urls, maxReplicaLagSeconds: replicas?.maxLagSeconds }
    : { kind: 'pglite', dataDir: `${config.dataDir}/pg` };
}

function postgresPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? BigInt : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client whose server connection ends (a PostgreSQL restart, a dropped
  // database) is removed from the pool; without a listener that would crash the process.
  pool.on('error', () => {});
  return pool;
}

export async function openSqlStore(location: SqlLocation): Promise<SqlStore> {
  if (location.kind === 'postgres') {
    const poolSize = location.poolSize ?? 10;
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(location.url, poolSize) }) });
    const replicas = createReadReplicas({
      primary: db,
      urls: location.readUrls ?? [],
      maxLagSeconds: location.maxReplicaLagSeconds ?? DEFAULT_MAX_REPLICA_LAG_SECONDS,
      pool: (url) => postgresPool(url, poolSize),
      freshReadMs: location.freshReadMs,
    });
    await replicas.probe();
    return {
      db,
      kind: 'postgres',
      readDb: async (userId) => replicas.readDb(userId),
      wrote: async (userId) => replicas.wrote(userId),
      wroteRecently: async (userId) => replicas.wroteRecently(userId),
      freshReadMs: location.freshReadMs ?? FRESH_READ_MS,
      replicaLag: replicas.lag,
      probeReplicas: replicas.probe,
      close: async () => {
        await replicas.close();
        await db.destroy();
      },
    };
  }
  if (location.dataDir) await mkdir(location.dataDir, { recursive: true });
  const database = await openPGliteProcess({ dataDir: location.dataDir, loadDataDir: location.loadDataDir });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(database) });
  return {
    db,
    kind: 'pglite',
    readDb: async () => db,
    wrote: async () => {},
    wroteRecently: async () => false,
    freshReadMs: FRESH_READ_MS,
    replicaLag: () => [],
    probeReplicas: async () => {},
    close: async () => {
      await db.destroy();
      await database.close();
    },
    dump: () => database.dump(),
    pid: database.pid,
  };
}
