// The usage outbox: usage events kept while the queue cannot take them, oldest first.
import type { Db } from './db.ts';

/** Keeps an event; keeping the same request twice changes nothing. */
export async function insertUsageOutbox(db: Db, events: { requestId: string; payload: unknown }[]): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('usage_outbox')
    .values(events.map(({ requestId, payload }) => ({ request_id: requestId, payload: JSON.stringify(payload) })))
    .onConflict((oc) => oc.column('request_id').doNothing())
    .execute();
}

export async function listUsageOutbox(db: Db, limit: number) {
  return db.selectFrom('usage_outbox').select(['request_id', 'payload']).orderBy('created_at').limit(limit).execute();
}

export async function deleteUsageOutbox(db: Db, requestIds: string[]): Promise<void> {
  if (requestIds.length > 0) await db.deleteFrom('usage_outbox').where('request_id', 'in', requestIds).execute();
}

/** Usage events kept in the outbox, waiting for the queue (/metrics' meter backlog). */
export async function countUsageOutbox(db: Db): Promise<number> {
  const row = await db.selectFrom('usage_outbox').select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}
