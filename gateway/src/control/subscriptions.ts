/**
 * An account's subscription as the spec §7 reads calls see it: what a team may do now
 * (check-access: the access rule of core's subscriptionAccess, the allowances against
 * what the team uses), a billing period's usage priced as its invoice would be, the
 * invoices, and one invoice with its lines and, page by page, what each line counts.
 * The subscription, its usage and invoices are its owner's (the account that created
 * the teams it pays for); check-access answers any member of a team; record-usage is
 * for platform admins (the operator charging usage served outside the gateway). Stripe's side
 * (checkout, payment methods, cancellation, plan changes) is payments.ts's.
 */
import { randomUUID } from 'node:crypto';
import {
  buildInvoice,
  ConflictError,
  FREE_TRIAL_DAYS,
  type InvoiceLineKind,
  isCharged,
  meterUnitMicros,
  NotFoundError,
  type PlanTerms,
  planTerms,
  type RecordedMeter,
  subscriptionAccess,
  ValidationError,
} from '@spendgate/core';
import {
  billedTeamIds,
  countTeamGroups,
  countTeamKeys,
  countTeamMembers,
  findInvoice,
  findSubscription,
  findTeam,
  findTeamSubscription,
  insertUsageRecord,
  invalidateAccountKeys,
  invoiceInput,
  invoiceLineItems,
  type KeyCache,
  listInvoiceLines,
  listInvoices,
  planSegments,
  type SqlStore,
  writeAudit,
} from '@spendgate/store';
import type { Access } from './access.ts';
import { subscriptionState } from './plans.ts';

const DAY_MS = 86_400_000;

/** How far ahead of this server's clock a recorded usage's timestamp may be (the caller's clock may run fast). */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

export const LINE_ITEMS_PAGE = { default: 100, max: 500 } as const;
/** Where the console shows the subscription and takes a payment method. */
export const SUBSCRIPTION_PATH = '/dashboard/settings/subscription';

/** A time as PostgreSQL writes a timestamptz, to the microsecond (what a cursor holds). */
const DATABASE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

function readCursor(cursor: string): { at: string; id: string } {
  const [at = '', id = ''] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (!DATABASE_TIME.test(at) || id.length === 0 || id.length > 200) throw new ValidationError('cursor', 'cursor must be the nextCursor of a previous page');
  return { at, id };
}

/** What a team uses of one allowance; past it, more can be added only when the subscription charges for extras and the plan prices them. */
const allowance = (used: number, included: number | null, extrasCharged: boolean) => ({
  used,
  included,
  extra: included === null ? 0 : Math.max(0, used - included),
  canAddMore: included === null || used < included || extrasCharged,
});

/** A team's seats, groups and optimised keys against the plan's allowances. */
async function allowances(db: SqlStore['db'], teamId: string, terms: PlanTerms, chargesExtras: boolean) {
  return {
    seats: allowance(await countTeamMembers(db, teamId), terms.seatsIncluded, chargesExtras && terms.extraSeatTiers !== null),
    syntheticGroups: allowance(await countTeamGroups(db, teamId), terms.syntheticGroupsIncluded, chargesExtras && terms.extraGroupMonthlyMicros !== null),
    optimisedKeys: allowance(await countTeamKeys(db, teamId, 'optimised'), terms.optimisedKeysIncluded, chargesExtras && terms.extraOptimisedKeyMonthlyMicros !== null),
  };
}

type StoredLine = Awaited<ReturnType<typeof listInvoiceLines>>[number];
type StoredInvoice = Awaited<ReturnType<typeof listInvoices>>[number];

const WHAT_LINES_COUNT: Record<InvoiceLineKind, 'usage-events' | 'advisor-insights' | 'usage-records' | 'plan-units' | null> = {
  plan: null,
  'optimised-uplift': 'usage-events',
  'optimised-minimum-fee': 'usage-events',
  'byom-routing-fee': 'usage-events',
  'advisor-insights': 'advisor-insights',
  'extra-keys': 'plan-units',
  'extra-groups': 'plan-units',
  'extra-seats': 'plan-units',
  'recorded-usage': 'usage-records',
};

