// Single sign-on's edges: each domain an IdP claims carries the token its owner publishes in
// DNS (TXT _spendgate-challenge.<domain>) and when that was verified (only a verified domain
// routes SSO sign-ins or is enforced); and the IdP identities linked to accounts, by issuer
// and subject (one subject per issuer and account).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Domains claimed before this change get a token of their own and start unverified.
  await db.schema
    .alterTable('sso_domains')
    .addColumn('verification_token', 'text', (c) => c.notNull().defaultTo(sql`md5(random()::text || clock_timestamp()::text)`))
    .execute();
  await db.schema.alterTable('sso_domains').alterColumn('verification_token', (c) => c.dropDefault()).execute();
  await db.schema.alterTable('sso_domains').addColumn('verified_at', 'timestamptz').execute();

  await db.schema
    .createTable('sso_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('sso_identities_pkey', ['issuer', 'subject'])
    .addUniqueConstraint('sso_identities_issuer_user_key', ['issuer', 'user_id'])
    .execute();
  await db.schema.createIndex('sso_identities_user_idx').on('sso_identities').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sso_identities').execute();
  await db.schema.alterTable('sso_domains').dropColumn('verified_at').dropColumn('verification_token').execute();
}
