// Billing (issue 24): a subscription gets an id, Stripe's statuses (trialing, active,
// past_due, paused — a trial ended without a payment method —, canceled), its billing
// period (anchor, current start and end, cancel at period end) and Stripe ids; the plans
// it was on and since when (proration); its payment methods; the units a plan counts
// (every seat, synthetic group and optimised key, live from when to when, per team —
// the seats, groups and keys beyond an allowance are charged by the time they were live,
// so each unit's span is kept even after it is deleted; they replace plan_overages, which
// kept only those over the allowance when they started); and invoices (draft → open →
// paid | void, one per subscription and period) with their lines, each line naming what
// it counts (kind, team, window, unit price) and what the nightly proof last found.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`update subscriptions set status = 'canceled' where status = 'cancelled'`.execute(db);
  await sql`alter table subscriptions drop constraint subscriptions_status_check`.execute(db);
  await sql`alter table subscriptions add constraint subscriptions_status_check check (status in ('trialing', 'active', 'past_due', 'paused', 'canceled'))`.execute(db);
  await db.schema
    .alterTable('subscriptions')
    .addColumn('id', 'uuid', (c) => c.notNull().defaultTo(sql`gen_random_uuid()`).unique())
    .addColumn('billing_anchor', 'timestamptz')
    .addColumn('current_period_start', 'timestamptz')
    .addColumn('current_period_end', 'timestamptz')
    .addColumn('cancel_at_period_end', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('canceled_at', 'timestamptz')
    .addColumn('stripe_customer_id', 'text', (c) => c.unique())
    .addColumn('stripe_subscription_id', 'text', (c) => c.unique())
    .execute();
  await sql`create index subscriptions_period_end_idx on subscriptions (current_period_end) where status in ('active', 'past_due')`.execute(db);

  await db.schema
    .createTable('subscription_plan_history')
    .addColumn('subscription_id', 'uuid', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
    .addColumn('plan_slug', 'text', (c) => c.notNull().references('subscription_plans.slug'))
    .addColumn('effective_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscription_plan_history_pk', ['subscription_id', 'effective_at'])
    .execute();
  await sql`insert into subscription_plan_history (subscription_id, plan_slug, effective_at) select id, plan_slug, created_at from subscriptions`.execute(db);

  await db.schema
    .createTable('payment_methods')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('subscription_id', 'uuid', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
    .addColumn('stripe_payment_method_id', 'text', (c) => c.notNull().unique())
    .addColumn('brand', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('exp_month', 'integer', (c) => c.notNull())
    .addColumn('exp_year', 'integer', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('detached_at', 'timestamptz')
    .execute();
  await sql`create unique index payment_methods_one_default on payment_methods (subscription_id) where is_default and detached_at is null`.execute(db);

  await db.schema
    .createTable('plan_units')
    .addColumn('team_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('seat', 'group', 'key')`))
    .addColumn('target_id', 'uuid', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ended_at', 'timestamptz')
    .addCheckConstraint('plan_units_span', sql`ended_at is null or ended_at >= started_at`)
    .execute();
  await sql`create unique index plan_units_live on plan_units (team_id, kind, target_id) where ended_at is null`.execute(db);
  await db.schema.createIndex('plan_units_team_idx').on('plan_units').columns(['team_id', 'kind', 'started_at']).execute();
  await sql`
    insert into plan_units (team_id, kind, target_id, started_at, ended_at)
      select team_id, 'seat', user_id, created_at, null::timestamptz from team_members
      union all select team_id, 'group', id, created_at, null::timestamptz from synthetic_groups
      union all select team_id, 'key', id, created_at, revoked_at from issued_keys where kind = 'optimised'`.execute(db);
  await db.schema.dropTable('plan_overages').execute();

  await sql`create sequence invoice_number_seq`.execute(db);
  await db.schema
    .createTable('invoices')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('number', 'text', (c) => c.notNull().unique())
    .addColumn('subscription_id', 'uuid', (c) => c.notNull().references('subscriptions.id'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('draft', 'open', 'paid', 'void')`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('period_start', 'timestamptz', (c) => c.notNull())
    .addColumn('period_end', 'timestamptz', (c) => c.notNull())
    .addColumn('billed_until', 'timestamptz', (c) => c.notNull())
    .addColumn('total_pence', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finalized_at', 'timestamptz')
    .addColumn('paid_at', 'timestamptz')
    .addColumn('voided_at', 'timestamptz')
    .addColumn('stripe_invoice_id', 'text', (c) => c.unique())
    .addColumn('proof_checked_at', 'timestamptz')
    .addColumn('proof_ok', 'boolean')
    .addUniqueConstraint('invoices_one_per_period', ['subscription_id', 'period_start'])
    .execute();

  await db.schema
    .createTable('invoice_lines')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('invoice_id', 'uuid', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('plan', 'optimised-uplift', 'optimised-minimum-fee', 'byom-routing-fee', 'advisor-insights', 'extra-keys', 'extra-groups', 'extra-seats')`),
    )
    .addColumn('team_id', 'uuid')
    .addColumn('plan_slug', 'text')
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('window_end', 'timestamptz', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('quantity', 'bigint', (c) => c.notNull())
    .addColumn('unit_amount_micros', 'bigint')
    .addColumn('amount_micros', 'bigint', (c) => c.notNull())
    .addColumn('amount_pence', 'bigint', (c) => c.notNull())
    .addColumn('unpriced_requests', 'bigint', (c) => c.notNull())
    .addColumn('proof_found_quantity', 'bigint')
    .addColumn('proof_found_micros', 'bigint')
    .addUniqueConstraint('invoice_lines_position', ['invoice_id', 'position'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('invoice_lines').execute();
  await db.schema.dropTable('invoices').execute();
  await sql`drop sequence invoice_number_seq`.execute(db);
  await db.schema
    .createTable('plan_overages')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('team_id', 'uuid', (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('plan_slug', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('seat', 'group', 'key')`))
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('unit_price_micros', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('ended_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('plan_overages_team_idx').on('plan_overages').columns(['team_id', 'kind']).execute();
  await db.schema.dropTable('plan_units').execute();
  await db.schema.dropTable('payment_methods').execute();
  await db.schema.dropTable('subscription_plan_history').execute();
  await db.schema
    .alterTable('subscriptions')
    .dropColumn('id')
    .dropColumn('billing_anchor')
    .dropColumn('current_period_start')
    .dropColumn('current_period_end')
    .dropColumn('cancel_at_period_end')
    .dropColumn('canceled_at')
    .dropColumn('stripe_customer_id')
    .dropColumn('stripe_subscription_id')
    .execute();
  await sql`alter table subscriptions drop constraint subscriptions_status_check`.execute(db);
  await sql`update subscriptions set status = 'cancelled' where status = 'canceled'`.execute(db);
  await sql`update subscriptions set status = 'active' where status in ('past_due', 'paused')`.execute(db);
  await sql`alter table subscriptions add constraint subscriptions_status_check check (status in ('trialing', 'active', 'cancelled'))`.execute(db);
}
