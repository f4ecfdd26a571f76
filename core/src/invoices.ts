/**
 * Invoices (issue 24): what one billing period of a subscription costs, line by line,
 * from the plans in force across it and what was counted in it. Pure: the store
 * gathers the counts, this prices them, and the nightly proof runs it again on the
 * counts as they are then and compares.
 *
 * The rules:
 * - A billing period runs a calendar month from the subscription's anchor, in UTC
 *   (`periodEndAfter`): anchored on the 31st, February's period ends on the 28th/29th.
 * - Time-based prices — the plan fee, and the monthly price of each optimised key,
 *   synthetic group and seat beyond what the plan includes — are prorated by the time
 *   they were in force, to the millisecond (the resolution of stored times), over the
 *   period's length: price × ms in force / ms in the period. A plan changed mid-period
 *   gives a plan line per plan, each with its share; units are counted under the plan
 *   in force at each moment. A subscription cancelled at once stops its lines there.
 * - At each moment a team's extra units are its live ones beyond the plan's included
 *   number (keys and groups at one price each; seats graduated: each seat at its tier's
 *   price, `seatsMonthlyMicros`). Allowances are per team; the plan fee per subscription.
 * - Per-request charges (optimised uplift, optimised minimum fee, BYOM routing fee)
 *   are what each usage event was billed when it was recorded (`billRequest` under the
 *   plan of that moment); an event whose cost was unknown is counted as unpriced and
 *   billed nothing, never a made-up zero price. Advisor insights are what each was
 *   charged when first found. Usage recorded through the API (a meter's quantity) is
 *   charged at the plan's fee for that meter when it happened (`meterUnitMicros`).
 * - Rounding, once per line: a line is summed exactly in micro-units; a prorated line
 *   divides its exact sum once, rounding half-up to the micro; then the line is rounded
 *   half-up to whole pence. The invoice total is the sum of its lines' pence.
 * - Late usage: a usage event that reaches the database after its period was invoiced (a
 *   queue away for hours, an outbox replayed) is billed on the subscription's next invoice,
 *   as Stripe bills an invoice item dated in an earlier period: on adjustment lines of
 *   their own after the period's lines, one per team, rule and fee as any usage line,
 *   each naming the invoice it adjusts and the earlier window it counts. An invoice once
 *   finalised is never changed (its number and total were sent), and no invoice is made
 *   for a few pence that arrived late. A subscription that has ended has no next invoice: its
 *   late usage, once it arrived more than the grace period ago, gets a standalone invoice
 *   of adjustment lines only (`buildAdjustmentInvoice`), none when it comes to £0. What was invoiced already is told apart from what
 *   arrived later by when each event reached the database (the store's cut-offs), so an
 *   event is billed once: on its period's invoice or on one adjustment.
 */
import { formatMoney, money, roundHalfUpDiv } from './money.ts';
import { type PlanTerms, seatsMonthlyMicros } from './plans.ts';

const MICROS_PER_PENNY = 10_000n;

/** What an invoice line charges for. */
export type InvoiceLineKind =
  | 'plan'
  | 'optimised-uplift'
  | 'optimised-minimum-fee'
  | 'byom-routing-fee'
  | 'advisor-insights'
  | 'extra-keys'
  | 'extra-groups'
  | 'extra-seats'
  | 'recorded-usage';

/** The per-request billing rules an invoice charges (BYOK requests are billed by the provider). */
export type ChargedRule = 'optimised-uplift' | 'optimised-minimum-fee' | 'byom-routing-fee';

export type UnitKind = 'key' | 'group' | 'seat';

/** What usage recorded through the API counts (POST /subscription/record-usage). */
export const RECORDED_METERS = ['byom-requests', 'optimised-minimum-requests', 'advisor-insights'] as const;
export type RecordedMeter = (typeof RECORDED_METERS)[number];

const METER_NOUNS: Record<RecordedMeter, string> = {
  'byom-requests': 'BYOM requests',
  'optimised-minimum-requests': 'optimised requests under the token minimum',
  'advisor-insights': 'AI Advisor insights',
};

