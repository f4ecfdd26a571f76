/** The embedded mode's Broadcast: one process, so nothing is sent and nothing is heard. */
import type { Broadcast } from './types.ts';

export function createInProcessBroadcast<T>(): Broadcast<T> {
  return {
    publish() {},
    subscribe() {},
    close: async () => {},
  };
}
