/**
 * Starts a whole Spendgate (gateway + API + in-process or BullMQ worker) for a test,
 * listening on 127.0.0.1:0, in either run mode:
 *   embedded — a clone of the migrated PGlite template, in-process stores;
 *   scaled   — a fresh PostgreSQL database and a Redis prefix of its own (on TEST_REDIS_URL,
 *              or another Redis such as TEST_REDIS_CLUSTER_URL's cluster: `redisUrl`).
 * `testModes` is ['embedded'], plus 'scaled' when TEST_DATABASE_URL and TEST_REDIS_URL are set.
 * A scaled Spendgate says in `peer` how another gateway process joins it (gateway-process.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type App, buildApp } from '@spendgate/gateway';
import { loadConfig } from '@spendgate/store';
import { connectTestRedis, deleteKeysWithPrefix, openTestSqlStore, replicaUrlOf, uniquePrefix } from '@spendgate/store/testing';
import { startWorker } from '@spendgate/worker';

export type TestMode = 'embedded' | 'scaled';

/** Embedded always, scaled too with TEST_DATABASE_URL and TEST_REDIS_URL; TEST_ONLY_SCALED=1 leaves embedded to a run of its own (.ci/run). */
export const testModes: TestMode[] = process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL
  ? process.env.TEST_ONLY_SCALED === '1' ? ['scaled'] : ['embedded', 'scaled']
  : ['embedded'];

export interface RunningSpendgate {
  app: App;
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** Scaled mode only: the settings another gateway needs to share this one's stores. */
  peer?: PeerSettings;
  /**
   * Stops the gateway (and the scaled mode's worker) as a process stop does — jobs under
   * way finish, the in-process queue's waiting jobs are lost — and starts them again on the
   * same database and Redis; `app` and `url` are the new ones'.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Waits until the usage of every request answered so far is written: the requests under
 * way ended (a caller may have read a stream's last byte before the gateway records it),
 * the gateway's bookkeeping handed to the queue, then the queue's jobs done.
 */
export async function usageWritten(spendgate: RunningSpendgate): Promise<void> {
  await spendgate.app.dataPlane.idle(USAGE_WRITTEN_DEADLINE_MS);
  await spendgate.app.runtime.metering.settled();
  await spendgate.app.runtime.stores.queue.drain();
}

/** How long `usageWritten` waits for requests under way (a stream a test left open never ends). */
const USAGE_WRITTEN_DEADLINE_MS = 2_000;

/**
 * Waits until a demo team's sample usage is all recorded — it fills in the background, a
 * day at a time, as GET /usage/team says — and what its last day set off (the team's
 * first forecast) is done.
 */
export async function demoFilled(spendgate: RunningSpendgate, teamId: string, token: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    const { demo } = (await callApi(spendgate.url, 'GET', `/usage/team?teamId=${teamId}`, { token })).body.data;
    if (demo?.state === 'filled') break;
    if (Date.now() - started > DEMO_FILL_DEADLINE_MS) throw new Error(`the demo team ${teamId} was not filled within ${DEMO_FILL_DEADLINE_MS} ms: ${JSON.stringify(demo)}`);
    await sleep(500);
  }
  await usageWritten(spendgate);
}

/** Recording 90 days takes the embedded database tens of seconds, minutes on a loaded machine. */
export const DEMO_FILL_DEADLINE_MS = 240_000;

/** The same configuration (database, Redis, secrets) as environment, and the same Redis prefix. */
export interface PeerSettings {
  env: Record<string, string | undefined>;
  redisPrefix: string;
}

export interface StartOptions {
  /** A built console to serve at / (browser tests); none by default. */
  consoleDir?: string;
  /** The loopback port to listen on (when PUBLIC_URL must name it beforehand); any free one by default. */
  port?: number;
  /** More configuration, e.g. SMTP_URL or GOOGLE_CLIENT_ID. */
  env?: Record<string, string>;
  /** Where the gateway's log goes (with LOG_LEVEL in env), e.g. to search it. */
  logStream?: NodeJS.WritableStream;
  /** Resolves connections' host names instead of the system (a fake DNS). */
  resolveHost?: (hostname: string) => Promise<string[]>;
  /** The clock trials and subscriptions are read on (e.g. to move past a trial's end). */
  clock?: () => Date;
  /**
   * Scaled mode: a streaming replica of TEST_DATABASE_URL's server (store's pg-replica.ts) serving the usage reads,
   * also to the gateways joining by `peer`; `freshReadMs` shortens this gateway's fresh-read window.
   */
  readReplica?: { url: string; maxLagSeconds?: number; freshReadMs?: number };
  /** Scaled mode: the Redis to run on (default TEST_REDIS_URL), e.g. TEST_REDIS_CLUSTER_URL's cluster. */
  redisUrl?: string;
}

