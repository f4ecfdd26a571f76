// The Stripe Checkout Sessions whose outcome (the card saved, the plan chosen) was applied to
// a subscription: once each, whether the success page or the webhook saw it complete first.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stripe_checkouts')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('subscription_id', 'uuid', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
    .addColumn('plan_slug', 'text', (c) => c.notNull())
    .addColumn('applied_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stripe_checkouts').execute();
}
