/**
 * A real Redis Cluster for tests: 3 masters and 3 replicas of Debian's `redis-server` on
 * loopback ports (each node's cluster bus on its port + 10,000), joined with
 * `redis-cli --cluster create … --cluster-replicas 1`, its files in a directory of its
 * own. A failover test starts one with a short node timeout and kills a master of it;
 * `.ci/run` starts one for the scaled tests from the command line:
 *
 *   tsx store/src/testing/redis-cluster.ts start <first port> <dir>   # prints its URL
 *   tsx store/src/testing/redis-cluster.ts stop <dir>
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CLUSTER_URL_PROTOCOL } from '../redis-connection.ts';

const run = promisify(execFile);
const NODES = 6;
const BUS_PORT_OFFSET = 10_000;
const READY_TIMEOUT_MS = 30_000;

export interface ClusterNode {
  port: number;
  role: 'master' | 'replica';
  /** A replica's master. */
  masterPort: number | undefined;
  /** The hash slots a master serves, as [first, last] ranges. */
  slots: [number, number][];
}

export interface RunningRedisCluster {
  /** `redis+cluster://127.0.0.1:<port>,…`, for REDIS_URL or TEST_REDIS_CLUSTER_URL. */
  url: string;
  dir: string;
  ports: number[];
  /** The nodes as the one at `askPort` (default the first that answers) sees them. */
  nodes(askPort?: number): Promise<ClusterNode[]>;
  /** The master that serves `key`'s slot now. */
  masterOf(key: string): Promise<ClusterNode>;
  /** Kills a node's process outright (SIGKILL), as a crash would. */
  kill(port: number): Promise<void>;
  /** Stops a node's process (SIGSTOP), as a stalled machine would, until `thaw` (SIGCONT). */
  freeze(port: number): Promise<void>;
  thaw(port: number): Promise<void>;
  /** Starts a killed node again, as its supervisor would: it rejoins with its old identity (a replica, once failed over). */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

const cli = (port: number, ...args: string[]) => run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args]).then(({ stdout }) => stdout);

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A first port from which 6 ports and their bus ports are free (between 20,000 and 29,000). */
export async function freeClusterPorts(): Promise<number> {
  for (let tries = 0; tries < 20; tries++) {
    const first = 20_000 + Math.floor(Math.random() * 9_000);
    const ports = Array.from({ length: NODES }, (_, index) => first + index);
    const free = await Promise.all(ports.flatMap((port) => [portFree(port), portFree(port + BUS_PORT_OFFSET)]));
    if (free.every(Boolean)) return first;
  }
  throw new Error('no free ports for a Redis Cluster');
}

function parseNodes(text: string): ClusterNode[] {
  const lines = text.trim().split('\n');
  const byId = new Map(lines.map((line) => line.split(' ')).map((fields) => [fields[0]!, Number(fields[1]!.split('@')[0]!.split(':')[1])]));
  return lines
    .map((line) => line.split(' '))
    .filter((fields) => !fields[2]!.includes('fail') && !fields[2]!.includes('handshake'))
    .map((fields) => {
      const master = fields[2]!.includes('master');
      return {
        port: byId.get(fields[0]!)!,
        role: master ? 'master' : 'replica',
        masterPort: master ? undefined : byId.get(fields[3]!),
        slots: fields
          .slice(8)
          .filter((range) => !range.startsWith('['))
          .map((range) => {
            const [first, last = first] = range.split('-').map(Number) as [number, number?];
            return [first, last] as [number, number];
          }),
      };
    });
}

