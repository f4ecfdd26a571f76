/**
 * A real PostgreSQL streaming replica for tests: `pg_basebackup -R` of a primary (by
 * default the server at 127.0.0.1:5432) into a directory of its own, then Debian's
 * PostgreSQL 15 started on it in hot standby on a second port, as the `postgres` OS user
 * (through `runuser` when we are root). It holds every database of the primary, so a
 * test database's replica URL is its primary URL with the replica's port.
 * `.ci/run` starts one for the scaled tests from the command line:
 *
 *   tsx store/src/testing/pg-replica.ts start <port> <dir>   # prints its URL
 *   tsx store/src/testing/pg-replica.ts stop <dir>
 *
 * The primary must let the postgres role open replication connections from 127.0.0.1
 * (a `host replication …` line in its pg_hba.conf); when it does not, start says so.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';
const DEFAULT_PRIMARY_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const READY_TIMEOUT_MS = 60_000;
/** Settings a hot standby must have at least as high as its primary's. */
const STANDBY_MINIMUMS = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

export const REPLICATION_REFUSED_HINT =
  'add the line "host replication postgres 127.0.0.1/32 trust" to its pg_hba.conf (psql -c "show hba_file" names it) and reload it (psql -c "select pg_reload_conf()")';

export interface RunningPgReplica {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: swap the database name with `replicaUrlOf`. */
  url: string;
  port: number;
  dir: string;
  /** Pauses applying the primary's WAL (`pg_wal_replay_pause()`): the replica's data stands still. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stop(): Promise<void>;
}

/** `databaseUrl` (a database on the primary) as served by the replica at `replicaUrl`. */
export function replicaUrlOf(databaseUrl: string, replicaUrl: string): string {
  const url = new URL(databaseUrl);
  const replica = new URL(replicaUrl);
  url.host = replica.host;
  return url.toString();
}

const asPostgres = (command: string, args: string[]) =>
  process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);

/** A free TCP port on loopback, for a replica a test starts and stops itself. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Stops the replica whose files are in `dir` (fast shutdown) and removes the directory. */
export async function stopPgReplica(dir: string): Promise<void> {
  await asPostgres(`${BIN}/pg_ctl`, ['-D', path.join(dir, 'data'), '-m', 'fast', '-w', 'stop']).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}

/** Takes the base backup, starts the standby on `port` and resolves once it accepts queries in recovery. */
export async function startPgReplica(options: { port?: number; dir?: string; primaryUrl?: string } = {}): Promise<RunningPgReplica> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? (await mkdtemp(path.join(tmpdir(), 'spendgate-pg-replica-')));
  const primary = new URL(options.primaryUrl ?? DEFAULT_PRIMARY_URL);
  const data = path.join(dir, 'data');
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    const settings = await query(primary.toString(), `select name, setting from pg_settings where name in (${STANDBY_MINIMUMS.map((name) => `'${name}'`).join(',')})`);
    await mkdir(dir, { recursive: true });
    if (process.getuid?.() === 0) await run('chown', ['postgres:postgres', dir]);
    await asPostgres(`${BIN}/pg_basebackup`, ['-h', primary.hostname, '-p', primary.port || '5432', '-U', primary.username || 'postgres', '-D', data, '-R', '-X', 'stream', '-c', 'fast']).catch(
      (error: { stderr?: string }) => {
        const refused = error.stderr?.includes('no pg_hba.conf entry for replication connection');
        throw new Error(refused ? `PostgreSQL at ${primary.host} refuses replication connections: ${REPLICATION_REFUSED_HINT}` : `pg_basebackup failed: ${error.stderr ?? error}`);
      },
    );
    // Debian keeps the primary's configuration outside its data directory: the standby gets its own.
    const conf = [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      'hot_standby = on',
      'hot_standby_feedback = on',
      'shared_buffers = 32MB',
      ...settings.rows.map(({ name, setting }) => `${name} = ${setting}`),
    ];
    await writeFile(path.join(data, 'postgresql.conf'), `${conf.join('\n')}\n`);
    await writeFile(path.join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    if (process.getuid?.() === 0) await run('chown', ['postgres:postgres', path.join(data, 'postgresql.conf'), path.join(data, 'pg_hba.conf')]);
    await asPostgres(`${BIN}/pg_ctl`, ['-D', data, '-l', path.join(dir, 'postgres.log'), '-w', '-t', String(READY_TIMEOUT_MS / 1000), 'start']);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while ((await query(url, 'select pg_is_in_recovery() as standby').catch(() => undefined))?.rows[0]?.standby !== true) {
      if (Date.now() > deadline) throw new Error(`the replica on port ${port} did not start in recovery (log: ${path.join(dir, 'postgres.log')})`);
      await sleep(100);
    }
  } catch (error) {
    await stopPgReplica(dir);
    throw error;
  }
  return {
    url,
    port,
    dir,
    pauseReplay: () => query(url, 'select pg_wal_replay_pause()').then(() => undefined),
    resumeReplay: () => query(url, 'select pg_wal_replay_resume()').then(() => undefined),
    stop: () => stopPgReplica(dir),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'start' && args.length === 2) {
    const replica = await startPgReplica({ port: Number(args[0]), dir: args[1]! });
    process.stdout.write(`${replica.url}\n`);
  } else if (command === 'stop' && args.length === 1) {
    await stopPgReplica(args[0]!);
  } else {
    process.stderr.write('usage: pg-replica.ts start <port> <dir> | stop <dir>\n');
    process.exitCode = 2;
  }
}
