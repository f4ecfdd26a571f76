/**
 * A Redis server of a test's own (Debian's `redis-server`), on a free loopback port, so
 * the test may stop and restart it without disturbing other test files. It persists
 * every write to an append-only file in a temporary directory, so a restart finds the
 * data (queued jobs, counters) as a production Redis with AOF would.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

export const redisServerAvailable = spawnSync('redis-server', ['--version']).status === 0;

export interface PrivateRedis {
  url: string;
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it answers. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'spendgate-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | undefined;

  const start = async () => {
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir],
      { stdio: 'ignore' },
    );
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      for (let attempt = 0; attempt < 100; attempt += 1) {
        try {
          if (probe.status !== 'ready') await probe.connect();
          if ((await probe.ping()) === 'PONG') return;
        } catch {
          await sleep(50);
        }
      }
      throw new Error(`redis-server on port ${port} did not answer`);
    } finally {
      probe.disconnect();
    }
  };

  const kill = async () => {
    if (!server || server.exitCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    url,
    kill,
    restart: start,
    close: async () => {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
