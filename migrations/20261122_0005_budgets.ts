// Budgets: a cap (GBP micros) on a key, a synthetic group or a team, per day, week,
// month or in total; hard (refuse), soft (count and alert) or downgrade.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('budgets')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope in ('key', 'group', 'team')`))
    .addColumn('scope_id', 'uuid', (c) => c.notNull())
    .addColumn('amount_micros', 'bigint', (c) => c.notNull().check(sql`amount_micros > 0`))
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('GBP'))
    .addColumn('window', 'text', (c) => c.notNull().check(sql`"window" in ('day', 'week', 'month', 'total')`))
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('hard', 'soft', 'downgrade')`))
    .addColumn('alert_at', 'jsonb', (c) => c.notNull().defaultTo(sql`'[50, 80, 100]'::jsonb`))
    .addColumn('created_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('budgets_scope_idx').on('budgets').columns(['team_id', 'scope', 'scope_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('budgets').execute();
}
