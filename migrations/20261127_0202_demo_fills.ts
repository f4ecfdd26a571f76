// A demo team's sample usage is recorded in the background, a day at a time (the
// demo-fill job): how far each demo team's sample has got, and what the job needs to go
// on after a restart — the sample's last moment (its days are the UTC days up to it) and
// its groups' and keys' ids. A demo team made before this was filled at once: it is
// recorded as filled.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('demo_fills')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('sample_end', 'timestamptz', (c) => c.notNull())
    .addColumn('groups', 'jsonb', (c) => c.notNull())
    .addColumn('days', 'integer', (c) => c.notNull().check(sql`days > 0`))
    .addColumn('days_filled', 'integer', (c) => c.notNull().defaultTo(0).check(sql`days_filled >= 0 and days_filled <= days`))
    .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('filled_at', 'timestamptz')
    .execute();
  await sql`
    insert into demo_fills (team_id, sample_end, groups, days, days_filled, requests, filled_at)
    select t.id, t.created_at, '[]'::jsonb, 90, 90, (select count(*) from usage_events e where e.team_id = t.id), t.created_at
    from teams t where t.is_demo
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('demo_fills').execute();
}
