/**
 * Many gateways and workers on one machine without Docker (issue 26): 3 gateways behind
 * Debian's HAProxy, 2 BullMQ workers, a 6-node Redis Cluster and PostgreSQL (a fresh
 * database on DATABASE_URL's server, with a streaming replica for DATABASE_READ_URL).
 * Every process is started as a plain child process; its pid and the database's name are
 * kept in the run directory, so `down` stops exactly what `up` started.
 *
 *   npm run topology -- up [--first-port 7200] [--gateways 3] [--workers 2] [--no-replica]
 *   npm run topology -- status
 *   npm run topology -- down
 *
 * HAProxy rather than nginx: it balances round-robin with active health checks on
 * /readyz out of the box, and its single config file is all the load balancer needs.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { bundleServer, SERVER_ENTRIES } from '../../gateway/bundle.mjs';
import { replicaUrlOf, startPgReplica, stopPgReplica } from '../../store/src/testing/pg-replica.ts';
import { startRedisCluster, stopRedisCluster } from '../../store/src/testing/redis-cluster.ts';

const run = promisify(execFile);

/** Whether Debian's HAProxy, the topology's load balancer, is installed (the tests and the bench that need it skip without). */
export const haproxyInstalled = (() => {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUNDLE_DIR = path.join(REPO_ROOT, 'dist/topology');
export const DEFAULT_RUN_DIR = path.join(REPO_ROOT, '.topology');
const READY_TIMEOUT_MS = 120_000;

export interface TopologyOptions {
  /** Ports from here: the LB, then the gateways, the replica, then the Redis Cluster's 6 nodes. */
  firstPort?: number;
  gateways?: number;
  workers?: number;
  replica?: boolean;
  runDir?: string;
  /** The PostgreSQL server the topology's database is made on. */
  adminDatabaseUrl?: string;
  /** Extra environment for the gateways and workers (e.g. a provider's base URL). */
  env?: Record<string, string>;
}

export interface Topology {
  lbUrl: string;
  gatewayUrls: string[];
  databaseUrl: string;
  databaseReadUrl: string | undefined;
  redisUrl: string;
  runDir: string;
  /** What `up` started and `down` stops, in that order: gateway-1…, worker-1…, haproxy. */
  processes: { name: string; pid: number }[];
}

interface RunState extends Topology {
  databaseName: string;
  adminDatabaseUrl: string;
  replicaDir: string | undefined;
  redisDir: string;
}

const statePath = (runDir: string) => path.join(runDir, 'state.json');

function startProcess(runDir: string, name: string, command: string, args: string[], env: Record<string, string>): Promise<ChildProcess> {
  return open(path.join(runDir, `${name}.log`), 'a').then((log) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', log.fd, log.fd], detached: true });
    child.unref();
    return log.close().then(() => child);
  });
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

/** Which gateway answered: HAProxy names the server in a response header. */
export const SERVED_BY_HEADER = 'x-served-by';

function haproxyConfig(lbPort: number, gatewayPorts: number[], runDir: string): string {
  return `global
  maxconn 4096
  pidfile ${path.join(runDir, 'haproxy.pid')}
defaults
  mode http
  timeout connect 5s
  timeout client 300s
  timeout server 300s
  option http-keep-alive
frontend spendgate
  bind 127.0.0.1:${lbPort}
  default_backend gateways
backend gateways
  balance roundrobin
  option httpchk GET /readyz
  http-response set-header ${SERVED_BY_HEADER} %s
${gatewayPorts.map((port, index) => `  server gateway-${index + 1} 127.0.0.1:${port} check inter 2s`).join('\n')}
`;
}

export async function topologyUp(options: TopologyOptions = {}): Promise<Topology> {
  const runDir = options.runDir ?? DEFAULT_RUN_DIR;
  if (await readFile(statePath(runDir), 'utf8').catch(() => undefined)) throw new Error(`a topology is already up in ${runDir}: run down first`);
  await mkdir(runDir, { recursive: true });
  const firstPort = options.firstPort ?? 7200;
  const gatewayCount = options.gateways ?? 3;
  const lbPort = firstPort;
  const gatewayPorts = Array.from({ length: gatewayCount }, (_, index) => firstPort + 1 + index);
  const replicaPort = firstPort + 10;
  const adminDatabaseUrl = options.adminDatabaseUrl ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const databaseName = `sgtopology_${randomBytes(5).toString('hex')}`;
  const state: RunState = {
    lbUrl: `http://127.0.0.1:${lbPort}`,
    gatewayUrls: gatewayPorts.map((port) => `http://127.0.0.1:${port}`),
    databaseUrl: '',
    databaseReadUrl: undefined,
    redisUrl: '',
    runDir,
    processes: [],
    databaseName,
    adminDatabaseUrl,
    replicaDir: undefined,
    redisDir: path.join(runDir, 'redis-cluster'),
  };
  const save = () => writeFile(statePath(runDir), JSON.stringify(state, null, 2));
  try {
    const admin = new pg.Client({ connectionString: adminDatabaseUrl });
    await admin.connect();
    await admin.query(`create database ${databaseName}`);
    await admin.end();
    const databaseUrl = new URL(adminDatabaseUrl);
    databaseUrl.pathname = `/${databaseName}`;
    state.databaseUrl = databaseUrl.toString();
    await save();

    const cluster = await startRedisCluster({ firstPort: firstPort + 20, dir: state.redisDir });
    state.redisUrl = cluster.url;
    await save();
    if (options.replica !== false) {
      // Its own temporary directory: the postgres OS user must reach it, which a run directory may not let it.
      const replica = await startPgReplica({ port: replicaPort, primaryUrl: adminDatabaseUrl });
      state.replicaDir = replica.dir;
      state.databaseReadUrl = replicaUrlOf(state.databaseUrl, replica.url);
      await save();
    }

    await bundleServer(SERVER_ENTRIES, BUNDLE_DIR);
    const env: Record<string, string> = {
      ...options.env,
      DATABASE_URL: state.databaseUrl,
      ...(state.databaseReadUrl ? { DATABASE_READ_URL: state.databaseReadUrl } : {}),
      REDIS_URL: state.redisUrl,
      // Every gateway must sign and encrypt alike: one secret per topology, never printed.
      JWT_SECRET: randomBytes(32).toString('hex'),
      MASTER_KEY: randomBytes(32).toString('base64'),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CONSOLE_DIR: path.join(runDir, 'no-console'),
      PUBLIC_URL: state.lbUrl,
    };
    // The first gateway migrates the fresh database alone; the others start once it is ready.
    for (const [index, port] of gatewayPorts.entries()) {
      const child = await startProcess(runDir, `gateway-${index + 1}`, process.execPath, [path.join(BUNDLE_DIR, 'gateway.mjs')], { ...env, PORT: String(port) });
      state.processes.push({ name: `gateway-${index + 1}`, pid: child.pid! });
      await save();
      if (index === 0) await waitFor(`${state.gatewayUrls[0]}/readyz`, 'gateway-1', runDir);
    }
    for (let index = 0; index < (options.workers ?? 2); index++) {
      const child = await startProcess(runDir, `worker-${index + 1}`, process.execPath, [path.join(BUNDLE_DIR, 'worker.mjs')], env);
      state.processes.push({ name: `worker-${index + 1}`, pid: child.pid! });
      await save();
    }
    await Promise.all(state.gatewayUrls.map((url, index) => waitFor(`${url}/readyz`, `gateway-${index + 1}`, runDir)));

    const configPath = path.join(runDir, 'haproxy.cfg');
    await writeFile(configPath, haproxyConfig(lbPort, gatewayPorts, runDir));
    await run('haproxy', ['-D', '-f', configPath]);
    state.processes.push({ name: 'haproxy', pid: Number(await readFile(path.join(runDir, 'haproxy.pid'), 'utf8')) });
    await save();
    await waitForEveryGateway(state.lbUrl, gatewayCount);
  } catch (error) {
    await topologyDown(runDir);
    throw error;
  }
  const { lbUrl, gatewayUrls, databaseUrl, databaseReadUrl, redisUrl, processes } = state;
  return { lbUrl, gatewayUrls, databaseUrl, databaseReadUrl, redisUrl, runDir, processes };
}

async function waitFor(url: string, name: string, runDir: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await ready(url))) {
    if (Date.now() > deadline) throw new Error(`${name} was not ready at ${url} (its log: ${path.join(runDir, `${name}.log`)})`);
    await sleep(250);
  }
}

