// Forecasts of daily spend the worker makes for each team and group (issue 23): one row
// per scope (the team's or the group's id) and month, replaced on each run, and each
// scope's rolling-origin backtest over its last 8 weeks.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('spend_forecasts')
    .addColumn('scope_id', 'uuid', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('group_id', 'uuid', (c) => c.references('synthetic_groups.id').onDelete('cascade'))
    .addColumn('made_at', 'timestamptz', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('fallback', 'boolean', (c) => c.notNull())
    .addColumn('actual_micros', 'bigint', (c) => c.notNull())
    .addColumn('projected_micros', 'bigint', (c) => c.notNull())
    .addColumn('lower80_micros', 'bigint', (c) => c.notNull())
    .addColumn('upper80_micros', 'bigint', (c) => c.notNull())
    .addColumn('lower95_micros', 'bigint', (c) => c.notNull())
    .addColumn('upper95_micros', 'bigint', (c) => c.notNull())
    .addColumn('days', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('spend_forecasts_pkey', ['scope_id', 'period'])
    .execute();
  await sql`create index spend_forecasts_team_idx on spend_forecasts (team_id)`.execute(db);
  await db.schema
    .createTable('forecast_backtests')
    .addColumn('scope_id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('group_id', 'uuid', (c) => c.references('synthetic_groups.id').onDelete('cascade'))
    .addColumn('made_at', 'timestamptz', (c) => c.notNull())
    .addColumn('weeks', 'integer', (c) => c.notNull())
    .addColumn('days', 'integer', (c) => c.notNull())
    .addColumn('mase', 'double precision')
    .addColumn('coverage80', 'double precision', (c) => c.notNull())
    .addColumn('coverage95', 'double precision', (c) => c.notNull())
    .addColumn('wape', 'double precision')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('forecast_backtests').execute();
  await db.schema.dropTable('spend_forecasts').execute();
}
