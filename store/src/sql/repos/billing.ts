// Billing (issue 24): subscriptions' billing periods and plan history, payment methods,
// what a period counted (usage events by billing rule, advisor insights, plan units) as
// core's invoice input, and invoices with their lines, moved draft → open → paid | void.
// A subscription pays for the teams its account created, demo teams never.
import {
  type ChargeCount,
  type ChargedRule,
  type InvoiceInput,
  type InvoiceLine,
  type InvoiceLineKind,
  isCharged,
  type LateUsage,
  type PlanSegment,
  type PlanSlug,
  planTerms,
  type RecordedMeter,
  type TeamCounts,
  type UnitKind,
} from '@spendgate/core';
import { type RawBuilder, sql, type Transaction } from 'kysely';
import type { Database, InvoiceStatus, SubscriptionStatus } from '../schema.ts';
import type { Db } from './db.ts';
import { listPlanUnits } from './plan-units.ts';
import { hasPaymentMethodOn, recordPlanInForce } from './plans.ts';

const CHARGED_RULES: readonly ChargedRule[] = ['optimised-uplift', 'optimised-minimum-fee', 'byom-routing-fee'];

export async function findSubscriptionById(db: Db, subscriptionId: string) {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).executeTakeFirst();
}

export type SubscriptionRow = NonNullable<Awaited<ReturnType<typeof findSubscriptionById>>>;

/** Moves a subscription to another plan from `at` (the plan history keeps what it was on before). */
export async function changeSubscriptionPlan(db: Db, change: { subscriptionId: string; planSlug: PlanSlug; at: Date }): Promise<void> {
  await db.updateTable('subscriptions').set({ plan_slug: change.planSlug, updated_at: change.at }).where('id', '=', change.subscriptionId).execute();
  await recordPlanInForce(db, change.subscriptionId, change.planSlug, change.at);
}

/** The plans a subscription was on across [from, to), in order, each cut to the window. */
export async function planSegments(db: Db, subscriptionId: string, from: Date, to: Date): Promise<PlanSegment[]> {
  const rows = await db
    .selectFrom('subscription_plan_history')
    .select(['plan_slug', 'effective_at'])
    .where('subscription_id', '=', subscriptionId)
    .where('effective_at', '<', to)
    .orderBy('effective_at')
    .execute();
  // The last change at or before `from` is in force at its start (the first one, if every change is later).
  const first = Math.max(0, rows.findLastIndex((row) => row.effective_at <= from));
  const inForce = rows.slice(first);
  return inForce.map((row, index) => ({
    plan: planTerms(row.plan_slug as PlanSlug),
    from: index === 0 ? from : row.effective_at,
    to: inForce[index + 1]?.effective_at ?? to,
  }));
}

/** Starts billing: the subscription is active from `start`, periods anchored there. */
export async function startBillingPeriod(db: Db, period: { subscriptionId: string; anchor: Date; start: Date; end: Date }): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set({
      status: 'active',
      billing_anchor: period.anchor,
      current_period_start: period.start,
      current_period_end: period.end,
      cancel_at_period_end: false,
      canceled_at: null,
      updated_at: new Date(),
    })
    .where('id', '=', period.subscriptionId)
    .execute();
}

/** After a period is invoiced: the next one starts, or the subscription ends (cancelled). */
export async function advanceBillingPeriod(db: Db, subscriptionId: string, next: { start: Date; end: Date } | { canceledAt: Date }): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set(
      'canceledAt' in next
        ? { status: 'canceled', canceled_at: next.canceledAt, current_period_start: null, current_period_end: null, cancel_at_period_end: false, updated_at: new Date() }
        : { current_period_start: next.start, current_period_end: next.end, updated_at: new Date() },
    )
    .where('id', '=', subscriptionId)
    .execute();
}

export async function setSubscriptionStatus(db: Db, subscriptionId: string, status: SubscriptionStatus): Promise<void> {
  await db.updateTable('subscriptions').set({ status, updated_at: new Date() }).where('id', '=', subscriptionId).execute();
}

