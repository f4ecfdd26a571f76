/**
 * Plan terms (spec §9) as data: what each subscription plan costs and allows. Billing,
 * routing and limits all read this one table. Amounts are GBP micro-units; a null
 * limit means unlimited; `null` overage price means the plan has no such overage
 * (custom pricing). Monthly plan prices are the operator's list prices.
 */
import type { RoutingWeights } from './key-settings.ts';

export type PlanSlug = 'free-trial' | 'developers' | 'growth' | 'enterprise';
export type AlertChannel = 'email' | 'slack' | 'teams' | 'sms';

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
  /** Price per extra seat per month; Growth falls from £8 to £6 with volume (first price here). */
  extraSeatMonthlyMicros: bigint | null;
  alertChannels: readonly AlertChannel[];
  support: 'community' | 'priority' | 'dedicated';
  /** How optimised keys weigh cost, speed and accuracy when a key sets no weights. */
  routingWeights: RoutingWeights;
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
  extraSeatMonthlyMicros: GBP('10'),
  alertChannels: ['email'],
  support: 'community',
  routingWeights: { cost: 0.6, speed: 0.2, accuracy: 0.2 },
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
    extraSeatMonthlyMicros: GBP('8'),
    alertChannels: ['email'],
    support: 'priority',
    routingWeights: { cost: 0.5, speed: 0.2, accuracy: 0.3 },
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
    extraSeatMonthlyMicros: null,
    alertChannels: ['email', 'slack', 'teams', 'sms'],
    support: 'dedicated',
    routingWeights: { cost: 0.4, speed: 0.2, accuracy: 0.4 },
  },
];

/** The free trial's length: the first 60 days, no credit card. */
export const FREE_TRIAL_DAYS = 60;

export function planTerms(slug: PlanSlug): PlanTerms {
  const plan = PLANS.find((candidate) => candidate.slug === slug);
  if (!plan) throw new Error(`unknown plan ${slug}`);
  return plan;
}