export function createSubscriptionService(deps: { sql: SqlStore; access: Access; keyCache: Pick<KeyCache<unknown>, 'invalidate'>; now?: () => Date }) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  async function ownSubscription(userId: string) {
    const subscription = await findSubscription(db, userId);
    if (!subscription) throw new NotFoundError('Subscription');
    return subscription;
  }

  async function ownInvoice(userId: string, invoiceId: string) {
    const subscription = await ownSubscription(userId);
    const invoice = await findInvoice(db, subscription.id, invoiceId);
    if (!invoice) throw new NotFoundError('Invoice');
    return invoice;
  }

  const invoiceView = (invoice: StoredInvoice) => ({
    id: invoice.id,
    number: invoice.number,
    status: invoice.status,
    currency: 'GBP' as const,
    periodStart: invoice.period_start,
    periodEnd: invoice.period_end,
    billedUntil: invoice.billed_until,
    totalPence: Number(invoice.total_pence),
    createdAt: invoice.created_at,
    finalizedAt: invoice.finalized_at,
    paidAt: invoice.paid_at,
    voidedAt: invoice.voided_at,
    proof: { checkedAt: invoice.proof_checked_at, ok: invoice.proof_ok },
  });

  const lineView = (invoiceId: string, line: StoredLine) => ({
    id: line.id,
    kind: line.kind,
    meter: line.meter,
    teamId: line.team_id,
    planSlug: line.plan_slug,
    windowStart: line.window_start,
    windowEnd: line.window_end,
    description: line.description,
    quantity: Number(line.quantity),
    unitAmountMicros: line.unit_amount_micros?.toString() ?? null,
    amountMicros: line.amount_micros.toString(),
    amountPence: Number(line.amount_pence),
    unpricedRequests: Number(line.unpriced_requests),
    adjusts: line.adjusts_invoice_id === null ? null : { invoiceId: line.adjusts_invoice_id, number: line.adjusts_number!, arrivedFrom: line.arrived_from! },
    counts: WHAT_LINES_COUNT[line.kind],
    itemsUrl: WHAT_LINES_COUNT[line.kind] === null ? null : `/api/subscription/invoice/${invoiceId}/lines/${line.id}/items`,
    proof: { foundQuantity: line.proof_found_quantity === null ? null : Number(line.proof_found_quantity), foundMicros: line.proof_found_micros?.toString() ?? null },
  });

  return {
    /** What a team may do now under the subscription that pays for it (any member may ask). */
    async checkAccess(userId: string, teamId: string) {
      await deps.access.team(teamId, userId, 'team.members.view');
      const subscription = await findTeamSubscription(db, teamId);
      if (!subscription) throw new NotFoundError('Subscription');
      const state = subscriptionState(subscription);
      const access = subscriptionAccess(state, now());
      const terms = planTerms(state.planSlug);
      return {
        teamId,
        plan: { slug: terms.slug, name: terms.name },
        status: access.status,
        trialEnd: subscription.trial_end,
        trialDaysLeft: access.trialDaysLeft,
        hasPaymentMethod: state.hasPaymentMethod,
        paidByYou: subscription.user_id === userId,
        keys: access.keys,
        stoppedBecause: access.stoppedBecause,
        allowances: await allowances(db, teamId, terms, access.chargesExtras),
        lookBackDays: terms.lookBackDays,
        alertChannels: [...terms.alertChannels],
        subscriptionPath: SUBSCRIPTION_PATH,
      };
    },

    /**
     * A billing period's usage priced as its invoice would be: the current one (so far),
     * or the previous one (the last invoiced). During the trial the current period is the
     * trial, and nothing of it is charged.
     */
    async usage(userId: string, period: 'current' | 'previous') {
      const subscription = await ownSubscription(userId);
      const at = now();
      const access = subscriptionAccess(subscriptionState(subscription), at);
      let window: { start: Date; end: Date; charged: boolean };
      if (period === 'previous') {
        const last = (await listInvoices(db, subscription.id))[0];
        if (!last) throw new NotFoundError('Previous billing period');
        window = { start: last.period_start, end: last.billed_until, charged: true };
      } else if (subscription.current_period_start && subscription.current_period_end) {
        window = { start: subscription.current_period_start, end: subscription.current_period_end, charged: true };
      } else if (subscription.trial_end && (access.status === 'trialing' || access.status === 'paused')) {
        window = { start: new Date(subscription.trial_end.getTime() - FREE_TRIAL_DAYS * DAY_MS), end: subscription.trial_end, charged: false };
      } else {
        throw new NotFoundError('Current billing period');
      }
      // Counted up to now, this very millisecond included (usage recorded with no timestamp is at now).
      const until = new Date(Math.max(window.start.getTime(), Math.min(at.getTime() + 1, window.end.getTime())));
      const invoice = buildInvoice(await invoiceInput(db, { id: subscription.id, userId }, { start: window.start, end: window.end, billedUntil: until }));
      const terms = planTerms(subscriptionState(subscription).planSlug);
      const teams = await Promise.all(
        (await billedTeamIds(db, userId)).map(async (teamId) => ({
          teamId,
          name: (await findTeam(db, teamId))!.name,
          allowances: await allowances(db, teamId, terms, access.chargesExtras),
        })),
      );
      return {
        period: { start: window.start, end: window.end, until, trial: !window.charged },
        plan: { slug: terms.slug, name: terms.name },
        status: access.status,
        charged: window.charged,
        currency: 'GBP' as const,
        lines: invoice.lines.map((line) => ({
          kind: line.kind,
          meter: line.meter,
          teamId: line.teamId,
          planSlug: line.planSlug,
          windowStart: line.from,
          windowEnd: line.to,
          description: line.description,
          quantity: Number(line.quantity),
          unitAmountMicros: line.unitMicros?.toString() ?? null,
          amountMicros: line.amountMicros.toString(),
          amountPence: Number(line.amountPence),
          unpricedRequests: Number(line.unpricedRequests),
          adjusts: line.adjusts,
        })),
        totalPence: Number(invoice.totalPence),
        teams,
      };
    },

    /** The account's invoices, newest period first. */
    async billing(userId: string) {
      const subscription = await ownSubscription(userId);
      // The subscription is read fresh (ownSubscription); its invoices list from a read replica when there is one.
      return (await listInvoices(await deps.sql.readDb(userId), subscription.id)).map(invoiceView);
    },

    /** One invoice of the account's, with its lines and where to read what each counts. */
    async invoice(userId: string, invoiceId: string) {
      const invoice = await ownInvoice(userId, invoiceId);
      return { ...invoiceView(invoice), lines: (await listInvoiceLines(db, invoice.id)).map((line) => lineView(invoice.id, line)) };
    },

    /** A page of what a line counts (usage events, advisor insights or plan units), oldest first. */
    async lineItems(userId: string, invoiceId: string, lineId: string, page: { cursor?: string | undefined; limit?: number | undefined }) {
      const invoice = await ownInvoice(userId, invoiceId);
      const line = (await listInvoiceLines(db, invoice.id)).find((candidate) => candidate.id === lineId);
      if (!line) throw new NotFoundError('Invoice line');
      const limit = page.limit ?? LINE_ITEMS_PAGE.default;
      const rows = await invoiceLineItems(db, { ...line, usage_counted_before: invoice.usage_counted_before }, page.cursor === undefined ? undefined : readCursor(page.cursor), limit + 1);
      const items = rows.slice(0, limit);
      return {
        lineId,
        counts: WHAT_LINES_COUNT[line.kind],
        items: items.map((row) => ({ id: row.id, at: new Date(row.at), until: row.until === null ? null : new Date(row.until), amountMicros: row.amount_micros, detail: row.detail })),
        nextCursor: rows.length > limit ? Buffer.from(`${items.at(-1)!.cursor_at}|${items.at(-1)!.id}`).toString('base64url') : null,
      };
    },

    /**
     * Records a meter's quantity for a team (platform admins), as a Stripe meter event
     * is: once per (team, identifier) — the same identifier again answers the first record
     * (replayed) and one with other usage is a 409 — at a moment of the team's current
     * billing period (`timestamp`, default now), priced at the plan's fee for the meter
     * then; the period's invoice charges it on a line of its own.
     */
    async recordUsage(
      adminUserId: string,
      input: { teamId: string; meter: RecordedMeter; quantity: number; identifier: string; timestamp?: Date | undefined; description: string },
    ) {
      const team = await findTeam(db, input.teamId);
      if (!team) throw new NotFoundError('Team');
      if (!isCharged({ isDemo: team.is_demo })) throw new ConflictError('A demo team is never billed: record usage on a real team');
      const subscription = await findTeamSubscription(db, input.teamId);
      const start = subscription?.current_period_start;
      if (!subscription || !start) throw new ConflictError(`The team's subscription has no billing period to charge usage to (it is ${subscription?.status ?? 'missing'})`);
      const at = now();
      const occurredAt = input.timestamp ?? at;
      if (occurredAt < start || occurredAt.getTime() > at.getTime() + FUTURE_TOLERANCE_MS) {
        throw new ValidationError('timestamp', `timestamp must be within the current billing period, from ${start.toISOString()} to now`);
      }
      const [inForce] = await planSegments(db, subscription.id, occurredAt, new Date(occurredAt.getTime() + 1));
      const unitMicros = meterUnitMicros(inForce!.plan, input.meter);
      const { record, created } = await db.transaction().execute(async (trx) => {
        const result = await insertUsageRecord(trx, {
          id: randomUUID(),
          teamId: input.teamId,
          meter: input.meter,
          quantity: BigInt(input.quantity),
          unitMicros,
          identifier: input.identifier,
          occurredAt,
          description: input.description,
          recordedBy: adminUserId,
        });
        if (result.created) {
          await writeAudit(trx, {
            teamId: input.teamId,
            actorUserId: adminUserId,
            action: 'usage.recorded',
            targetType: 'usage_record',
            targetId: result.record.id,
            details: { meter: input.meter, quantity: input.quantity, identifier: input.identifier, unitAmountMicros: unitMicros.toString() },
          });
        }
        return result;
      });
      const sameUsage =
        record.meter === input.meter &&
        record.quantity === BigInt(input.quantity) &&
        record.description === input.description &&
        (input.timestamp === undefined || record.occurred_at.getTime() === input.timestamp.getTime());
      if (!created && !sameUsage) throw new ConflictError(`identifier ${input.identifier} has already recorded other usage for this team`);
      return {
        id: record.id,
        teamId: record.team_id,
        meter: record.meter,
        quantity: Number(record.quantity),
        unitAmountMicros: record.unit_amount_micros.toString(),
        amountMicros: (record.quantity * record.unit_amount_micros).toString(),
        identifier: record.identifier,
        timestamp: record.occurred_at,
        description: record.description,
        replayed: !created,
      };
    },

    /** Drops the account's keys from every gateway's cache, so a changed subscription (a payment method, a plan) applies at once. */
    async refreshKeys(userId: string): Promise<void> {
      await invalidateAccountKeys(db, (keyHash) => deps.keyCache.invalidate(keyHash), userId);
    },
  };
}

export type SubscriptionService = ReturnType<typeof createSubscriptionService>;
