// Gap-free invoice numbers: a number is given when an invoice is finalised (draft → open),
// in the same transaction, from a counter row per issuer and year (SG-2026-000001 and on),
// so a finalisation rolled back gives its number back and drafts have none. The sequence
// they came from (nextval is never rolled back, so it left gaps) is dropped. Invoices
// already issued keep the number they were sent with (SG-000123: customers and Stripe
// know them by it; the new ones cannot collide, being of another form); a draft's is taken
// away. Undone: drafts and new-form numbers keep what they have, the sequence starts after
// the highest old-form number.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('invoice_number_counters')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('last_number', 'bigint', (c) => c.notNull().check(sql`last_number > 0`))
    .addPrimaryKeyConstraint('invoice_number_counters_pk', ['issuer', 'year'])
    .execute();
  await sql`alter table invoices alter column number drop not null`.execute(db);
  await sql`update invoices set number = null where status = 'draft'`.execute(db);
  await sql`alter table invoices add constraint invoices_number_when_issued check ((status = 'draft' and number is null) or (status in ('open', 'paid') and number is not null) or status = 'void')`.execute(db);
  await sql`drop sequence invoice_number_seq`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create sequence invoice_number_seq`.execute(db);
  await sql`select setval('invoice_number_seq', greatest(1, coalesce((select max(substring(number from '^SG-(\\d+)$')::bigint) from invoices), 0)), (select count(*) > 0 from invoices where number ~ '^SG-\\d+$'))`.execute(db);
  await sql`alter table invoices drop constraint invoices_number_when_issued`.execute(db);
  await sql`update invoices set number = 'SG-' || lpad(nextval('invoice_number_seq')::text, 6, '0') where number is null`.execute(db);
  await sql`alter table invoices alter column number set not null`.execute(db);
  await db.schema.dropTable('invoice_number_counters').execute();
}
