// Spend digests: a team admin's weekly or monthly e-mail of the team's spend (one choice
// per admin and team), and each one sent, so a period's digest goes once however many
// workers run the job.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('spend_digests')
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('frequency', 'text', (c) => c.notNull().check(sql`frequency in ('weekly', 'monthly')`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('spend_digests_pkey', ['team_id', 'user_id'])
    .execute();
  await db.schema
    .createTable('spend_digest_sends')
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('frequency', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text', (c) => c.notNull().check(sql`period_start ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'`))
    .addColumn('sent_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('spend_digest_sends_pkey', ['team_id', 'user_id', 'frequency', 'period_start'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('spend_digest_sends').execute();
  await db.schema.dropTable('spend_digests').execute();
}
