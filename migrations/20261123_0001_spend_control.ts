// Spend control: per-key settings (rate limits, upstream timeout, routing policy), the
// team's time zone for budget windows, the GBP amount each usage event counted on
// budgets (so counters can be rebuilt from the database) and its route, and the usage
// outbox that keeps events while the queue is unreachable.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('issued_keys')
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema
    .alterTable('teams')
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();
  await db.schema.alterTable('usage_events').addColumn('budget_spend_micros', 'bigint').execute();
  await db.schema.alterTable('usage_events').addColumn('route', 'text').execute();
  await sql`create index usage_events_key_time_idx on usage_events (team_id, key_id, occurred_at)`.execute(db);
  await db.schema
    .createTable('usage_outbox')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_outbox').execute();
  await sql`drop index usage_events_key_time_idx`.execute(db);
  await db.schema.alterTable('usage_events').dropColumn('route').execute();
  await db.schema.alterTable('usage_events').dropColumn('budget_spend_micros').execute();
  await db.schema.alterTable('teams').dropColumn('time_zone').execute();
  await db.schema.alterTable('issued_keys').dropColumn('settings').execute();
}
