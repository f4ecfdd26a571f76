/**
 * Stopping the server as a service manager does, in every run mode: `gateway/src/main.ts`
 * (what `npm start` runs) in a process of its own gets SIGTERM or SIGINT while its
 * embedded database process starts, idle, and under a loop of concurrent OpenAI SDK
 * requests (JSON and slow streams) to a local fake provider. Each time it must exit 0
 * within 10 s leaving no process behind (the PGlite process included), and under load
 * every request answered 2xx must have exactly one usage event in the database read
 * afterwards (PGlite's DATA_DIR reopened, or the scaled mode's PostgreSQL).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { listOutboxMail, listUsageEvents, loadConfig, openSqlStore } from '@spendgate/store';
import { sql } from 'kysely';
import { connectTestRedis, deleteKeysWithPrefix, openTestSqlStore, type TestSqlStore } from '@spendgate/store/testing';
import { startWorker } from '@spendgate/worker';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type TestMode, testModes } from '../support/spendgate.ts';

const MAIN = fileURLToPath(new URL('../../gateway/src/main.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const STOP_WITHIN_MS = 10_000;
const PASSWORD = 'a long and unusual passphrase';

interface ServerProcess {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** The URL it listens on, once it says so. */
  listening: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

function startServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listening = new Promise<string>((resolve, reject) => {
    const collect = (text: string) => {
      output += text;
      const console = /Console\s+(http:\/\/\S+)\//.exec(output);
      if (console) resolve(console[1]!.replace('localhost', '127.0.0.1'));
    };
    child.stdout!.setEncoding('utf8').on('data', collect);
    child.stderr!.setEncoding('utf8').on('data', collect);
    child.once('exit', () => reject(new Error(`the server exited before listening:\n${output}`)));
  });
  listening.catch(() => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  return { child, output: () => output, listening, exited };
}

/** The ids of a process's embedded-database processes (Linux; tsx's esbuild child is not one). */
function databaseProcessesOf(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.filter((child) => readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('pglite-server'));
  } catch {
    return [];
  }
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

/** Sends `signal` and answers how long the process took to exit, checking it left no database process behind. */
async function stopWith(server: ServerProcess, signal: NodeJS.Signals) {
  const children = databaseProcessesOf(server.child.pid!);
  const sentAt = performance.now();
  server.child.kill(signal);
  const killer = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
  const { code, at } = await server.exited.finally(() => clearTimeout(killer));
  await expect.poll(() => children.filter(alive), { timeout: 2_000 }).toEqual([]);
  return { code, ms: at - sentAt, children };
}

