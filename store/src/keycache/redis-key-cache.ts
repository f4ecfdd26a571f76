/**
 * Redis KeyCache for the scaled mode: each gateway keeps its own local LRU, and Redis
 * pub/sub carries invalidations between them. `invalidate` deletes the entry here and
 * PUBLISHes the key hash on `channel`; every cache subscribed to the channel (this one
 * included) deletes it on receipt.
 *
 * A message published while a subscriber is disconnected is lost, so when the
 * subscriber connects again (ioredis re-subscribes by itself) the cache forgets every
 * entry rather than serve one that may have been revoked meanwhile. On a Redis Cluster
 * (where a message published on any node reaches the subscribers of every node) the
 * subscriber moves to another node when its node goes; the cache forgets every entry
 * when the cluster loses a node too (`-node`). Entries still
 * expire after `ttlMs`, which bounds staleness if a message is lost some other way.
 *
 * `subscriber` is a connection given over to subscriptions (ioredis allows no other
 * commands on it); one cache per channel and subscriber. Both connections belong to the
 * caller: `close` unsubscribes but does not quit them.
 */
import type { RedisConnection } from '../redis-connection.ts';
import { createLru } from './lru.ts';
import type { KeyCache, KeyCacheOptions } from './types.ts';

export interface RedisKeyCacheOptions extends KeyCacheOptions {
  /** Publishes invalidations. */
  redis: RedisConnection;
  /** Receives invalidations; a connection used for subscriptions only. */
  subscriber: RedisConnection;
  /** Pub/sub channel shared by every gateway, e.g. `sg:key-invalidations`. */
  channel: string;
}

/**
 * Resolves once the cache is subscribed, so no invalidation published after that is
 * missed.
 *
 * @example
 * const cache = await createRedisKeyCache<Principal>({
 *   redis, subscriber: redis.duplicate(), channel: 'sg:key-invalidations',
 *   maxEntries: 10_000, ttlMs: 60_000,
 * });
 */
export async function createRedisKeyCache<V>(
  options: RedisKeyCacheOptions,
  clock: () => number = Date.now,
): Promise<KeyCache<V>> {
  const { redis, subscriber, channel } = options;
  const lru = createLru<V>(options, clock);
  const onMessage = (from: string, keyHash: string) => {
    if (from === channel) lru.delete(keyHash);
  };
  const onReconnect = () => lru.clear();
  const stopListening = () => {
    subscriber.off('message', onMessage);
    subscriber.off('ready', onReconnect);
    subscriber.off('-node', onReconnect);
  };
  subscriber.on('message', onMessage);
  subscriber.on('ready', onReconnect);
  subscriber.on('-node', onReconnect);
  try {
    await subscriber.subscribe(channel);
  } catch (error) {
    stopListening();
    throw error;
  }

  return {
    get: (keyHash) => lru.get(keyHash),
    set: (keyHash, value) => lru.set(keyHash, value),
    async invalidate(keyHash) {
      lru.delete(keyHash);
      await redis.publish(channel, keyHash);
    },
    async close() {
      stopListening();
      lru.clear();
      await subscriber.unsubscribe(channel);
    },
  };
}
