/**
 * Opens every store for a configuration, in the run mode it names:
 * embedded (PGlite + in-process ledger, key cache and queue) or scaled
 * (PostgreSQL + Redis ledger, Redis-invalidated key cache, BullMQ queue, Redis pub/sub
 * broadcasts between the gateways), on one Redis server or a Redis Cluster
 * (`redis+cluster://…`, see redis-connection.ts).
 * Migrations run here, so every process starts on the latest schema.
 */
import { type Broadcast, createInProcessBroadcast, createRedisBroadcast } from './broadcast/index.ts';
import type { Config } from './config.ts';
import { createInProcessKeyCache, createRedisKeyCache } from './keycache/index.ts';
import type { KeyCache, KeyCacheOptions } from './keycache/types.ts';
import { createInProcessLedger, createRedisLedger } from './ledger/index.ts';
import type { SpendLedger } from './ledger/types.ts';
import { type Logger, sharedLogger } from './logger.ts';
import { createBullQueue, createInProcessQueue } from './queue/index.ts';
import type { JobMap, JobQueue } from './queue/types.ts';
import { createInProcessRateLimiter, createRedisRateLimiter, type RateLimiter } from './ratelimit/index.ts';
import { connectRedis, duplicateConnection, type RedisConnection } from './redis-connection.ts';
import { openSqlStore, type ReadReplicaSettings, type SqlStore, sqlLocationFor } from './sql/connect.ts';
import { migrateToLatest } from './sql/migrate.ts';
import { shareFreshReads } from './sql/shared-fresh-reads.ts';
import { ensureUsagePartitions } from './sql/usage-partitions.ts';

const EMBEDDED_DRAIN_TIMEOUT_MS = 10_000;
/** A ledger command unanswered this long fails (once the replies already arrived were read), so admission never hangs on Redis. */
const LEDGER_COMMAND_TIMEOUT_MS = 400;
/** How long start-up waits for Redis before serving anyway (hard-capped keys get 503 until it answers). */
const REDIS_READY_TIMEOUT_MS = 5_000;

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export interface Stores<M extends JobMap> {
  mode: 'embedded' | 'scaled';
  sql: SqlStore;
  ledger: SpendLedger;
  /** Per-key requests and tokens per minute. */
  rateLimiter: RateLimiter;
  queue: JobQueue<M>;
  createKeyCache<V>(options: KeyCacheOptions): Promise<KeyCache<V>>;
  /**
   * Drops a key from every key cache of the deployment: each one this process made
   * (embedded: the gateway's, beside the worker's jobs), and in the scaled mode every
   * gateway's, by the key-invalidation channel their caches listen on. For a process that
   * changes access without serving keys (the worker).
   */
  invalidateKey(keyHash: string): Promise<void>;
  /** News between the processes of the deployment on the channel `name` (see Broadcast). */
  createBroadcast<T>(name: string): Promise<Broadcast<T>>;
  /** True when every backing service answers. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Prefix of every Redis key and queue name (tests give each file its own); it holds no `{`. */
  redisPrefix?: string;
  /** An already opened SQL store to use instead of the configured one; its opener closes it. */
  sql?: SqlStore;
  /** Read replicas for the dashboards' reads: the gateway's DATABASE_READ_URL; none by default (the worker reads none). */
  readReplicas?: ReadReplicaSettings;
  /** Where the queue and the ledger report what goes wrong in the background (default: the shared logger). */
  log?: Logger;
}

