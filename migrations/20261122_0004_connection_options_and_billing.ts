// Connection options (e.g. Azure's api-version); what a usage event was billed (the
// key kind, the amount Spendgate charges in GBP micros — 0 for BYOK, whose provider
// bills the team directly — and the USD→GBP rate used, in parts per million); a
// team's own negotiated prices, which replace list prices; and whether a team lets
// requests for models without a price through.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('provider_connections')
    .addColumn('options', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .execute();
  await db.schema
    .alterTable('usage_events')
    .addColumn('key_kind', 'text', (c) => c.notNull().defaultTo('byok'))
    .addColumn('billed_micros', 'bigint')
    .addColumn('billed_currency', 'text', (c) => c.notNull().defaultTo('GBP'))
    .addColumn('fx_rate_ppm', 'bigint')
    .addColumn('billing_rule', 'text')
    .execute();
  await db.schema
    .alterTable('teams')
    .addColumn('allow_unpriced_models', 'boolean', (c) => c.notNull().defaultTo(true))
    .execute();
  await db.schema
    .createTable('team_price_overrides')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('input_per_mtok_micros', 'bigint', (c) => c.notNull())
    .addColumn('output_per_mtok_micros', 'bigint', (c) => c.notNull())
    .addColumn('cached_read_per_mtok_micros', 'bigint')
    .addColumn('cache_write_5m_per_mtok_micros', 'bigint')
    .addColumn('cache_write_1h_per_mtok_micros', 'bigint')
    .addColumn('created_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('team_price_overrides_model_unique', ['team_id', 'provider', 'model'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('team_price_overrides').execute();
  await db.schema.alterTable('teams').dropColumn('allow_unpriced_models').execute();
  await db.schema
    .alterTable('usage_events')
    .dropColumn('key_kind')
    .dropColumn('billed_micros')
    .dropColumn('billed_currency')
    .dropColumn('fx_rate_ppm')
    .dropColumn('billing_rule')
    .execute();
  await db.schema.alterTable('provider_connections').dropColumn('options').execute();
}
