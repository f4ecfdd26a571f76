// Stripe's webhook events (kept as received, processed once by id) and the latest state of
// the Stripe objects they name, as read back from Stripe.
import { sql } from 'kysely';
import type { Db } from './db.ts';

export interface ReceivedStripeEvent {
  id: string;
  type: string;
  objectId: string | null;
  created: Date;
  payload: Record<string, unknown>;
}

/**
 * Keeps an event the first time it comes and counts every later delivery of it. Returns
 * whether it is still to be processed.
 */
export async function receiveStripeEvent(db: Db, event: ReceivedStripeEvent): Promise<{ pending: boolean }> {
  const row = await db
    .insertInto('stripe_events')
    .values({ id: event.id, type: event.type, object_id: event.objectId, stripe_created: event.created, payload: JSON.stringify(event.payload) })
    .onConflict((oc) => oc.column('id').doUpdateSet({ receipts: sql<number>`stripe_events.receipts + 1` }))
    .returning('processed_at')
    .executeTakeFirstOrThrow();
  return { pending: row.processed_at === null };
}

export async function findStripeEvent(db: Db, id: string) {
  return db.selectFrom('stripe_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks the event processed; false when it already was (another run got there first). */
export async function markStripeEventProcessed(db: Db, id: string, at: Date): Promise<boolean> {
  const result = await db.updateTable('stripe_events').set({ processed_at: at }).where('id', '=', id).where('processed_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Stores an object's state read from Stripe at `readAt`, unless a later read is already stored. */
export async function storeStripeObject(db: Db, object: { id: string; object: string; state: Record<string, unknown>; readAt: Date }): Promise<void> {
  await db
    .insertInto('stripe_objects')
    .values({ id: object.id, object: object.object, state: JSON.stringify(object.state), read_at: object.readAt })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet((eb) => ({ state: eb.ref('excluded.state'), read_at: eb.ref('excluded.read_at') }))
        .where('stripe_objects.read_at', '<', object.readAt),
    )
    .execute();
}

export async function findStripeObject(db: Db, id: string) {
  return db.selectFrom('stripe_objects').selectAll().where('id', '=', id).executeTakeFirst();
}
