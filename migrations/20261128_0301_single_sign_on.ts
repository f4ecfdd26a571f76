// Single sign-on (Enterprise): a team's OIDC identity provider (issuer, client id, the client
// secret sealed with the team's data key, whether sign-in through it is enforced, the ID-token
// claim that lists the person's IdP groups and how those groups map to team and group roles),
// the e-mail domains it owns (each domain one IdP's only), and sign-ins under way (the state's
// SHA-256 only, short-lived, used once).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sso_providers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().unique().references('teams.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('secret_ciphertext', 'bytea', (c) => c.notNull())
    .addColumn('secret_key_version', 'integer', (c) => c.notNull())
    .addColumn('enforced', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('groups_claim', 'text', (c) => c.notNull().defaultTo('groups'))
    .addColumn('default_team_role', 'text', (c) => c.check(sql`default_team_role in ('ADMIN', 'MEMBER')`))
    .addColumn('role_mappings', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('updated_by', 'uuid', (c) => c.notNull().references('users.id'))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('sso_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'uuid', (c) => c.notNull().references('sso_providers.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('sso_domains_provider_idx').on('sso_domains').column('provider_id').execute();

  await db.schema
    .createTable('sso_sign_ins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'uuid', (c) => c.notNull().references('sso_providers.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('called_back_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('sso_sign_ins_expiry_idx').on('sso_sign_ins').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sso_sign_ins').execute();
  await db.schema.dropTable('sso_domains').execute();
  await db.schema.dropTable('sso_providers').execute();
}
