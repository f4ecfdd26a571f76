// The ledger connection's command deadline on a real Redis (TEST_REDIS_URL): a command
// whose answer arrived while the event loop was stalled past the deadline succeeds (with
// ioredis's own commandTimeout it fails), and one Redis really leaves unanswered fails
// soon after the deadline, as the ledger needs to refuse budgets 503 instead of hanging.
import { once } from 'node:events';
import { createServer, type Server, Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, type RedisConnection } from './redis-connection.ts';
import { redisUrl } from './testing/redis.ts';

const DEADLINE_MS = 100;

/** Holds the event loop for `ms`, as a long GC pause or a starved CPU does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/** A loopback TCP proxy to Redis whose answers can be held back, as a Redis that stops answering. */
async function startMutingProxy(target: URL) {
  let muted = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!muted) client.write(chunk);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    mute: () => {
      muted = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe.skipIf(redisUrl === undefined)('a connection with a command deadline', () => {
  const key = `sgtest:deadline:${process.pid}`;
  let redis: RedisConnection;

  beforeAll(async () => {
    redis = connectRedis(redisUrl!, { commandTimeout: DEADLINE_MS });
    await redis.set(key, 'answered', 'PX', 60_000);
  });
  afterAll(async () => {
    await redis?.del(key);
    redis?.disconnect();
  });

  it('answers a command whose reply arrived while the event loop was stalled past the deadline', async () => {
    const reply = redis.get(key);
    stall(3 * DEADLINE_MS);
    await expect(reply).resolves.toBe('answered');

    // The same stall fails the command with ioredis's own timeout: the case this deadline exists for.
    const stock = new Redis(redisUrl!, { commandTimeout: DEADLINE_MS });
    try {
      await stock.ping();
      const stockReply = stock.get(key);
      stall(3 * DEADLINE_MS);
      await expect(stockReply).rejects.toThrow('Command timed out');
    } finally {
      stock.disconnect();
    }
  });

  it('fails a command Redis leaves unanswered soon after the deadline', async () => {
    const proxy = await startMutingProxy(new URL(redisUrl!));
    const muted = connectRedis(proxy.url, { commandTimeout: DEADLINE_MS, enableOfflineQueue: false });
    try {
      await once(muted, 'ready');
      proxy.mute();
      const sent = performance.now();
      await expect(muted.get(key)).rejects.toThrow('Command timed out');
      const waited = performance.now() - sent;
      expect(waited).toBeGreaterThanOrEqual(DEADLINE_MS - 1);
      expect(waited).toBeLessThan(10 * DEADLINE_MS);
    } finally {
      muted.disconnect();
      await proxy.close();
    }
  });
});
