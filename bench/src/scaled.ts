/**
 * The scaled mode's backing services for one bench run: a fresh PostgreSQL database
 * (created from TEST_DATABASE_URL's server, dropped at the end) and a Redis key prefix
 * of its own on TEST_REDIS_URL (its keys deleted at the end).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface ScaledServices {
  databaseName: string;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  /** Drops the database and deletes the prefix's Redis keys. */
  remove(): Promise<void>;
}

export async function createScaledServices(env: NodeJS.ProcessEnv = process.env): Promise<ScaledServices> {
  const adminUrl = env.TEST_DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const redisUrl = env.TEST_REDIS_URL ?? DEFAULT_REDIS_URL;
  const suffix = randomBytes(6).toString('hex');
  const name = `sgbench_${suffix}`;
  const redisPrefix = `sgbench:${suffix}`;

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  return {
    databaseName: name,
    databaseUrl: url.toString(),
    redisUrl,
    redisPrefix,
    remove: async () => {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
      const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
      try {
        // The ledger and key cache use `<prefix>:…`, the BullMQ queue `<prefix>-queue…`.
        await deleteKeysStartingWith(redis, redisPrefix);
      } finally {
        redis.disconnect();
      }
    },
  };
}

async function deleteKeysStartingWith(redis: Redis, prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
}
