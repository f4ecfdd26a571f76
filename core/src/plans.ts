/**
 * Plan terms (spec §9) as data: what each subscription plan costs and allows. Billing,
 * invoices, limits, routing and the pricing page all read this one table. Amounts are
 * GBP micro-units; a null limit means unlimited; a `null` overage price means the plan
 * has no such overage (custom pricing). Monthly plan prices are the operator's list
 * prices (the spec lists none). Where the spec contradicts itself, the choice is in the
 * plan's `footnotes`, which the pricing page prints.
 */
import type { RoutingWeights } from './key-settings.ts';

export type PlanSlug = 'free-trial' | 'developers' | 'growth' | 'enterprise';
export type AlertChannel = 'email' | 'slack' | 'teams' | 'sms';

/**
 * One step of a graduated price (as Stripe's `tiers_mode: graduated`): the units
 * numbered up to `upTo` (counting from the first unit, included ones too) cost
 * `monthlyMicros` each a month; null `upTo` is every unit beyond.
 */
export interface PriceTier {
  upTo: number | null;
  monthlyMicros: bigint;
}

export interface PlanTerms {
  slug: PlanSlug;
  name: string;
  /** Monthly price in GBP micros; null = not listed (Contact Sales). */
  monthlyPriceMicros: bigint | null;
  /** Shown on the pricing page (free-trial is not). */
  listed: boolean;
  /** Optimised keys: billed = base cost × (1 + upliftBasisPoints / 10 000). */
  upliftBasisPoints: number;
  /** Optimised keys: requests under this many tokens are billed the fee below instead. */
  minimumTokensPerRequest: number;
  belowMinimumFeeMicros: bigint;
  optimisedKeysIncluded: number | null;
  extraOptimisedKeyMonthlyMicros: bigint | null;
  syntheticGroupsIncluded: number | null;
  extraGroupMonthlyMicros: bigint | null;
  /** BYOM keys: fee per routed request. */
  byomRoutingFeeMicros: bigint;
  advisorInsightMicros: bigint;
  /** Cost dashboard look-back in days; null = unlimited. */
  lookBackDays: number | null;
  /** Longest a team may keep captured prompts and answers, in days. */
  promptRetentionMaxDays: number;
  seatsIncluded: number | null;
  /** What each seat beyond the included ones costs a month, by its number; null = custom. */
  extraSeatTiers: readonly PriceTier[] | null;
  alertChannels: readonly AlertChannel[];
  /** GPU infrastructure analytics and idle resource detection (Enterprise). */
  gpuAnalytics: boolean;
  /** Single sign-on through the team's own OIDC identity provider (Enterprise). */
  singleSignOn: boolean;
  /** Reading, exporting and verifying the audit log (Enterprise: "RBAC with audit logs"); every plan writes it. */
  auditLog: boolean;
  /** ISO/SOC2 readiness: the access review export (Enterprise). */
  complianceReadiness: boolean;
  support: 'community' | 'priority' | 'dedicated';
  /** How optimised keys weigh cost, speed and accuracy when a key sets no weights. */
  routingWeights: RoutingWeights;
  /** What the pricing page says under its tables about this plan's terms. */
  footnotes: readonly string[];
}

const GBP = (pounds: string): bigint => {
  const [whole = '0', fraction = ''] = pounds.split('.');
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
};

const developersTerms = {
  upliftBasisPoints: 3000,
  minimumTokensPerRequest: 100,
  belowMinimumFeeMicros: GBP('0.002'),
  optimisedKeysIncluded: 2,
  extraOptimisedKeyMonthlyMicros: GBP('5'),
  syntheticGroupsIncluded: 2,
  extraGroupMonthlyMicros: GBP('5'),
  byomRoutingFeeMicros: GBP('0.005'),
  advisorInsightMicros: GBP('0.03'),
  lookBackDays: 7,
  promptRetentionMaxDays: 30,
  seatsIncluded: 2,
  extraSeatTiers: [{ upTo: null, monthlyMicros: GBP('10') }],
  alertChannels: ['email'],
  gpuAnalytics: false,
  singleSignOn: false,
  auditLog: false,
  complianceReadiness: false,
  support: 'community',
  routingWeights: { cost: 0.6, speed: 0.2, accuracy: 0.2 },
  footnotes: [],
} as const satisfies Partial<PlanTerms>;

