/**
 * In-process KeyCache for the embedded mode: the local LRU alone, since one process is
 * the only place an entry can be cached.
 */
import { createLru } from './lru.ts';
import type { KeyCache, KeyCacheOptions } from './types.ts';

/** `clock` gives milliseconds since the epoch; tests inject one to move time. */
export function createInProcessKeyCache<V>(options: KeyCacheOptions, clock: () => number = Date.now): KeyCache<V> {
  const lru = createLru<V>(options, clock);
  return {
    get: (keyHash) => lru.get(keyHash),
    set: (keyHash, value) => lru.set(keyHash, value),
    async invalidate(keyHash) {
      lru.delete(keyHash);
    },
    async close() {
      lru.clear();
    },
  };
}
