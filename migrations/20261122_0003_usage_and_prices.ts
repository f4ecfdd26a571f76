// Usage events: append-only, one row per request, range-partitioned by month on
// occurred_at (partitions are created ahead by the store; a default partition catches
// anything else). Uniqueness of request_id across partitions is enforced by
// usage_request_ids, which the meter claims in the same transaction as the insert.
// Price catalog versions record which catalog priced an event.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('price_catalog_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('effective_from', 'timestamptz', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('model_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('usage_request_ids')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .execute();

  await sql`
    create table usage_events (
      request_id text not null,
      occurred_at timestamptz not null,
      team_id uuid not null,
      group_id uuid not null,
      key_id uuid not null,
      connection_id uuid,
      provider text not null,
      model text not null,
      endpoint text not null,
      status_code integer not null,
      streamed boolean not null,
      estimated boolean not null,
      input_tokens bigint not null,
      cached_read_tokens bigint not null,
      cache_write_5m_tokens bigint not null,
      cache_write_1h_tokens bigint not null,
      output_tokens bigint not null,
      reasoning_tokens bigint not null,
      cost_micros bigint,
      currency text not null,
      price_version text,
      latency_ms integer not null
    ) partition by range (occurred_at)`.execute(db);
  await sql`create table usage_events_default partition of usage_events default`.execute(db);
  await sql`create index usage_events_group_time_idx on usage_events (team_id, group_id, occurred_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table usage_events`.execute(db);
  await db.schema.dropTable('usage_request_ids').execute();
  await db.schema.dropTable('price_catalog_versions').execute();
}
