// The AI advisor's insights: one row per finding of a team (its fingerprint unique per
// team, so a finding found again is refreshed, never charged again), with what it was
// charged, and when its change was applied.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('advisor_insights')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key_id', 'uuid')
    .addColumn('connection_id', 'uuid')
    .addColumn('provider', 'text')
    .addColumn('model', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('evidence', 'jsonb', (c) => c.notNull())
    .addColumn('change', 'jsonb', (c) => c.notNull())
    .addColumn('confidence', 'text', (c) => c.notNull().check(sql`confidence in ('high', 'medium', 'low')`))
    .addColumn('current_cost_micros', 'bigint', (c) => c.notNull())
    .addColumn('counterfactual_cost_micros', 'bigint', (c) => c.notNull())
    .addColumn('monthly_saving_micros', 'bigint', (c) => c.notNull())
    .addColumn('window_start', 'text', (c) => c.notNull())
    .addColumn('window_end', 'text', (c) => c.notNull())
    .addColumn('price_micros', 'bigint', (c) => c.notNull().check(sql`price_micros >= 0`))
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('GBP'))
    .addColumn('plan_slug', 'text', (c) => c.notNull())
    .addColumn('created_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('refreshed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('applied_at', 'timestamptz')
    .addColumn('applied_by', 'uuid', (c) => c.references('users.id'))
    .addUniqueConstraint('advisor_insights_finding_key', ['team_id', 'fingerprint'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('advisor_insights').execute();
}
