/**
 * Redis Broadcast for the scaled mode: news is PUBLISHed on `channel` as
 * `{"from": <this process>, "news": …}`; every process subscribed to the channel hears it
 * and ignores what it sent itself. Malformed messages are ignored.
 *
 * `subscriber` is a connection given over to subscriptions (ioredis allows no other
 * commands on it); `redis` publishes, and should fail fast while Redis is away (no offline
 * queue) so that stale news is not sent late. Both connections belong to the caller:
 * `close` unsubscribes but does not quit them.
 */
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from '../redis-connection.ts';
import type { Broadcast } from './types.ts';

export interface RedisBroadcastOptions {
  redis: RedisConnection;
  subscriber: RedisConnection;
  /** Pub/sub channel shared by every process of the deployment, e.g. `sg:upstream-health`. */
  channel: string;
}

/** Resolves once subscribed, so no news published after that is missed. */
export async function createRedisBroadcast<T>({ redis, subscriber, channel }: RedisBroadcastOptions): Promise<Broadcast<T>> {
  const self = randomUUID();
  const listeners: ((news: unknown) => void)[] = [];
  const hear = (heardOn: string, text: string) => {
    if (heardOn !== channel) return;
    let message: { from?: unknown; news?: unknown } | null;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null || message.from === self) return;
    for (const listener of listeners) listener(message.news);
  };
  subscriber.on('message', hear);
  try {
    await subscriber.subscribe(channel);
  } catch (error) {
    subscriber.off('message', hear);
    throw error;
  }
  return {
    publish(news) {
      redis.publish(channel, JSON.stringify({ from: self, news })).catch(() => {
        // Best effort: the others keep learning for themselves meanwhile.
      });
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    async close() {
      subscriber.off('message', hear);
      await subscriber.unsubscribe(channel).catch(() => {});
    },
  };
}