/** What one unit of a meter costs under a plan: the fee its per-request or per-insight charge is. */
export function meterUnitMicros(plan: PlanTerms, meter: RecordedMeter): bigint {
  return { 'byom-requests': plan.byomRoutingFeeMicros, 'optimised-minimum-requests': plan.belowMinimumFeeMicros, 'advisor-insights': plan.advisorInsightMicros }[meter];
}

const UNIT_LINE: Record<UnitKind, InvoiceLineKind> = { key: 'extra-keys', group: 'extra-groups', seat: 'extra-seats' };

/** A plan in force over [from, to). */
export interface PlanSegment {
  plan: PlanTerms;
  from: Date;
  to: Date;
}

/** Usage events of one rule (and, for a fixed fee, one amount each) summed. */
export interface ChargeCount {
  rule: ChargedRule;
  /** The amount each was billed, for a fixed fee; null for uplifted costs, which vary. */
  unitMicros: bigint | null;
  requests: bigint;
  /** The sum of the priced ones' billed amounts. */
  billedMicros: bigint;
  /** Requests whose cost was unknown, billed nothing. */
  unpricedRequests: bigint;
}

/** A unit (an optimised key, a synthetic group, a seat) live over [from, to); to null = still live. */
export interface UnitSpan {
  id: string;
  from: Date;
  to: Date | null;
}

/** What one team counted in the billing period. */
export interface TeamCounts {
  teamId: string;
  charges: readonly ChargeCount[];
  /** Advisor insights found, by the price each was charged. */
  advisorInsights: readonly { priceMicros: bigint; count: bigint }[];
  units: Readonly<Record<UnitKind, readonly UnitSpan[]>>;
  /** Usage recorded through the API, by meter and the unit price it was recorded at. */
  recorded: readonly { meter: RecordedMeter; unitMicros: bigint; quantity: bigint }[];
}

/** The earlier invoice an adjustment line adjusts, and from when the usage it bills arrived (what that invoice had not counted). */
export interface AdjustedInvoice {
  invoiceId: string;
  number: string;
  arrivedFrom: Date;
}

/** Usage of an earlier invoiced window that arrived after it was invoiced, per team. */
export interface LateUsage {
  adjusts: AdjustedInvoice;
  /** The window the earlier invoice billed: its period's start to where its billing stopped. */
  window: { from: Date; to: Date };
  teams: readonly { teamId: string; charges: readonly ChargeCount[] }[];
}

export interface InvoiceInput {
  /** The billing period: its length is what prorated prices are divided by. */
  period: { start: Date; end: Date };
  /** The plans in force, in order, from the period's start to where billing stops (its end, or a cancellation). */
  plans: readonly PlanSegment[];
  teams: readonly TeamCounts[];
  /** Usage of earlier periods that arrived after their invoices were built, billed on adjustment lines. */
  lateUsage?: readonly LateUsage[];
}

export interface InvoiceLine {
  kind: InvoiceLineKind;
  /** The team whose usage it counts; null for the plan fee. */
  teamId: string | null;
  /** The plan whose price it charges (plan and extra-unit lines); null for usage billed per event. */
  planSlug: PlanTerms['slug'] | null;
  /** The meter of a recorded-usage line; null for every other. */
  meter: RecordedMeter | null;
  /** The window it counts. */
  from: Date;
  to: Date;
  description: string;
  /** Requests, insights, 1 for a plan, or the most extra units live at once. */
  quantity: bigint;
  /** The price of one: a request's fee, an insight, a plan's or an extra unit's month; null when it varies. */
  unitMicros: bigint | null;
  amountMicros: bigint;
  amountPence: bigint;
  /** Requests in it whose cost was unknown, billed nothing. */
  unpricedRequests: bigint;
  /** For an adjustment line, the earlier invoice whose window it bills late usage of; null for every other. */
  adjusts: AdjustedInvoice | null;
}

export interface Invoice {
  lines: InvoiceLine[];
  totalPence: bigint;
}

/** Micro-units to whole pence, halves up. */
export const microsToPence = (micros: bigint): bigint => roundHalfUpDiv(micros, MICROS_PER_PENNY);

const pounds = (micros: bigint) => formatMoney(money(micros, 'GBP'));
const count = (value: bigint) => value.toLocaleString('en-GB');
const day = (at: Date) => at.toISOString().slice(0, 10);