/** Trials that have ended by `at` and are still marked trialing, with whether each has a default payment method. */
export async function endedTrials(db: Db, at: Date) {
  return db
    .selectFrom('subscriptions as s')
    .select(['s.id', 's.plan_slug', 's.trial_end', 's.cancel_at_period_end', hasPaymentMethodOn('s.id').as('has_payment_method')])
    .where('s.status', '=', 'trialing')
    .where('s.trial_end', '<=', at)
    .orderBy('s.trial_end')
    .execute();
}

/** Subscriptions with a billing period to invoice at `at`: it has ended, or the subscription was cancelled at once within it. */
export async function subscriptionsToInvoice(db: Db, at: Date, limit: number) {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('current_period_end', 'is not', null)
    .where((eb) => eb.or([eb('current_period_end', '<=', at), eb.and([eb('status', '=', 'canceled'), eb('canceled_at', '<=', at)])]))
    .orderBy('current_period_end')
    .limit(limit)
    .execute();
}

/** The subscription, locked for the rest of the transaction. */
export async function lockSubscription(db: Db, subscriptionId: string) {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', subscriptionId).forUpdate().executeTakeFirst();
}

export async function insertPaymentMethod(
  db: Db,
  method: { id: string; subscriptionId: string; stripePaymentMethodId: string; brand: string; last4: string; expMonth: number; expYear: number; isDefault: boolean },
): Promise<void> {
  if (method.isDefault) {
    await db.updateTable('payment_methods').set({ is_default: false }).where('subscription_id', '=', method.subscriptionId).where('is_default', '=', true).execute();
  }
  await db
    .insertInto('payment_methods')
    .values({
      id: method.id,
      subscription_id: method.subscriptionId,
      stripe_payment_method_id: method.stripePaymentMethodId,
      brand: method.brand,
      last4: method.last4,
      exp_month: method.expMonth,
      exp_year: method.expYear,
      is_default: method.isDefault,
    })
    .execute();
}

/** The teams a subscription pays for: those its account created that are charged at all (core's isCharged: not a demo team). */
export async function billedTeamIds(db: Db, userId: string): Promise<string[]> {
  const rows = await db.selectFrom('teams').select(['id', 'is_demo']).where('created_by', '=', userId).orderBy('id').execute();
  return rows.filter((row) => isCharged({ isDemo: row.is_demo })).map((row) => row.id);
}

interface ChargeRow {
  team_id: string;
  billing_rule: ChargedRule;
  unit_micros: string | null;
  requests: string;
  billed_micros: string;
  unpriced_requests: string;
}

/**
 * Which usage events count by when they reached the database: those recorded before
 * `before` (an invoice's own lines; events recorded before arrival times were kept count
 * as on time), or from `from` (an adjustment's late usage). Unbounded when absent.
 */
export interface Arrival {
  from?: Date;
  before?: Date;
}

function arrivedWithin(arrival: Arrival): RawBuilder<unknown> {
  const bounds = [sql`true`];
  if (arrival.from !== undefined) bounds.push(sql`recorded_at >= ${arrival.from}`);
  if (arrival.before !== undefined) bounds.push(arrival.from !== undefined ? sql`recorded_at < ${arrival.before}` : sql`(recorded_at is null or recorded_at < ${arrival.before})`);
  return sql.join(bounds, sql` and `);
}

/**
 * The teams' usage events in [from, to) that Spendgate bills, summed per team and rule,
 * and for a fixed fee per amount billed (so each line has one unit price), of those that
 * arrived within `arrival`. A scan of the teams' events in the window: the monthly
 * partitions and (team, …, occurred_at) index keep it to the period's own rows.
 */
