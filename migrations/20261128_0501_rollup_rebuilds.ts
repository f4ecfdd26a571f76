// A team's daily rollups are keyed by midnights in its time zone: when the zone changes,
// the rollup-rebuild job regroups them, a few days at a time, oldest first. One row per
// team says how far the rebuild for its current zone has got (the days are local dates
// in that zone, from the first day with usage to the day the zone changed).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rollup_rebuilds')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('first_day', 'date', (c) => c.notNull())
    .addColumn('days', 'integer', (c) => c.notNull())
    .addColumn('days_rebuilt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('requested_at', 'timestamptz', (c) => c.notNull())
    .addColumn('rebuilt_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rollup_rebuilds').execute();
}