async function clusterSettled(ports: number[]): Promise<boolean> {
  try {
    for (const port of ports) {
      if (!(await cli(port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
      const replication = await cli(port, 'info', 'replication');
      if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
    }
    const nodes = parseNodes(await cli(ports[0]!, 'cluster', 'nodes'));
    return nodes.filter(({ role }) => role === 'master').length === NODES / 2 && nodes.length === NODES;
  } catch {
    return false;
  }
}

/** Stops the nodes whose pid files are in `dir` and removes it. */
export async function stopRedisCluster(dir: string): Promise<void> {
  for (let index = 0; index < NODES; index++) {
    const pid = Number(await readFile(path.join(dir, `node-${index}.pid`), 'utf8').catch(() => ''));
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone (a test killed it).
      }
    }
  }
  await rm(dir, { recursive: true, force: true });
}

/**
 * Starts the 6 nodes on `firstPort` … `firstPort + 5` (a free range by default), joins
 * them, and resolves once every node sees the cluster ok and every replica is in sync.
 * `nodeTimeoutMs`: how long a master may be unreachable before its replica takes over.
 */
export async function startRedisCluster(options: { firstPort?: number; dir?: string; nodeTimeoutMs?: number } = {}): Promise<RunningRedisCluster> {
  const firstPort = options.firstPort ?? (await freeClusterPorts());
  const dir = options.dir ?? (await mkdtemp(path.join(tmpdir(), 'spendgate-redis-cluster-')));
  await mkdir(dir, { recursive: true });
  const ports = Array.from({ length: NODES }, (_, index) => firstPort + index);
  const pidFile = (index: number) => path.join(dir, `node-${index}.pid`);
  const startNode = (port: number, index: number) =>
    run('redis-server', [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--cluster-enabled', 'yes',
      '--cluster-config-file', path.join(dir, `nodes-${index}.conf`),
      '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 2_000),
      '--dir', dir,
      '--save', '',
      '--appendonly', 'no',
      '--daemonize', 'yes',
      '--pidfile', pidFile(index),
      '--logfile', path.join(dir, `node-${index}.log`),
    ]);
  try {
    await Promise.all(ports.map(startNode));
    for (const port of ports) {
      const deadline = Date.now() + READY_TIMEOUT_MS;
      while ((await cli(port, 'ping').catch(() => '')).trim() !== 'PONG') {
        if (Date.now() > deadline) throw new Error(`Redis on port ${port} did not start`);
        await sleep(50);
      }
    }
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes']);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await clusterSettled(ports))) {
      if (Date.now() > deadline) throw new Error('the Redis Cluster did not settle');
      await sleep(100);
    }
  } catch (error) {
    await stopRedisCluster(dir);
    throw error;
  }

  const nodes = async (askPort?: number) => {
    for (const port of askPort === undefined ? ports : [askPort]) {
      const text = await cli(port, 'cluster', 'nodes').catch(() => undefined);
      if (text !== undefined && text.trim() !== '') return parseNodes(text);
    }
    throw new Error('no node of the Redis Cluster answers');
  };
  const signal = async (port: number, name: NodeJS.Signals) => {
    process.kill(Number(await readFile(pidFile(ports.indexOf(port)), 'utf8')), name);
  };
  return {
    url: `${CLUSTER_URL_PROTOCOL}//${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
    dir,
    ports,
    nodes,
    async masterOf(key) {
      for (const port of ports) {
        const slot = Number(await cli(port, 'cluster', 'keyslot', key).catch(() => Number.NaN));
        if (Number.isNaN(slot)) continue;
        const master = (await nodes(port)).find(({ role, slots }) => role === 'master' && slots.some(([first, last]) => slot >= first && slot <= last));
        if (master) return master;
      }
      throw new Error(`no master serves the slot of ${key}`);
    },
    kill: (port) => signal(port, 'SIGKILL'),
    freeze: (port) => signal(port, 'SIGSTOP'),
    thaw: (port) => signal(port, 'SIGCONT'),
    restart: (port) => startNode(port, ports.indexOf(port)).then(() => undefined),
    stop: () => stopRedisCluster(dir),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'start' && args.length === 2) {
    const cluster = await startRedisCluster({ firstPort: Number(args[0]), dir: args[1]! });
    process.stdout.write(`${cluster.url}\n`);
  } else if (command === 'stop' && args.length === 1) {
    await stopRedisCluster(args[0]!);
  } else {
    process.stderr.write('usage: redis-cluster.ts start <first port> <dir> | stop <dir>\n');
    process.exitCode = 2;
  }
}