/** The same day and time `months` calendar months after `anchor` (UTC), the day clamped to the month's last. */
export function addMonthsClamped(anchor: Date, months: number): Date {
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(year, month, Math.min(anchor.getUTCDate(), lastDay), anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds()),
  );
}

/**
 * The end of the billing period that starts at `start`, for a subscription anchored at
 * `anchor`: the first month's anchor day after `start`.
 *
 * @example periodEndAfter(new Date('2027-01-31T09:00:00Z'), new Date('2027-01-31T09:00:00Z')) // 2027-02-28T09:00:00Z
 */
export function periodEndAfter(anchor: Date, start: Date): Date {
  // The anchor day in start's own month, else in the next one.
  let months = Math.max(1, (start.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + start.getUTCMonth() - anchor.getUTCMonth());
  while (addMonthsClamped(anchor, months) <= start) months += 1;
  return addMonthsClamped(anchor, months);
}

function line(
  fields: Omit<InvoiceLine, 'amountPence' | 'unpricedRequests' | 'meter' | 'adjusts'> & { unpricedRequests?: bigint; meter?: RecordedMeter; adjusts?: AdjustedInvoice },
): InvoiceLine {
  return { ...fields, meter: fields.meter ?? null, unpricedRequests: fields.unpricedRequests ?? 0n, adjusts: fields.adjusts ?? null, amountPence: microsToPence(fields.amountMicros) };
}

function checkSegments(input: InvoiceInput): void {
  const { period, plans } = input;
  if (period.end <= period.start) throw new RangeError('invoice: the period must end after it starts');
  let cursor = period.start.getTime();
  for (const segment of plans) {
    if (segment.from.getTime() !== cursor || segment.to <= segment.from) throw new RangeError('invoice: plan segments must follow each other from the period start');
    cursor = segment.to.getTime();
  }
  if (cursor > period.end.getTime()) throw new RangeError('invoice: plan segments must end within the period');
}

function planLine(segment: PlanSegment, periodMs: bigint): InvoiceLine | undefined {
  const price = segment.plan.monthlyPriceMicros;
  if (price === null) return undefined; // custom pricing: arranged with sales, not invoiced here
  const inForceMs = BigInt(segment.to.getTime() - segment.from.getTime());
  const prorated = inForceMs !== periodMs;
  return line({
    kind: 'plan',
    teamId: null,
    planSlug: segment.plan.slug,
    from: segment.from,
    to: segment.to,
    description: `${segment.plan.name} plan, ${day(segment.from)} to ${day(segment.to)}${prorated ? ' (prorated)' : ''}`,
    quantity: 1n,
    unitMicros: price,
    amountMicros: prorated ? roundHalfUpDiv(price * inForceMs, periodMs) : price,
  });
}

/** What `live` units cost a month beyond what the plan includes, and how many that is. */
function extraUnits(kind: UnitKind, plan: PlanTerms, live: number): { extra: number; monthlyMicros: bigint } {
  if (kind === 'seat') {
    return { extra: plan.seatsIncluded === null ? 0 : Math.max(0, live - plan.seatsIncluded), monthlyMicros: seatsMonthlyMicros(plan, live) };
  }
  const included = kind === 'key' ? plan.optimisedKeysIncluded : plan.syntheticGroupsIncluded;
  const price = kind === 'key' ? plan.extraOptimisedKeyMonthlyMicros : plan.extraGroupMonthlyMicros;
  if (included === null || price === null) return { extra: 0, monthlyMicros: 0n };
  const extra = Math.max(0, live - included);
  return { extra, monthlyMicros: BigInt(extra) * price };
}

const UNIT_NOUNS: Record<UnitKind, string> = { key: 'optimised keys', group: 'synthetic groups', seat: 'seats' };

/** The extra units of one kind under one plan segment: each moment's count beyond the allowance, priced and prorated. */
function unitLine(teamId: string, kind: UnitKind, spans: readonly UnitSpan[], segment: PlanSegment, periodMs: bigint): InvoiceLine | undefined {
  const from = segment.from.getTime();
  const to = segment.to.getTime();
  // +1 where a unit starts, -1 where it ends, within the segment.
  const changes = new Map<number, number>();
  let live = 0;
  for (const span of spans) {
    const start = span.from.getTime();
    const end = span.to === null ? Number.POSITIVE_INFINITY : span.to.getTime();
    if (start >= to || end <= from || end <= start) continue;
    if (start <= from) live += 1;
    else changes.set(start, (changes.get(start) ?? 0) + 1);
    if (end < to) changes.set(end, (changes.get(end) ?? 0) - 1);
  }
  const moments = [...changes.keys()].sort((a, b) => a - b);
  let cursor = from;
  let exact = 0n; // Σ monthly price × ms, divided once by the period
  let most = 0;
  const accrue = (until: number) => {
    const { extra, monthlyMicros } = extraUnits(kind, segment.plan, live);
    exact += monthlyMicros * BigInt(until - cursor);
    if (extra > most) most = extra;
    cursor = until;
  };
  for (const moment of moments) {
    accrue(moment);
    live += changes.get(moment)!;
  }
  accrue(to);
  if (exact === 0n) return undefined;
  const unitMicros = kind === 'key' ? segment.plan.extraOptimisedKeyMonthlyMicros : kind === 'group' ? segment.plan.extraGroupMonthlyMicros : null;
  return line({
    kind: UNIT_LINE[kind],
    teamId,
    planSlug: segment.plan.slug,
    from: segment.from,
    to: segment.to,
    description:
      `Extra ${UNIT_NOUNS[kind]} beyond the ${segment.plan.name} plan's ` +
      `${kind === 'seat' ? segment.plan.seatsIncluded : kind === 'key' ? segment.plan.optimisedKeysIncluded : segment.plan.syntheticGroupsIncluded}, ` +
      `${unitMicros === null ? 'at their tiers’ prices' : `${pounds(unitMicros)} each a month`}, prorated by the time each was live`,
    quantity: BigInt(most),
    unitMicros,
    amountMicros: roundHalfUpDiv(exact, periodMs),
  });
}

const RULE_DESCRIPTION: Record<ChargedRule, (charge: ChargeCount) => string> = {
  'optimised-uplift': (charge) => `Optimised keys: ${count(charge.requests)} requests at base model cost plus the plan's uplift`,
  'optimised-minimum-fee': (charge) => `Optimised requests under the token minimum: ${count(charge.requests)} × ${pounds(charge.unitMicros ?? 0n)}`,
  'byom-routing-fee': (charge) => `BYOM routing: ${count(charge.requests)} requests × ${pounds(charge.unitMicros ?? 0n)}`,
};

/** A team's per-request charges over [from, to), a line per rule and fee; on an adjustment, each marked as such. */
function chargeLines(teamId: string, counts: readonly ChargeCount[], from: Date, to: Date, adjusts?: AdjustedInvoice): InvoiceLine[] {
  const charges = [...counts].sort((a, b) => a.rule.localeCompare(b.rule) || Number((a.unitMicros ?? 0n) - (b.unitMicros ?? 0n)));
  const adjustment = adjusts ? `Adjustment to ${adjusts.number}, usage of ${day(from)} to ${day(to)} recorded after it was invoiced: ` : '';
  return charges
    .filter((charge) => charge.requests > 0n)
    .map((charge) =>
      line({
        kind: charge.rule,
        teamId,
        planSlug: null,
        from,
        to,
        description: adjustment + RULE_DESCRIPTION[charge.rule](charge) + (charge.unpricedRequests > 0n ? ` (${count(charge.unpricedRequests)} unpriced, not billed)` : ''),
        quantity: charge.requests,
        unitMicros: charge.unitMicros,
        amountMicros: charge.billedMicros,
        unpricedRequests: charge.unpricedRequests,
        ...(adjusts ? { adjusts } : {}),
      }),
    );
}

const byTeam = <T extends { teamId: string }>(teams: readonly T[]) => [...teams].sort((a, b) => (a.teamId < b.teamId ? -1 : a.teamId > b.teamId ? 1 : 0));

/**
 * Builds a billing period's invoice lines: the plan fee per plan in force, then per team
 * its per-request charges, advisor insights and extra units, then the adjustment lines of
 * usage that arrived late for earlier periods. Lines that charge nothing and count
 * nothing are left out.
 *
 * @example
 *   buildInvoice({ period, plans: [{ plan: planTerms('growth'), from: period.start, to: period.end }], teams })
 *   // → { lines: [{ kind: 'plan', amountMicros: 99_000_000n, amountPence: 9900n, … }, …], totalPence }
 */
export function buildInvoice(input: InvoiceInput): Invoice {
  checkSegments(input);
  const periodMs = BigInt(input.period.end.getTime() - input.period.start.getTime());
  const lines: InvoiceLine[] = [];
  for (const segment of input.plans) {
    const fee = planLine(segment, periodMs);
    if (fee) lines.push(fee);
  }
  const billedFrom = input.period.start;
  const billedTo = input.plans.at(-1)?.to ?? input.period.start;
  for (const team of byTeam(input.teams)) {
    lines.push(...chargeLines(team.teamId, team.charges, billedFrom, billedTo));
    const insights = [...team.advisorInsights].sort((a, b) => Number(a.priceMicros - b.priceMicros));
    for (const insight of insights) {
      if (insight.count === 0n) continue;
      lines.push(
        line({
          kind: 'advisor-insights',
          teamId: team.teamId,
          planSlug: null,
          from: billedFrom,
          to: billedTo,
          description: `AI Advisor insights: ${count(insight.count)} × ${pounds(insight.priceMicros)}`,
          quantity: insight.count,
          unitMicros: insight.priceMicros,
          amountMicros: insight.count * insight.priceMicros,
        }),
      );
    }
    const recorded = [...team.recorded].sort((a, b) => a.meter.localeCompare(b.meter) || Number(a.unitMicros - b.unitMicros));
    for (const usage of recorded) {
      lines.push(
        line({
          kind: 'recorded-usage',
          meter: usage.meter,
          teamId: team.teamId,
          planSlug: null,
          from: billedFrom,
          to: billedTo,
          description: `Recorded ${METER_NOUNS[usage.meter]}: ${count(usage.quantity)} × ${pounds(usage.unitMicros)}`,
          quantity: usage.quantity,
          unitMicros: usage.unitMicros,
          amountMicros: usage.quantity * usage.unitMicros,
        }),
      );
    }
    for (const kind of ['key', 'group', 'seat'] as const) {
      for (const segment of input.plans) {
        const extra = unitLine(team.teamId, kind, team.units[kind], segment, periodMs);
        if (extra) lines.push(extra);
      }
    }
  }
  lines.push(...adjustmentLines(input.lateUsage ?? []));
  return { lines, totalPence: lines.reduce((sum, each) => sum + each.amountPence, 0n) };
}

/** The adjustment lines of late usage, oldest window first, then per team. */
function adjustmentLines(lateUsage: readonly LateUsage[]): InvoiceLine[] {
  const lines: InvoiceLine[] = [];
  for (const late of [...lateUsage].sort((a, b) => a.window.from.getTime() - b.window.from.getTime())) {
    for (const team of byTeam(late.teams)) lines.push(...chargeLines(team.teamId, team.charges, late.window.from, late.window.to, late.adjusts));
  }
  return lines;
}

/**
 * Builds the standalone invoice of a subscription that has ended: only the adjustment
 * lines of the late usage of its earlier invoices (it has no next invoice to carry them).
 */
export function buildAdjustmentInvoice(lateUsage: readonly LateUsage[]): Invoice {
  const lines = adjustmentLines(lateUsage);
  return { lines, totalPence: lines.reduce((sum, each) => sum + each.amountPence, 0n) };
}

/** A line's identity within its invoice: what it counts (kind, meter, team, window, unit price, and the invoice an adjustment adjusts). */
export function invoiceLineKey(line: Pick<InvoiceLine, 'kind' | 'meter' | 'teamId' | 'from' | 'to' | 'unitMicros'> & { adjusts: Pick<AdjustedInvoice, 'invoiceId'> | null }): string {
  const key = [line.kind, line.meter ?? '-', line.teamId ?? '-', line.from.toISOString(), line.to.toISOString(), line.unitMicros ?? '-'];
  if (line.adjusts) key.push(`adjusts ${line.adjusts.invoiceId}`);
  return key.join('|');
}