export const PLANS: readonly PlanTerms[] = [
  { slug: 'free-trial', name: 'Free Trial', monthlyPriceMicros: 0n, listed: false, ...developersTerms },
  { slug: 'developers', name: 'Developers', monthlyPriceMicros: GBP('29'), listed: true, ...developersTerms },
  {
    slug: 'growth',
    name: 'Growth',
    monthlyPriceMicros: GBP('99'),
    listed: true,
    upliftBasisPoints: 2500,
    minimumTokensPerRequest: 100,
    belowMinimumFeeMicros: GBP('0.0018'),
    optimisedKeysIncluded: 10,
    extraOptimisedKeyMonthlyMicros: GBP('3'),
    syntheticGroupsIncluded: 10,
    extraGroupMonthlyMicros: GBP('4'),
    byomRoutingFeeMicros: GBP('0.004'),
    advisorInsightMicros: GBP('0.03'),
    lookBackDays: 90,
    promptRetentionMaxDays: 90,
    seatsIncluded: 5,
    // "£8 to £6 a user": graduated, each seat at its own step's price.
    extraSeatTiers: [
      { upTo: 15, monthlyMicros: GBP('8') },
      { upTo: 50, monthlyMicros: GBP('7') },
      { upTo: null, monthlyMicros: GBP('6') },
    ],
    alertChannels: ['email'],
    gpuAnalytics: false,
    singleSignOn: false,
    auditLog: false,
    complianceReadiness: false,
    support: 'priority',
    routingWeights: { cost: 0.5, speed: 0.2, accuracy: 0.3 },
    footnotes: [
      'Growth includes 10 optimised keys. An earlier feature list said 5; the plan terms, which billing follows, say 10, so we give the larger allowance and never charge for a key the terms include.',
      'Growth seats are priced by their number: the 6th to the 15th £8, the 16th to the 50th £7, and from the 51st £6 a user a month.',
    ],
  },
  {
    slug: 'enterprise',
    name: 'Enterprise',
    monthlyPriceMicros: null,
    listed: true,
    upliftBasisPoints: 2000,
    minimumTokensPerRequest: 100,
    belowMinimumFeeMicros: GBP('0.0015'),
    optimisedKeysIncluded: null,
    extraOptimisedKeyMonthlyMicros: null,
    syntheticGroupsIncluded: null,
    extraGroupMonthlyMicros: null,
    byomRoutingFeeMicros: GBP('0.003'),
    advisorInsightMicros: GBP('0.02'),
    lookBackDays: null,
    promptRetentionMaxDays: 365,
    seatsIncluded: null,
    extraSeatTiers: null,
    alertChannels: ['email', 'slack', 'teams', 'sms'],
    gpuAnalytics: true,
    singleSignOn: true,
    auditLog: true,
    complianceReadiness: true,
    support: 'dedicated',
    routingWeights: { cost: 0.4, speed: 0.2, accuracy: 0.4 },
    footnotes: [],
  },
];

/** The free trial's length: the first 60 days, no credit card. */
export const FREE_TRIAL_DAYS = 60;

export function planTerms(slug: PlanSlug): PlanTerms {
  const plan = PLANS.find((candidate) => candidate.slug === slug);
  if (!plan) throw new Error(`unknown plan ${slug}`);
  return plan;
}

/** What a team on another plan is told of GPU analytics: by the API's 403, and by the console before it asks. */
export const gpuAnalyticsRefusal = (terms: Pick<PlanTerms, 'name'>) => `GPU infrastructure analytics is part of the Enterprise plan; the ${terms.name} plan does not include it`;

/** What a team on another plan is told of single sign-on: by the API's 403, and by the console before it asks. */
export const singleSignOnRefusal = (terms: Pick<PlanTerms, 'name'>) => `Single sign-on is part of the Enterprise plan; the ${terms.name} plan does not include it`;
/** What a team on another plan is told of the audit log: by the API's 403, and by the console before it asks. */
export const auditLogRefusal = (terms: Pick<PlanTerms, 'name'>) => `The audit log is part of the Enterprise plan; the ${terms.name} plan records every change but does not include reading, exporting or verifying it`;
/** What a team on another plan is told of ISO/SOC2 readiness (the access review): by the API's 403, and by the console before it asks. */
export const complianceRefusal = (terms: Pick<PlanTerms, 'name'>) => `ISO/SOC2 readiness (the access review) is part of the Enterprise plan; the ${terms.name} plan does not include it`;

/** What the seat numbered `seat` (1 = the first) costs a month: 0 when included, null when the plan prices seats by arrangement. */
export function seatMonthlyMicros(terms: PlanTerms, seat: number): bigint | null {
  if (terms.seatsIncluded === null || terms.extraSeatTiers === null) return null;
  if (seat <= terms.seatsIncluded) return 0n;
  return terms.extraSeatTiers.find((tier) => tier.upTo === null || seat <= tier.upTo)!.monthlyMicros;
}

/**
 * What `seats` seats cost a month together, each at its own tier's price (graduated);
 * 0 on a plan whose seats are priced by arrangement (not billed here).
 *
 * @example seatsMonthlyMicros(planTerms('growth'), 17) // 10 × £8 + 2 × £7 = £94
 */
export function seatsMonthlyMicros(terms: PlanTerms, seats: number): bigint {
  if (terms.seatsIncluded === null || terms.extraSeatTiers === null) return 0n;
  let total = 0n;
  let priced = terms.seatsIncluded;
  for (const tier of terms.extraSeatTiers) {
    const upTo = tier.upTo === null ? seats : Math.min(tier.upTo, seats);
    if (upTo > priced) {
      total += BigInt(upTo - priced) * tier.monthlyMicros;
      priced = upTo;
    }
  }
  return total;
}