export async function openStores<M extends JobMap>(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'redisUrl'>, options: StoreOptions = {}): Promise<Stores<M>> {
  const sql = options.sql ?? (await openSqlStore(sqlLocationFor(config, options.readReplicas)));
  const closeSql = options.sql ? async () => {} : () => sql.close();
  const log = options.log ?? sharedLogger();
  await migrateToLatest(sql.db);
  await ensureUsagePartitions(sql.db, new Date());
  const sqlReady = async () => {
    try {
      await sql.db.selectFrom('price_catalog_versions').select('id').limit(1).execute();
      return true;
    } catch {
      return false;
    }
  };

  if (!config.redisUrl) {
    const ledger = createInProcessLedger();
    const rateLimiter = createInProcessRateLimiter();
    const queue = createInProcessQueue<M>({ log });
    const caches: KeyCache<unknown>[] = [];
    return {
      mode: 'embedded',
      sql,
      ledger,
      rateLimiter,
      queue,
      createKeyCache: async <V>(cacheOptions: KeyCacheOptions) => {
        const cache = createInProcessKeyCache<V>(cacheOptions);
        caches.push(cache);
        return cache;
      },
      invalidateKey: async (keyHash) => {
        for (const cache of caches) await cache.invalidate(keyHash);
      },
      createBroadcast: async () => createInProcessBroadcast(),
      ready: sqlReady,
      close: async () => {
        // Jobs still waiting in memory (usage events among them) are finished first; a resumable job's work waits for the next start.
        await withTimeout(queue.drainForShutdown(), EMBEDDED_DRAIN_TIMEOUT_MS);
        await queue.close();
        await ledger.close();
        await rateLimiter.close();
        await closeSql();
      },
    };
  }

  const prefix = options.redisPrefix ?? 'spendgate';
  const redis = connectRedis(config.redisUrl);
  // The ledger's (and rate limiter's) own connection fails fast while Redis is away instead of queueing commands.
  // It also reconnects every half second at most, so budgets are checked again soon after Redis is back.
  const ledgerRedis = connectRedis(config.redisUrl, {
    enableOfflineQueue: false,
    commandTimeout: LEDGER_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 50, 500),
  });
  ledgerRedis.on('error', () => {
    // Reconnection is automatic; callers see LedgerUnavailableError meanwhile.
  });
  await withTimeout(new Promise<void>((resolve) => ledgerRedis.once('ready', () => resolve())), REDIS_READY_TIMEOUT_MS);
  // With budget leases (its default), most requests are admitted without a Redis round trip.
  const ledger = createRedisLedger({ redis: ledgerRedis, prefix: `${prefix}:ledger`, log });
  const rateLimiter = createRedisRateLimiter({ redis: ledgerRedis, prefix: `${prefix}:ratelimit` });
  const queue = createBullQueue<M>({ connection: { url: config.redisUrl }, prefix: `${prefix}-queue`, log });
  /** What each key cache and broadcast subscribed with, closed with the stores. */
  const subscriptions: { close(): Promise<void>; subscriber: RedisConnection }[] = [];
  const keyInvalidations = `${prefix}:key-invalidations`;
  return {
    mode: 'scaled',
    sql: shareFreshReads(sql, ledgerRedis, prefix),
    ledger,
    rateLimiter,
    queue,
    createKeyCache: async <V>(cacheOptions: KeyCacheOptions) => {
      const subscriber = duplicateConnection(redis);
      const cache = await createRedisKeyCache<V>({
        redis,
        subscriber,
        channel: keyInvalidations,
        ...cacheOptions,
      });
      subscriptions.push({ close: () => cache.close(), subscriber });
      return cache;
    },
    invalidateKey: async (keyHash) => {
      await redis.publish(keyInvalidations, keyHash);
    },
    createBroadcast: async <T>(name: string) => {
      const subscriber = duplicateConnection(redis);
      // Published on the ledger's connection, which fails fast while Redis is away: no stale news sent late.
      const broadcast = await createRedisBroadcast<T>({ redis: ledgerRedis, subscriber, channel: `${prefix}:${name}` });
      subscriptions.push({ close: () => broadcast.close(), subscriber });
      return broadcast;
    },
    ready: async () => (await sqlReady()) && (await redis.ping().then((r) => r === 'PONG', () => false)),
    close: async () => {
      await queue.close();
      for (const { close, subscriber } of subscriptions) {
        await close();
        subscriber.disconnect();
      }
      await ledger.close();
      await rateLimiter.close();
      redis.disconnect();
      ledgerRedis.disconnect();
      await closeSql();
    },
  };
}