describe.each(testModes)('shutdown (%s)', (mode: TestMode) => {
  let provider: FakeOpenAI;
  let store: TestSqlStore | undefined;
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  // `npm start` takes no Redis key prefix: the scaled server gets a Redis database of its own.
  const redisDb = 1 + Math.floor(Math.random() * 15);
  const redisUrl = `${process.env.TEST_REDIS_URL}/${redisDb}`;
  const dirs: string[] = [];

  beforeAll(async () => {
    provider = await startFakeOpenAI();
    if (mode === 'scaled') {
      store = await openTestSqlStore('postgres');
      // The BullMQ workers, as `npm run worker` runs them beside the server.
      worker = await startWorker(await loadConfig({
        DATABASE_URL: store.url,
        REDIS_URL: redisUrl,
        LOG_LEVEL: 'silent',
        JWT_SECRET: randomBytes(32).toString('hex'),
        MASTER_KEY: randomBytes(32).toString('base64'),
      }), { sql: store });
    }
  });

  afterAll(async () => {
    await worker?.close();
    await store?.close();
    await provider?.close();
    if (mode === 'scaled') {
      const redis = connectTestRedis();
      await redis.select(redisDb);
      await deleteKeysWithPrefix(redis, 'spendgate');
      redis.disconnect();
    }
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function environment() {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'spendgate-shutdown-'));
    dirs.push(dataDir);
    return {
      dataDir,
      env: {
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        JWT_SECRET: randomBytes(32).toString('hex'),
        MASTER_KEY: randomBytes(32).toString('base64'),
        UPSTREAM_ALLOWED_HOSTS: '127.0.0.1',
        CONSOLE_DIR: path.join(dataDir, 'no-console'),
        ...(mode === 'scaled' ? { DATABASE_URL: store!.url, REDIS_URL: redisUrl } : {}),
      },
    };
  }

  /** The code Spendgate mailed to `email`: from the log (embedded) or the mail outbox (scaled). */
  async function mailedCode(server: ServerProcess, email: string): Promise<string> {
    let code: string | undefined;
    await expect
      .poll(async () => {
        const text = store
          ? ((await listOutboxMail(store.db, email)).at(-1)?.text_body ?? '')
          : server.output().split('\n').filter((line) => line.includes(`Mail to ${email}`)).map((line) => JSON.parse(line).msg as string).join('\n');
        code = /^\s+(\d{6})\s*$/m.exec(text)?.[1];
        return code;
      }, { timeout: 10_000 })
      .toBeDefined();
    return code!;
  }

  /** A confirmed account, a team, a group and a BYOK key for the fake provider. */
  async function issueKey(server: ServerProcess, base: string, email: string) {
    const registered = await callApi(base, 'POST', '/auth/register', { body: { email, password: PASSWORD, name: 'Shutdown' } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const confirmed = await callApi(base, 'POST', '/auth/verify-email-otp', {
      token: registered.body.data.token,
      body: { email, otp: await mailedCode(server, email) },
    });
    const token = (confirmed.body.data?.token as string | undefined) ?? (registered.body.data.token as string);
    const team = await callApi(base, 'POST', '/team/', { token, body: { name: 'Platform', description: '' } });
    const group = await callApi(base, 'POST', '/synthetic-group', { token, body: { name: 'Load', description: '', teamId: team.body.data.id } });
    const connection = await callApi(base, 'POST', '/provider/connections', {
      token,
      body: { teamId: team.body.data.id, name: 'fake', provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: provider.url },
    });
    expect(connection.status, JSON.stringify(connection.body)).toBe(201);
    const key = await callApi(base, 'POST', `/synthetic-group/provider-key/create/${group.body.data.id}`, {
      token,
      body: { name: 'load', kind: 'byok', connectionId: connection.body.data.newConnection.id },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    return { teamId: team.body.data.id as string, key: key.body.data.key as string };
  }

  /** Sessions open on the scaled mode's test database. */
  const databaseSessions = async () =>
    Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database()`.execute(store!.db)).rows[0]!.n);

  it('SIGTERM while the database starts: exits 0 within 10 s, nothing left running', async () => {
    const { env } = await environment();
    const before = mode === 'scaled' ? await databaseSessions() : 0;
    const server = startServer(env);
    // Once the embedded database's process runs, or the server's first PostgreSQL session is open.
    if (mode === 'embedded') await expect.poll(() => databaseProcessesOf(server.child.pid!).length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);
    else await expect.poll(databaseSessions, { timeout: 30_000, interval: 20 }).toBeGreaterThan(before);
    const { code, ms } = await stopWith(server, 'SIGTERM');
    expect(code, server.output()).toBe(0);
    expect(ms).toBeLessThan(STOP_WITHIN_MS);
  }, 60_000);

  it('SIGINT when idle: exits 0 within 10 s, nothing left running', async () => {
    const { env } = await environment();
    const server = startServer(env);
    await server.listening;
    const { code, ms, children } = await stopWith(server, 'SIGINT');
    expect(code, server.output()).toBe(0);
    expect(ms).toBeLessThan(STOP_WITHIN_MS);
    expect(children.length).toBe(mode === 'embedded' ? 1 : 0);
  }, 60_000);

  it('SIGTERM under load: drains, exits 0 within 10 s, and every 2xx answer has exactly one usage event', async () => {
    const { env, dataDir } = await environment();
    const server = startServer(env);
    const base = await server.listening;
    const tenant = await issueKey(server, base, `shutdown-${mode}-${randomBytes(3).toString('hex')}@example.com`);
    const openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: tenant.key, maxRetries: 0 });
    // Streams pause between chunks, so some are running when the signal comes.
    provider.controlHeaders['x-fake-stream-interval-ms'] = '40';

    const answered: string[] = [];
    let stopped = false;
    const loop = async (streaming: boolean) => {
      while (!stopped) {
        try {
          const params = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say something long enough to stream.' }] };
          if (streaming) {
            const { data, response } = await openai.chat.completions.create({ ...params, stream: true }).withResponse();
            if (response.ok) answered.push(response.headers.get('x-spendgate-request-id')!);
            for await (const _chunk of data);
          } else {
            const { response } = await openai.chat.completions.create(params).withResponse();
            if (response.ok) answered.push(response.headers.get('x-spendgate-request-id')!);
          }
        } catch {
          // Refused or cut while the server stops: only answered requests are counted.
          if (server.child.exitCode !== null || server.child.signalCode !== null) return;
        }
      }
    };
    const loops = Array.from({ length: 8 }, (_, index) => loop(index % 2 === 0));
    await expect.poll(() => answered.length, { timeout: 20_000 }).toBeGreaterThan(40);
    const { code, ms } = await stopWith(server, 'SIGTERM');
    stopped = true;
    await Promise.all(loops);
    delete provider.controlHeaders['x-fake-stream-interval-ms'];
    expect(code, server.output().slice(-4_000)).toBe(0);
    expect(ms).toBeLessThan(STOP_WITHIN_MS);

    const events = await usageEventsOf(tenant.teamId, dataDir);
    const counted = new Map<string, number>();
    for (const event of events) counted.set(event.request_id, (counted.get(event.request_id) ?? 0) + 1);
    const missing = answered.filter((id) => counted.get(id) !== 1);
    expect(missing, `${answered.length} answered, ${events.length} events`).toEqual([]);
  }, 120_000);

  /** The team's usage events, read once the server is gone. */
  async function usageEventsOf(teamId: string, dataDir: string) {
    if (store) {
      await worker!.queue.drain();
      return listUsageEvents(store.db, teamId);
    }
    const reopened = await openSqlStore({ kind: 'pglite', dataDir: path.join(dataDir, 'pg') });
    try {
      return await listUsageEvents(reopened.db, teamId);
    } finally {
      await reopened.close();
    }
  }
});
