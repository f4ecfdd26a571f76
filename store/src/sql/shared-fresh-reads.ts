/**
 * The fresh-read rule (read-replicas.ts) across the gateways of the scaled mode: a change's
 * stamp is also set in Redis (`<prefix>:fresh-read:<userId>`, expiring after the window),
 * awaited before the change's reply is sent, so the author's next read on any gateway goes
 * to the primary. A read checks this process's stamps first and asks Redis only when they
 * say stale and a replica would serve it: one EXISTS (well under a millisecond) before a
 * dashboard's scan. With Redis unreachable a read goes to the primary, which is never stale.
 * A store without replicas is returned as it is: every read is the primary's anyway.
 *
 * Why Redis rather than broadcasting stamps to every gateway's map: a broadcast reaches the
 * other gateways some time after the reply, a race with the author's next request; a key
 * set before the reply cannot be missed, and a gateway started later still finds it.
 */
import type { RedisConnection } from '../redis-connection.ts';
import type { SqlStore } from './connect.ts';

export function shareFreshReads(sql: SqlStore, redis: RedisConnection, prefix: string): SqlStore {
  if (sql.replicaLag().length === 0) return sql;
  const key = (userId: string) => `${prefix}:fresh-read:${userId}`;
  const wroteRecently = async (userId: string) =>
    (await sql.wroteRecently(userId)) || (await redis.exists(key(userId)).then((count) => count > 0, () => true));
  return {
    ...sql,
    async readDb(userId) {
      const replica = await sql.readDb();
      if (replica === sql.db || userId === undefined) return replica;
      return (await wroteRecently(userId)) ? sql.db : replica;
    },
    async wrote(userId) {
      await sql.wrote(userId);
      // Unset when Redis is away: this gateway's own stamp still holds.
      await redis.set(key(userId), '1', 'PX', sql.freshReadMs).catch(() => undefined);
    },
    wroteRecently,
  };
}
