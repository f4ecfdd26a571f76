// Compliance readiness (issue 25): when each account last signed in (any sign-in path: the
// access review shows it), and a team's own retention of raw usage events and raw GPU
// samples (null: the deployment's default, which is also the longest a team may keep them).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('last_signed_in_at', 'timestamptz').execute();
  await db.schema
    .createTable('team_retention')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('usage_event_days', 'integer', (c) => c.check(sql`usage_event_days > 0`))
    .addColumn('gpu_sample_hours', 'integer', (c) => c.check(sql`gpu_sample_hours > 0`))
    .addColumn('updated_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('team_retention').execute();
  await db.schema.alterTable('users').dropColumn('last_signed_in_at').execute();
}
