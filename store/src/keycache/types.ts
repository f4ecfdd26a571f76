/**
 * KeyCache: the gateway's cache of authenticated principals, keyed by issued-key hash.
 *
 * Reads are synchronous and in-process (an LRU) so a warm request never leaves the
 * process. `invalidate` removes an entry here and, in the Redis version, in every
 * other gateway process (pub/sub), so a revoked key stops working everywhere at once.
 */
export interface KeyCache<V> {
  get(keyHash: string): V | undefined;
  set(keyHash: string, value: V): void;
  /** Resolves once the invalidation has been published to every process. */
  invalidate(keyHash: string): Promise<void>;
  close(): Promise<void>;
}

export interface KeyCacheOptions {
  /** Largest number of entries kept (least recently used are evicted). */
  maxEntries: number;
  /** How long an entry lives before it must be loaded again. */
  ttlMs: number;
}
