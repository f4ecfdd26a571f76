// The AI advisor's written wording becomes a team setting (off by default): whether a model
// rewords the tips, and through what — one of the team's connections, or the operator's
// upstream for optimised keys — and which model. The wording calls are the team's usage: their
// events belong to the team alone, with no group or key, so usage_events and usage_rollups
// admit a null group and key (a team's totals count them; a group's or a key's never do).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('team_advisor_wording')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('connection', 'operator')`))
    .addColumn('connection_id', 'uuid', (c) => c.references('provider_connections.id').onDelete('set null'))
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`alter table usage_events alter column group_id drop not null, alter column key_id drop not null`.execute(db);
  await sql`alter table usage_rollups alter column group_id drop not null, alter column key_id drop not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from usage_rollups where group_id is null or key_id is null`.execute(db);
  await sql`delete from usage_events where group_id is null or key_id is null`.execute(db);
  await sql`alter table usage_rollups alter column group_id set not null, alter column key_id set not null`.execute(db);
  await sql`alter table usage_events alter column group_id set not null, alter column key_id set not null`.execute(db);
  await db.schema.dropTable('team_advisor_wording').execute();
}