const running = new Map<string, RunningSpendgate>();

/** DATABASE_READ_URL (and its lag limit) of a peer gateway reading from `readReplica`'s copy of `databaseUrl`. */
function readReplicaEnv(databaseUrl: string, readReplica: StartOptions['readReplica']): Record<string, string> {
  if (!readReplica) return {};
  return {
    DATABASE_READ_URL: replicaUrlOf(databaseUrl, readReplica.url),
    ...(readReplica.maxLagSeconds === undefined ? {} : { DATABASE_READ_MAX_LAG_SECONDS: String(readReplica.maxLagSeconds) }),
  };
}

/** The Spendgate this test process started at `url` (for helpers given only its address). */
export function runningAt(url: string): RunningSpendgate {
  const spendgate = running.get(url);
  if (!spendgate) throw new Error(`no Spendgate started at ${url}`);
  return spendgate;
}

export async function startSpendgate(mode: TestMode, name: string, options: StartOptions = {}): Promise<RunningSpendgate> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'spendgate-e2e-'));
  const redisUrl = options.redisUrl ?? process.env.TEST_REDIS_URL;
  const env = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    JWT_SECRET: randomBytes(32).toString('hex'),
    MASTER_KEY: randomBytes(32).toString('base64'),
    UPSTREAM_ALLOWED_HOSTS: '127.0.0.1',
    CONSOLE_DIR: options.consoleDir ?? path.join(dataDir, 'no-console'),
    ...(mode === 'scaled' ? { REDIS_URL: redisUrl } : {}),
    ...options.env,
  };
  const config = await loadConfig(env);
  const sql = await openTestSqlStore(mode === 'scaled' ? 'postgres' : 'pglite', undefined, options.readReplica);
  const redisPrefix = uniquePrefix(name);
  const start = async () => {
    const app = await buildApp(config, {
      sql,
      redisPrefix,
      ...(options.logStream ? { logStream: options.logStream } : {}),
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    // The scaled mode's worker runs apart from the gateway, as `npm run worker` does.
    const worker = mode === 'scaled' ? await startWorker(config, { sql, redisPrefix }) : undefined;
    const url = await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
    const stop = async () => {
      await app.close();
      await worker?.close();
    };
    return { app, url, stop };
  };
  let started = await start();
  const stop = async () => {
    running.delete(spendgate.url);
    await started.stop();
  };
  const spendgate: RunningSpendgate = {
    app: started.app,
    url: started.url,
    ...(mode === 'scaled' ? { peer: { env: { ...env, DATABASE_URL: sql.url, ...readReplicaEnv(sql.url!, options.readReplica) }, redisPrefix } } : {}),
    restart: async () => {
      await stop();
      started = await start();
      spendgate.app = started.app;
      spendgate.url = started.url;
      running.set(spendgate.url, spendgate);
    },
    close: async () => {
      await stop();
      await sql.close();
      if (mode === 'scaled') {
        const redis = connectTestRedis(redisUrl);
        // The queue's prefix, on a cluster a hash tag: `{<prefix>-queue}`.
        for (const prefix of [redisPrefix, `{${redisPrefix}-queue}`]) await deleteKeysWithPrefix(redis, prefix);
        redis.disconnect();
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  running.set(spendgate.url, spendgate);
  return spendgate;
}

/** The API envelope as a test reads it: `data` is whatever the endpoint answers. */
export interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary answer shapes.
  body: { success: boolean; data: any; message: string; field?: string };
}

/** Calls the control-plane API and returns status and parsed body. */
export async function callApi(
  base: string,
  method: string,
  route: string,
  options: { token?: string; body?: unknown } = {},
): Promise<ApiAnswer> {
  const response = await fetch(`${base}/api${route}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json()) as ApiAnswer['body'] };
}
