/**
 * The local LRU behind both key caches: one Map whose insertion order is the recency
 * order (a hit is moved to the end; the first entry is the least recently used), with a
 * time to live per entry.
 */
import type { KeyCacheOptions } from './types.ts';

export interface Lru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  clear(): void;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export function createLru<V>({ maxEntries, ttlMs }: KeyCacheOptions, clock: () => number): Lru<V> {
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
  }
  if (!(ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${ttlMs}`);
  const entries = new Map<string, Entry<V>>();

  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      if (clock() >= entry.expiresAt) return undefined;
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, { value, expiresAt: clock() + ttlMs });
      if (entries.size > maxEntries) {
        const leastRecentlyUsed = entries.keys().next().value;
        if (leastRecentlyUsed !== undefined) entries.delete(leastRecentlyUsed);
      }
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
  };
}
