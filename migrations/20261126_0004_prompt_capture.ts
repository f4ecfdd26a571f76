// Prompt and response capture (opt-in): a team's capture settings (off by default, with
// retention and its own redaction patterns), each group's (off by default; capture runs
// only where the team's and the group's are both on), and the captured bodies, redacted
// and sealed with the team's data key, each kept until its expiry.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('team_capture_settings')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('retention_days', 'integer')
    .addColumn('redaction_patterns', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('group_capture_settings')
    .addColumn('group_id', 'uuid', (c) => c.primaryKey().references('synthetic_groups.id').onDelete('cascade'))
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('prompt_captures')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('group_id', 'uuid', (c) => c.notNull())
    .addColumn('captured_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('key_version', 'integer', (c) => c.notNull())
    .addColumn('sealed', 'bytea', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('prompt_captures_expires_idx').on('prompt_captures').column('expires_at').execute();
  await db.schema.createIndex('prompt_captures_team_idx').on('prompt_captures').columns(['team_id', 'captured_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('prompt_captures').execute();
  await db.schema.dropTable('group_capture_settings').execute();
  await db.schema.dropTable('team_capture_settings').execute();
}
