// Broadcasts: the Redis one (on each Redis target set: TEST_REDIS_URL, TEST_REDIS_CLUSTER_URL) carries news between processes
// that each subscribed with their own connection; the in-process one has no one to tell.
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { RedisConnection } from '../redis-connection.ts';
import { connectTestRedis, redisTargets, uniquePrefix } from '../testing/redis.ts';
import { createInProcessBroadcast } from './in-process-broadcast.ts';
import { createRedisBroadcast } from './redis-broadcast.ts';

describe('in-process broadcast', () => {
  it('hears nothing of what it publishes: there is no other process', async () => {
    const broadcast = createInProcessBroadcast<{ n: number }>();
    const heard = vi.fn();
    broadcast.subscribe(heard);
    broadcast.publish({ n: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard).not.toHaveBeenCalled();
    await broadcast.close();
  });
});

for (const { name, url } of redisTargets) describe(`${name} broadcast`, () => {
  const connections: RedisConnection[] = [];
  const open = () => {
    const connection = connectTestRedis(url);
    connections.push(connection);
    return connection;
  };
  afterAll(async () => {
    await Promise.all(connections.map((connection) => connection.quit()));
  });

  /** A process's broadcast on `channel`: its own publishing and subscribing connections, and what it hears. */
  const join = async (channel: string) => {
    const heard: unknown[] = [];
    const broadcast = await createRedisBroadcast<{ circuit: string }>({ redis: open(), subscriber: open(), channel });
    broadcast.subscribe((news) => heard.push(news));
    return { broadcast, heard };
  };

  it('tells every other process, never the one that published, and ignores malformed messages and other channels', async () => {
    const channel = `${uniquePrefix('broadcast')}:news`;
    const [a, b, c] = [await join(channel), await join(channel), await join(channel)];
    const other = await join(`${channel}:other`);
    const raw = open();
    await raw.publish(channel, 'not json');
    await raw.publish(channel, 'null');
    a.broadcast.publish({ circuit: 'conn-1/gpt-4o' });
    await vi.waitFor(() => expect(c.heard).toHaveLength(1));
    b.broadcast.publish({ circuit: 'conn-1/gpt-4o-mini' });
    await vi.waitFor(() => expect(c.heard).toHaveLength(2));
    expect(a.heard).toEqual([{ circuit: 'conn-1/gpt-4o-mini' }]);
    expect(b.heard).toEqual([{ circuit: 'conn-1/gpt-4o' }]);
    expect(c.heard).toEqual([{ circuit: 'conn-1/gpt-4o' }, { circuit: 'conn-1/gpt-4o-mini' }]);
    expect(other.heard).toEqual([]);

    await c.broadcast.close();
    a.broadcast.publish({ circuit: 'after-close' });
    await vi.waitFor(() => expect(b.heard).toHaveLength(2));
    expect(c.heard).toHaveLength(2);
  });

  it('drops news it cannot send instead of throwing or queueing it', async () => {
    const publisher = connectTestRedis(url); // not quit after the tests: it is closed here
    publisher.disconnect();
    const broadcast = await createRedisBroadcast<{ circuit: string }>({ redis: publisher, subscriber: open(), channel: uniquePrefix('broadcast') });
    expect(() => broadcast.publish({ circuit: 'x' })).not.toThrow();
    await broadcast.close();
  });
});
