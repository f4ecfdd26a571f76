/**
 * Redis connections for the scaled mode: one Redis server (`redis://`, `rediss://`) or a
 * Redis Cluster (`redis+cluster://[user[:password]@]host:port[,host:port…]`, any of its
 * nodes: ioredis finds the others). Every Redis user takes a `RedisConnection`, which is
 * either, and gets one from `connectRedis`.
 *
 * On a cluster, a command or script may only name keys of one hash slot: the ledger's
 * keys carry their team as a hash tag (see redis-ledger.ts), BullMQ's prefix is one hash
 * tag (`clusterQueuePrefix`), the rate limiter touches one key per script, and pub/sub
 * (classic PUBLISH / SUBSCRIBE) reaches subscribers on every node.
 */
import { Cluster, type Command, Redis, type RedisOptions } from 'ioredis';

export type RedisConnection = Redis | Cluster;

export const CLUSTER_URL_PROTOCOL = 'redis+cluster:';

export type RedisTarget =
  | { kind: 'server'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; username: string | undefined; password: string | undefined };

/** What a REDIS_URL names, or undefined when it is not a Redis URL. */
export function parseRedisUrl(value: string): RedisTarget | undefined {
  if (!value.startsWith(`${CLUSTER_URL_PROTOCOL}//`)) {
    try {
      return ['redis:', 'rediss:'].includes(new URL(value).protocol) ? { kind: 'server', url: value } : undefined;
    } catch {
      return undefined;
    }
  }
  const rest = value.slice(CLUSTER_URL_PROTOCOL.length + 2);
  const at = rest.lastIndexOf('@');
  const auth = at === -1 ? '' : `${rest.slice(0, at)}@`;
  const nodes: { host: string; port: number }[] = [];
  let credentials: URL | undefined;
  for (const node of rest.slice(at + 1).split(',')) {
    let parsed: URL;
    try {
      parsed = new URL(`redis://${auth}${node}`);
    } catch {
      return undefined;
    }
    if (parsed.port === '' || (parsed.pathname !== '' && parsed.pathname !== '/') || parsed.search !== '') return undefined;
    nodes.push({ host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port) });
    credentials = parsed;
  }
  const decoded = (part: string | undefined) => (part ? decodeURIComponent(part) : undefined);
  return { kind: 'cluster', nodes, username: decoded(credentials?.username), password: decoded(credentials?.password) };
}

/** Options every connection of ours may set; on a cluster they apply to it and to each node's connection. */
export interface ConnectOptions {
  /** Commands sent while disconnected wait (default) or fail at once. */
  enableOfflineQueue?: boolean;
  /**
   * A command unanswered after this many ms fails ("Command timed out"), judged only after
   * the replies that had arrived by then were read (see `failUnansweredAfter`).
   */
  commandTimeout?: number;
  /** Delay before reconnecting (a cluster: before reconnecting once every node was lost). */
  retryStrategy?: (attempt: number) => number;
  /** null: a command waits through reconnections (BullMQ's workers need it). */
  maxRetriesPerRequest?: number | null;
  lazyConnect?: boolean;
}

/** Connects to what `url` names (see parseRedisUrl); throws when it names nothing. */
export function connectRedis(url: string, options: ConnectOptions = {}): RedisConnection {
  const { commandTimeout, ...connectionOptions } = options;
  const connection = connectTo(url, connectionOptions);
  if (commandTimeout !== undefined) failUnansweredAfter(connection, commandTimeout);
  return connection;
}

function connectTo(url: string, options: Omit<ConnectOptions, 'commandTimeout'>): RedisConnection {
  const target = parseRedisUrl(url);
  if (target === undefined) throw new Error('not a Redis URL (redis://, rediss:// or redis+cluster://)');
  if (target.kind === 'server') return new Redis(url, options as RedisOptions);
  const { enableOfflineQueue, retryStrategy, lazyConnect, maxRetriesPerRequest } = options;
  return new Cluster(target.nodes, {
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(retryStrategy === undefined ? {} : { clusterRetryStrategy: retryStrategy }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    redisOptions: {
      ...(target.username === undefined ? {} : { username: target.username }),
      ...(target.password === undefined ? {} : { password: target.password }),
      ...(maxRetriesPerRequest === undefined ? {} : { maxRetriesPerRequest }),
    },
  });
}

/**
 * Fails each command of `connection` left unanswered `ms` after it was sent, as ioredis's
 * own `commandTimeout` does, but only after one more turn of the event loop: when the
 * loop stalls past `ms` (a long GC pause, CPU steal), the timer and the socket's reply are
 * both due when it resumes, and timers run first — ioredis's timeout would fail a command
 * whose answer was already waiting to be read (a budget refused 503 with Redis healthy).
 * The turn lets the poll phase read the reply first. On a cluster the deadline spans the
 * command's redirections.
 */
function failUnansweredAfter(connection: RedisConnection, ms: number): void {
  const send = connection.sendCommand.bind(connection) as (command: Command, ...rest: unknown[]) => unknown;
  const timed = new WeakSet<Command>();
  (connection as { sendCommand: unknown }).sendCommand = (command: Command, ...rest: unknown[]) => {
    if (!timed.has(command)) {
      timed.add(command);
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (!command.isSettled) command.reject(new Error('Command timed out'));
          }),
        ms,
      );
      command.promise.then(
        () => clearTimeout(timer),
        () => clearTimeout(timer),
      );
    }
    return send(command, ...rest);
  };
}

/** A reply a cluster gives while a failover is under way (the client retries a while, then passes it on). */
export const isFailoverReply = (error: Error) => /^(CLUSTERDOWN|TRYAGAIN|MASTERDOWN|LOADING|READONLY) /.test(error.message);

export const isCluster = (connection: RedisConnection): connection is Cluster => connection instanceof Cluster;

/** Another connection like this one (a subscriber's, say). */
export const duplicateConnection = (connection: RedisConnection): RedisConnection =>
  isCluster(connection) ? connection.duplicate() : connection.duplicate();

/** BullMQ's key prefix on a cluster: one hash tag, so each queue's scripts find all their keys on one node. */
export const clusterQueuePrefix = (prefix: string) => `{${prefix}}`;
