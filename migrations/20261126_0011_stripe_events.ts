// Stripe's webhooks: each event as it was received (verified), how many times it came and
// when the worker processed it (once, by its id); and the latest state of each Stripe object
// read back from Stripe while processing them, with when it was read, so that an older read
// never replaces a newer one whatever order the events came in.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stripe_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text')
    .addColumn('stripe_created', 'timestamptz', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('receipts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('processed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('stripe_events_object_idx').on('stripe_events').columns(['object_id', 'stripe_created']).execute();

  await db.schema
    .createTable('stripe_objects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('object', 'text', (c) => c.notNull())
    .addColumn('state', 'jsonb', (c) => c.notNull())
    .addColumn('read_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stripe_objects').execute();
  await db.schema.dropTable('stripe_events').execute();
}
