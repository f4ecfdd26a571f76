// Metered usage recorded through the API (POST /api/subscription/record-usage, platform
// admins): a quantity of one meter (BYOM requests, optimised requests under the token
// minimum, advisor insights) for a team at a moment of its current billing period, priced
// at the plan's fee then, once per (team, identifier) — the caller's idempotency key.
// Invoice lines gain a kind for them and the meter a line counts.
import { type Kysely, sql } from 'kysely';

const LINE_KINDS = `'plan', 'optimised-uplift', 'optimised-minimum-fee', 'byom-routing-fee', 'advisor-insights', 'extra-keys', 'extra-groups', 'extra-seats'`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('usage_records')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id'))
    .addColumn('meter', 'text', (c) => c.notNull().check(sql`meter in ('byom-requests', 'optimised-minimum-requests', 'advisor-insights')`))
    .addColumn('quantity', 'bigint', (c) => c.notNull().check(sql`quantity > 0`))
    .addColumn('unit_amount_micros', 'bigint', (c) => c.notNull().check(sql`unit_amount_micros >= 0`))
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('recorded_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('usage_records_identifier', ['team_id', 'identifier'])
    .execute();
  await db.schema.createIndex('usage_records_team_time_idx').on('usage_records').columns(['team_id', 'occurred_at']).execute();
  await db.schema.alterTable('invoice_lines').addColumn('meter', 'text').execute();
  await sql`alter table invoice_lines drop constraint invoice_lines_kind_check`.execute(db);
  await sql.raw(`alter table invoice_lines add constraint invoice_lines_kind_check check (kind in (${LINE_KINDS}, 'recorded-usage'))`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from invoice_lines where kind = 'recorded-usage'`.execute(db);
  await sql`alter table invoice_lines drop constraint invoice_lines_kind_check`.execute(db);
  await sql.raw(`alter table invoice_lines add constraint invoice_lines_kind_check check (kind in (${LINE_KINDS}))`).execute(db);
  await db.schema.alterTable('invoice_lines').dropColumn('meter').execute();
  await db.schema.dropTable('usage_records').execute();
}