/** Resolves once every gateway has answered /readyz through the load balancer. */
async function waitForEveryGateway(lbUrl: string, gatewayCount: number): Promise<void> {
  const seen = new Set<string>();
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (seen.size < gatewayCount) {
    if (Date.now() > deadline) throw new Error(`only ${[...seen].join(', ') || 'no gateway'} answered through the load balancer at ${lbUrl}`);
    const response = await fetch(`${lbUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
    const server = response?.ok ? response.headers.get(SERVED_BY_HEADER) : null;
    if (server) seen.add(server);
    else await sleep(250);
  }
}

/** Stops what `up` started in `runDir` (its processes, the replica, the cluster) and drops its database. */
export async function topologyDown(runDir = DEFAULT_RUN_DIR): Promise<void> {
  const text = await readFile(statePath(runDir), 'utf8').catch(() => undefined);
  if (!text) return;
  const state = JSON.parse(text) as RunState;
  const pids = state.processes.map((started) => started.pid);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  const deadline = Date.now() + 15_000;
  for (const pid of pids) {
    while (alive(pid) && Date.now() < deadline) await sleep(100);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  if (state.replicaDir) await stopPgReplica(state.replicaDir);
  await stopRedisCluster(state.redisDir);
  if (state.databaseUrl) {
    const admin = new pg.Client({ connectionString: state.adminDatabaseUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${state.databaseName} with (force)`);
    await admin.end();
  }
  await rm(runDir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function status(runDir: string): Promise<string> {
  const text = await readFile(statePath(runDir), 'utf8').catch(() => undefined);
  if (!text) return 'no topology is up';
  const state = JSON.parse(text) as RunState;
  const gateways = await Promise.all(state.gatewayUrls.map(async (url) => `  ${url}  ${(await ready(`${url}/readyz`)) ? 'ready' : 'NOT READY'}`));
  const down = state.processes.filter((started) => !alive(started.pid));
  return [describe(state), 'Gateways:', ...gateways, `Processes: ${state.processes.length - down.length} of ${state.processes.length} running`].join('\n');
}

function describe(topology: Topology): string {
  const hidePassword = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');
  return [
    `Load balancer   ${topology.lbUrl}   (OpenAI SDK: baseURL "${topology.lbUrl}/v1")`,
    `Gateways        ${topology.gatewayUrls.join('  ')}`,
    `DATABASE_URL    ${hidePassword(topology.databaseUrl)}`,
    `DATABASE_READ_URL ${topology.databaseReadUrl ? hidePassword(topology.databaseReadUrl) : '(no replica)'}`,
    `REDIS_URL       ${topology.redisUrl}`,
    `Logs and pids   ${topology.runDir}`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, ...args] = process.argv.slice(2);
  const flag = (name: string) => {
    const index = args.indexOf(name);
    return index === -1 ? undefined : Number(args[index + 1]);
  };
  if (command === 'up') {
    const topology = await topologyUp({
      firstPort: flag('--first-port'),
      gateways: flag('--gateways'),
      workers: flag('--workers'),
      replica: !args.includes('--no-replica'),
    });
    console.log(describe(topology));
  } else if (command === 'down') {
    await topologyDown();
    console.log('topology stopped');
  } else if (command === 'status') {
    console.log(await status(DEFAULT_RUN_DIR));
  } else {
    console.error('usage: npm run topology -- up|down|status');
    process.exitCode = 2;
  }
}