export async function countCharges(db: Db, teamIds: readonly string[], from: Date, to: Date, arrival: Arrival = {}): Promise<(ChargeCount & { teamId: string })[]> {
  if (teamIds.length === 0) return [];
  const { rows } = await sql<ChargeRow>`
    select team_id, billing_rule,
      case when billing_rule = 'optimised-uplift' then null else billed_micros end as unit_micros,
      count(*) as requests,
      coalesce(sum(billed_micros), 0) as billed_micros,
      count(*) filter (where billed_micros is null) as unpriced_requests
    from usage_events
    where team_id in (${sql.join(teamIds)}) and occurred_at >= ${from} and occurred_at < ${to}
      and billing_rule in (${sql.join(CHARGED_RULES)}) and ${arrivedWithin(arrival)}
    group by 1, 2, 3`.execute(db);
  return rows.map((row) => ({
    teamId: row.team_id,
    rule: row.billing_rule,
    unitMicros: row.unit_micros === null ? null : BigInt(row.unit_micros),
    requests: BigInt(row.requests),
    billedMicros: BigInt(row.billed_micros),
    unpricedRequests: BigInt(row.unpriced_requests),
  }));
}

/**
 * The cut-off an invoice counts usage events up to: the database's clock once every
 * insert of usage events under way has committed (a SHARE lock on usage_events waits for
 * them and holds new ones back for that instant). Each event is stamped with the same
 * clock when inserted, so every event recorded before the cut-off is visible to what
 * reads after it, and every later one is late usage. Taken in a transaction of its own,
 * before the invoice's, so the data plane's inserts wait only for that instant.
 */
export async function usageCountedBefore(db: Db): Promise<Date> {
  return db.transaction().execute(async (trx) => {
    await sql`lock table usage_events in share mode`.execute(trx);
    const { rows } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(trx);
    return new Date(rows[0]!.now);
  });
}

/** An earlier invoiced window whose late usage is counted: recorded from `arrivedFrom`. */
export interface LateWindow {
  invoiceId: string;
  number: string;
  from: Date;
  to: Date;
  arrivedFrom: Date;
}

/**
 * The subscription's invoices before `periodStart` whose window may have late usage
 * (not void, their period ended after `since`: older events are pruned), each with the
 * cut-off its usage was counted to so far — its own, or that of the last invoice (not
 * void) whose adjustment lines billed late usage of it.
 */
export async function lateUsageWindows(db: Db, subscriptionId: string, periodStart: Date, since: Date): Promise<LateWindow[]> {
  const rows = await db
    .selectFrom('invoices as e')
    .leftJoin('invoice_lines as l', 'l.adjusts_invoice_id', 'e.id')
    .leftJoin('invoices as n', (join) => join.onRef('n.id', '=', 'l.invoice_id').on('n.status', '!=', 'void'))
    .select(['e.id', 'e.number', 'e.period_start', 'e.billed_until', sql<Date>`greatest(e.usage_counted_before, max(n.usage_counted_before))`.as('arrived_from')])
    .where('e.subscription_id', '=', subscriptionId)
    .where('e.status', 'in', ['open', 'paid'])
    .where('e.period_start', '<', periodStart)
    .where('e.period_end', '>', since)
    .groupBy(['e.id', 'e.number', 'e.period_start', 'e.billed_until', 'e.usage_counted_before'])
    .orderBy('e.period_start')
    .execute();
  return rows.map((row) => ({ invoiceId: row.id, number: row.number!, from: row.period_start, to: row.billed_until, arrivedFrom: new Date(row.arrived_from) }));
}

/** The windows an invoice's adjustment lines bill late usage of, as they were counted (for the proof). */
export async function adjustedWindows(db: Db, invoiceId: string): Promise<LateWindow[]> {
  const rows = await db
    .selectFrom('invoice_lines as l')
    .innerJoin('invoices as e', 'e.id', 'l.adjusts_invoice_id')
    .select(['e.id', 'e.number', 'e.period_start', 'e.billed_until', 'l.arrived_from'])
    .distinct()
    .where('l.invoice_id', '=', invoiceId)
    .execute();
  return rows.map((row) => ({ invoiceId: row.id, number: row.number!, from: row.period_start, to: row.billed_until, arrivedFrom: row.arrived_from! }));
}

/** The advisor insights the teams were charged for in [from, to), counted per team and price. */
export async function countAdvisorCharges(db: Db, teamIds: readonly string[], from: Date, to: Date) {
  if (teamIds.length === 0) return [];
  const rows = await db
    .selectFrom('advisor_insights')
    .select((eb) => ['team_id', 'price_micros', eb.fn.countAll<string>().as('count')])
    .where('team_id', 'in', teamIds)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy(['team_id', 'price_micros'])
    .execute();
  return rows.map((row) => ({ teamId: row.team_id, priceMicros: row.price_micros, count: BigInt(row.count) }));
}

