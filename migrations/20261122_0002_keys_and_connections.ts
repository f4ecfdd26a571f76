// Provider connections (secret envelope-encrypted with a per-team data key) and the
// keys Spendgate issues (only a SHA-256 hash and a short visible prefix are stored).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('team_data_keys')
    .addColumn('team_id', 'uuid', (c) => c.primaryKey().references('teams.id').onDelete('cascade'))
    .addColumn('key_version', 'integer', (c) => c.notNull())
    .addColumn('wrapped_key', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('provider_connections')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('secret_ciphertext', 'bytea', (c) => c.notNull())
    .addColumn('secret_key_version', 'integer', (c) => c.notNull())
    .addColumn('secret_tail', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('provider_connections_team_idx').on('provider_connections').column('team_id').execute();

  await db.schema
    .createTable('issued_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('group_id', 'uuid', (c) => c.notNull().references('synthetic_groups.id').onDelete('cascade'))
    .addColumn('connection_id', 'uuid', (c) => c.references('provider_connections.id').onDelete('set null'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('byok', 'optimised', 'byom')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('issued_keys_group_idx').on('issued_keys').column('group_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['issued_keys', 'provider_connections', 'team_data_keys']) {
    await db.schema.dropTable(table).execute();
  }
}
