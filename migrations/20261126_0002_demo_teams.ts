// Demo teams: filled with sample usage for a newcomer to look at; their spend is never
// billed and never mixes with a real team's. One per user.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('teams')
    .addColumn('is_demo', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.createIndex('teams_one_demo_per_creator').on('teams').column('created_by').unique().where(sql.ref('is_demo'), '=', true).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('teams').dropColumn('is_demo').execute();
}