/** Records a meter's quantity for a team once per identifier: answers the record, and whether this call stored it. */
export async function insertUsageRecord(
  db: Db,
  record: { id: string; teamId: string; meter: RecordedMeter; quantity: bigint; unitMicros: bigint; identifier: string; occurredAt: Date; description: string; recordedBy: string },
) {
  const inserted = await db
    .insertInto('usage_records')
    .values({
      id: record.id,
      team_id: record.teamId,
      meter: record.meter,
      quantity: record.quantity,
      unit_amount_micros: record.unitMicros,
      identifier: record.identifier,
      occurred_at: record.occurredAt,
      description: record.description,
      recorded_by: record.recordedBy,
    })
    .onConflict((oc) => oc.columns(['team_id', 'identifier']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { record: inserted, created: true };
  const existing = await db.selectFrom('usage_records').selectAll().where('team_id', '=', record.teamId).where('identifier', '=', record.identifier).executeTakeFirstOrThrow();
  return { record: existing, created: false };
}

/** The usage the teams recorded through the API in [from, to), summed per team, meter and unit price. */
export async function countRecordedUsage(db: Db, teamIds: readonly string[], from: Date, to: Date) {
  if (teamIds.length === 0) return [];
  const rows = await db
    .selectFrom('usage_records')
    .select((eb) => ['team_id', 'meter', 'unit_amount_micros', eb.fn.sum<string>('quantity').as('quantity')])
    .where('team_id', 'in', teamIds)
    .where('occurred_at', '>=', from)
    .where('occurred_at', '<', to)
    .groupBy(['team_id', 'meter', 'unit_amount_micros'])
    .execute();
  return rows.map((row) => ({ teamId: row.team_id, meter: row.meter, unitMicros: row.unit_amount_micros, quantity: BigInt(row.quantity) }));
}

/**
 * What a subscription's billing period counted, as core's invoice input: the plans in
 * force from the period's start to `billedUntil`, and per billed team its charged usage
 * events, advisor insights, recorded usage and plan units; with `usage`, only the events
 * recorded before its cut-off, and the late usage of earlier windows recorded from theirs
 * up to it. The invoice build, the proof and the usage so far all read it.
 */
export async function invoiceInput(
  db: Db,
  subscription: { id: string; userId: string },
  period: { start: Date; end: Date; billedUntil: Date },
  usage?: { countedBefore: Date; late: readonly LateWindow[] },
): Promise<InvoiceInput> {
  const { start, billedUntil } = period;
  const teamIds = await billedTeamIds(db, subscription.userId);
  const charges = await countCharges(db, teamIds, start, billedUntil, usage ? { before: usage.countedBefore } : {});
  const insights = await countAdvisorCharges(db, teamIds, start, billedUntil);
  const recorded = await countRecordedUsage(db, teamIds, start, billedUntil);
  const units = await listPlanUnits(db, teamIds, start, billedUntil);
  const teams: TeamCounts[] = teamIds.map((teamId) => {
    const spans = (kind: UnitKind) =>
      units.filter((unit) => unit.team_id === teamId && unit.kind === kind).map((unit) => ({ id: unit.target_id, from: unit.started_at, to: unit.ended_at }));
    return {
      teamId,
      charges: charges.filter((charge) => charge.teamId === teamId),
      advisorInsights: insights.filter((insight) => insight.teamId === teamId),
      recorded: recorded.filter((usage) => usage.teamId === teamId),
      units: { key: spans('key'), group: spans('group'), seat: spans('seat') },
    };
  });
  return {
    period: { start, end: period.end },
    plans: billedUntil > start ? await planSegments(db, subscription.id, start, billedUntil) : [],
    teams,
    lateUsage: usage ? await lateUsageInput(db, teamIds, usage.late, usage.countedBefore) : [],
  };
}

/** The late usage of earlier windows the billed teams recorded from each window's cut-off up to `countedBefore`, as core's input. */
export async function lateUsageInput(db: Db, teamIds: readonly string[], windows: readonly LateWindow[], countedBefore: Date): Promise<LateUsage[]> {
  const lateUsage: LateUsage[] = [];
  for (const window of windows) {
    const late = await countCharges(db, teamIds, window.from, window.to, { from: window.arrivedFrom, before: countedBefore });
    if (late.length === 0) continue;
    lateUsage.push({
      adjusts: { invoiceId: window.invoiceId, number: window.number, arrivedFrom: window.arrivedFrom },
      window: { from: window.from, to: window.to },
      teams: teamIds.map((teamId) => ({ teamId, charges: late.filter((charge) => charge.teamId === teamId) })),
    });
  }
  return lateUsage;
}

/** Subscriptions that have ended (no billing period left) with an invoice whose period ended after `since`: where late usage may still be billed. */
export async function endedSubscriptionsWithInvoices(db: Db, since: Date) {
  return db
    .selectFrom('subscriptions as s')
    .select(['s.id'])
    .where('s.status', '=', 'canceled')
    .where('s.current_period_start', 'is', null)
    .where((eb) => eb.exists(eb.selectFrom('invoices as i').select('i.id').whereRef('i.subscription_id', '=', 's.id').where('i.status', 'in', ['open', 'paid']).where('i.period_end', '>', since)))
    .orderBy('s.id')
    .execute();
}

/**
 * Records a period's invoice as a draft with its lines, once: a second call for the
 * same subscription and period changes nothing and answers the invoice stored first.
 */
export async function insertInvoice(
  db: Db,
  invoice: {
    id: string;
    subscriptionId: string;
    periodStart: Date;
    periodEnd: Date;
    billedUntil: Date;
    createdAt: Date;
    usageCountedBefore: Date;
    lines: readonly InvoiceLine[];
    totalPence: bigint;
  },
): Promise<{ id: string; created: boolean }> {
  const inserted = await db
    .insertInto('invoices')
    .values({
      id: invoice.id,
      subscription_id: invoice.subscriptionId,
      status: 'draft',
      currency: 'GBP',
      period_start: invoice.periodStart,
      period_end: invoice.periodEnd,
      billed_until: invoice.billedUntil,
      total_pence: invoice.totalPence,
      created_at: invoice.createdAt,
      usage_counted_before: invoice.usageCountedBefore,
    })
    .onConflict((oc) => oc.columns(['subscription_id', 'period_start']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) {
    const existing = await db
      .selectFrom('invoices')
      .select('id')
      .where('subscription_id', '=', invoice.subscriptionId)
      .where('period_start', '=', invoice.periodStart)
      .executeTakeFirstOrThrow();
    return { id: existing.id, created: false };
  }
  if (invoice.lines.length > 0) {
    await db
      .insertInto('invoice_lines')
      .values(
        invoice.lines.map((line, position) => ({
          id: crypto.randomUUID(),
          invoice_id: invoice.id,
          position,
          kind: line.kind,
          meter: line.meter,
          team_id: line.teamId,
          plan_slug: line.planSlug,
          window_start: line.from,
          window_end: line.to,
          description: line.description,
          quantity: line.quantity,
          unit_amount_micros: line.unitMicros,
          amount_micros: line.amountMicros,
          amount_pence: line.amountPence,
          unpriced_requests: line.unpricedRequests,
          adjusts_invoice_id: line.adjusts?.invoiceId ?? null,
          arrived_from: line.adjusts?.arrivedFrom ?? null,
        })),
      )
      .execute();
  }
  return { id: invoice.id, created: true };
}

/** Who issues Spendgate's invoices: the prefix of their numbers. */
const INVOICE_ISSUER = 'SG';

/**
 * Finalises a draft invoice (draft → open) and gives it the next number of its year,
 * `SG-2026-000123`. The number comes from the issuer's counter row in the same transaction
 * (which holds that row until it ends), so finalisations take consecutive numbers in the
 * order they commit, and one rolled back gives its number back: no gaps, no duplicates.
 * Answers the number, or undefined when the invoice is not a draft.
 */
export async function finalizeInvoice(trx: Transaction<Database>, invoiceId: string, at: Date): Promise<string | undefined> {
  const draft = await trx.selectFrom('invoices').select('id').where('id', '=', invoiceId).where('status', '=', 'draft').forUpdate().executeTakeFirst();
  if (!draft) return undefined;
  const year = at.getUTCFullYear();
  const counter = await trx
    .insertInto('invoice_number_counters')
    .values({ issuer: INVOICE_ISSUER, year, last_number: 1n })
    .onConflict((oc) => oc.columns(['issuer', 'year']).doUpdateSet({ last_number: sql`invoice_number_counters.last_number + 1` }))
    .returning('last_number')
    .executeTakeFirstOrThrow();
  const number = `${INVOICE_ISSUER}-${year}-${counter.last_number.toString().padStart(6, '0')}`;
  await trx.updateTable('invoices').set({ status: 'open', number, finalized_at: at }).where('id', '=', invoiceId).execute();
  return number;
}

const TRANSITIONS: Record<'paid' | 'void', { from: InvoiceStatus[]; stamp: 'paid_at' | 'voided_at' }> = {
  paid: { from: ['open'], stamp: 'paid_at' },
  void: { from: ['draft', 'open'], stamp: 'voided_at' },
};

/** Moves an open invoice to paid, or a draft or open one to void; false when it is not in a state that allows it (finalizeInvoice opens a draft). */
export async function moveInvoice(db: Db, invoiceId: string, to: 'paid' | 'void', at: Date): Promise<boolean> {
  const { from, stamp } = TRANSITIONS[to];
  const result = await db
    .updateTable('invoices')
    .set({ status: to, [stamp]: at })
    .where('id', '=', invoiceId)
    .where('status', 'in', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function listInvoices(db: Db, subscriptionId: string) {
  return db.selectFrom('invoices').selectAll().where('subscription_id', '=', subscriptionId).orderBy('period_start', 'desc').execute();
}

export async function findInvoice(db: Db, subscriptionId: string, invoiceId: string) {
  return db.selectFrom('invoices').selectAll().where('subscription_id', '=', subscriptionId).where('id', '=', invoiceId).executeTakeFirst();
}

/** An invoice's lines in order; an adjustment line with the number of the invoice it adjusts. */
export async function listInvoiceLines(db: Db, invoiceId: string) {
  return db
    .selectFrom('invoice_lines as l')
    .leftJoin('invoices as adjusted', 'adjusted.id', 'l.adjusts_invoice_id')
    .selectAll('l')
    .select('adjusted.number as adjusts_number')
    .where('l.invoice_id', '=', invoiceId)
    .orderBy('l.position')
    .execute();
}

/** Invoices the nightly proof recounts: every one not void whose period ended after `since` (older events may be pruned). */
export async function invoicesToProve(db: Db, since: Date) {
  return db
    .selectFrom('invoices as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .select(['i.id', 'i.number', 'i.subscription_id', 's.user_id', 'i.period_start', 'i.period_end', 'i.billed_until', 'i.total_pence', 'i.usage_counted_before'])
    .where('i.status', '!=', 'void')
    .where('i.period_end', '>', since)
    .orderBy('i.period_end')
    .execute();
}

/** What the proof found for each line of an invoice, and whether all agreed. */
export async function recordInvoiceProof(
  db: Db,
  proof: { invoiceId: string; at: Date; ok: boolean; lines: readonly { lineId: string; quantity: bigint; amountMicros: bigint }[] },
): Promise<void> {
  for (const line of proof.lines) {
    await db
      .updateTable('invoice_lines')
      .set({ proof_found_quantity: line.quantity, proof_found_micros: line.amountMicros })
      .where('id', '=', line.lineId)
      .where('invoice_id', '=', proof.invoiceId)
      .execute();
  }
  await db.updateTable('invoices').set({ proof_checked_at: proof.at, proof_ok: proof.ok }).where('id', '=', proof.invoiceId).execute();
}

/** Which events, insights or units an invoice line counts: its kind, team, window and unit price; for usage events, when they arrived (its invoice's cut-off, and an adjustment's start). */
export interface LineScope {
  kind: InvoiceLineKind;
  meter: RecordedMeter | null;
  team_id: string | null;
  window_start: Date;
  window_end: Date;
  unit_amount_micros: bigint | null;
  arrived_from: Date | null;
  usage_counted_before: Date;
}

interface LineItemRow {
  id: string;
  at: Date;
  until: Date | null;
  amount_micros: string | null;
  detail: string;
  /** `at` as the database writes it, to the microsecond: what a page's cursor holds. */
  cursor_at: string;
}

const UNIT_OF_LINE: Partial<Record<InvoiceLineKind, UnitKind>> = { 'extra-keys': 'key', 'extra-groups': 'group', 'extra-seats': 'seat' };

/**
 * A page of what an invoice line counts, oldest first, after the cursor: the usage events
 * of its rule (and fee), the advisor insights of its price, the usage recorded for its
 * meter and price, or the units live in its window — the same predicate the invoice build and the proof sum. A plan line counts
 * no items (it is the plan in force over its window).
 */
export async function invoiceLineItems(db: Db, line: LineScope, after: { at: string; id: string } | undefined, limit: number): Promise<LineItemRow[]> {
  if (line.team_id === null) return [];
  const start = line.window_start;
  const end = line.window_end;
  const page = (time: string, id: string) => (after === undefined ? sql`true` : sql`(${sql.ref(time)}, ${sql.ref(id)}) > (${after.at}::timestamptz, ${after.id})`);
  const unit = UNIT_OF_LINE[line.kind];
  let query: RawBuilder<LineItemRow>;
  if (line.kind === 'optimised-uplift' || line.kind === 'optimised-minimum-fee' || line.kind === 'byom-routing-fee') {
    query = sql<LineItemRow>`
      select request_id as id, occurred_at as at, null::timestamptz as until, billed_micros::text as amount_micros,
        provider || '/' || model as detail, occurred_at::text as cursor_at
      from usage_events
      where team_id = ${line.team_id} and occurred_at >= ${start} and occurred_at < ${end} and billing_rule = ${line.kind}
        and ${line.unit_amount_micros === null ? sql`true` : sql`billed_micros = ${line.unit_amount_micros}`}
        and ${arrivedWithin({ ...(line.arrived_from === null ? {} : { from: line.arrived_from }), before: line.usage_counted_before })}
        and ${page('occurred_at', 'request_id')}
      order by occurred_at, request_id limit ${limit}`;
  } else if (line.kind === 'advisor-insights') {
    query = sql<LineItemRow>`
      select id::text as id, created_at as at, null::timestamptz as until, price_micros::text as amount_micros, title as detail, created_at::text as cursor_at
      from advisor_insights
      where team_id = ${line.team_id} and created_at >= ${start} and created_at < ${end} and price_micros = ${line.unit_amount_micros}
        and ${page('created_at', 'id::text')}
      order by created_at, id limit ${limit}`;
  } else if (line.kind === 'recorded-usage') {
    query = sql<LineItemRow>`
      select id::text as id, occurred_at as at, null::timestamptz as until, (quantity * unit_amount_micros)::text as amount_micros,
        quantity::text || ' × ' || meter || case when description = '' then '' else ': ' || description end as detail, occurred_at::text as cursor_at
      from usage_records
      where team_id = ${line.team_id} and occurred_at >= ${start} and occurred_at < ${end} and meter = ${line.meter} and unit_amount_micros = ${line.unit_amount_micros}
        and ${page('occurred_at', 'id::text')}
      order by occurred_at, id limit ${limit}`;
  } else if (unit !== undefined) {
    query = sql<LineItemRow>`
      select target_id::text as id, started_at as at, ended_at as until, null as amount_micros, kind as detail, started_at::text as cursor_at
      from plan_units
      where team_id = ${line.team_id} and kind = ${unit} and started_at < ${end} and (ended_at is null or ended_at > ${start})
        and ${page('started_at', 'target_id::text')}
      order by started_at, target_id limit ${limit}`;
  } else {
    return [];
  }
  return (await query.execute(db)).rows;
}
