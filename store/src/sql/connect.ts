// Opens the SQL database: PostgreSQL when a URL is given, else PGlite (embedded) in a
// data directory, in a child process of its own. Both come back as one
// Kysely<Database> with int8 read as bigint.
import { mkdir } from 'node:fs/promises';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { openPGliteProcess, type PGliteLocation } from './pglite-process.ts';
import type { Database } from './schema.ts';

export interface SqlStore {
  db: Kysely<Database>;
  kind: 'postgres' | 'pglite';
  close(): Promise<void>;
  /** Embedded only: a snapshot of the data directory (tests clone a migrated template). */
  dump?(): Promise<Blob>;
  /** Embedded only: the process id of PGlite's database process. */
  pid?: number;
}

export type SqlLocation =
  | { kind: 'postgres'; url: string; poolSize?: number }
  | ({ kind: 'pglite' } & PGliteLocation);

const INT8_OID = 20;

/** PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR/pg. */
export function sqlLocationFor(config: Pick<Config, 'databaseUrl' | 'dataDir'>): SqlLocation {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl }
    : { kind: 'pglite', dataDir: `${config.dataDir}/pg` };
}

export async function openSqlStore(location: SqlLocation): Promise<SqlStore> {
  if (location.kind === 'postgres') {
    const pool = new pg.Pool({
      connectionString: location.url,
      max: location.poolSize ?? 10,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? BigInt : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client whose server connection ends (a PostgreSQL restart, a dropped
    // database) is removed from the pool; without a listener that would crash the process.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  if (location.dataDir) await mkdir(location.dataDir, { recursive: true });
  const database = await openPGliteProcess({ dataDir: location.dataDir, loadDataDir: location.loadDataDir });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(database) });
  return {
    db,
    kind: 'pglite',
    close: async () => {
      await db.destroy();
      await database.close();
    },
    dump: () => database.dump(),
    pid: database.pid,
  };
}
