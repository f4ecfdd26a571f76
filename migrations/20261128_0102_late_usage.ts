// Late usage billed on adjustment lines (issue 24): a usage event keeps when it reached the
// database (recorded_at, the database's clock at the insert), an invoice the cut-off it
// counted events up to (usage_counted_before: every event recorded before it was in the
// database when the invoice was built), and an invoice line the earlier invoice it adjusts
// with the cut-off that invoice's late usage is counted from. Events recorded before this
// migration have no recorded_at and count as on time; invoices built before it counted
// every event there was, so their cut-off is now. Undone: the columns go, and adjustment
// lines with them (their invoices' totals are left as they were sent).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table usage_events add column recorded_at timestamptz`.execute(db);
  await sql`alter table usage_events alter column recorded_at set default clock_timestamp()`.execute(db);
  await db.schema.alterTable('invoices').addColumn('usage_counted_before', 'timestamptz').execute();
  await sql`update invoices set usage_counted_before = now()`.execute(db);
  await sql`alter table invoices alter column usage_counted_before set not null`.execute(db);
  await db.schema
    .alterTable('invoice_lines')
    .addColumn('adjusts_invoice_id', 'uuid', (c) => c.references('invoices.id'))
    .addColumn('arrived_from', 'timestamptz')
    .execute();
  await sql`alter table invoice_lines add constraint invoice_lines_adjustment check ((adjusts_invoice_id is null) = (arrived_from is null))`.execute(db);
  await sql`create index invoice_lines_adjusts_idx on invoice_lines (adjusts_invoice_id) where adjusts_invoice_id is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from invoice_lines where adjusts_invoice_id is not null`.execute(db);
  await db.schema.alterTable('invoice_lines').dropConstraint('invoice_lines_adjustment').execute();
  await db.schema.alterTable('invoice_lines').dropColumn('adjusts_invoice_id').dropColumn('arrived_from').execute();
  await db.schema.alterTable('invoices').dropColumn('usage_counted_before').execute();
  await sql`alter table usage_events drop column recorded_at`.execute(db);
}
