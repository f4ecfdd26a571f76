/**
 * Subscription plans and what they allow. Plans are seeded from core's plan terms at
 * every start (ids and creation order stay stable), each account has a subscription
 * (a 60-day trial from registration), and a team's allowances come from the
 * subscription of the account that created it.
 *
 * Allowances (seats, synthetic groups, optimised keys): under the included number,
 * allowed; over it, a paid plan charges the extra units for the time they are live
 * (the store keeps every unit's span; the invoice prices them; a demo team's are never
 * charged) and a trial (no card) refuses with a message naming the allowance.
 */
import {
  FREE_TRIAL_DAYS,
  formatMoney,
  isCharged,
  microsToDecimalString,
  money,
  PLANS,
  PlanLimitError,
  type PlanSlug,
  type PlanTerms,
  planTerms,
  type SubscriptionState,
  type SubscriptionStatus,
  seatMonthlyMicros,
  statusAt,
  subscriptionAccess,
} from '@spendgate/core';
import {
  countPendingTeamInvitations,
  countTeamGroups,
  countTeamKeys,
  countTeamMembers,
  type Db,
  findSubscription,
  findTeamSubscription,
  isDemoTeam,
  listSubscriptionPlans,
  type PlanUnitKind,
  type SqlStore,
  upsertSubscription,
  upsertSubscriptionPlans,
  writeAudit,
} from '@spendgate/store';

const DAY_MS = 86_400_000;

const DESCRIPTIONS: Record<PlanSlug, string> = {
  'free-trial': 'The first 60 days free, no credit card required.',
  developers: 'For individual developers and small teams getting AI spend under control.',
  growth: 'For growing teams running several providers, products and customers.',
  enterprise: 'For organisations that need governance, custom limits and a dedicated team.',
};

const ENTERPRISE_ONLY = [
  'GPU infrastructure analytics',
  'Idle resource detection',
  'Single sign-on (SSO)',
  'Role-based access control with audit logs',
  'ISO/SOC2 readiness',
  'Custom endpoint',
];

const pounds = (micros: bigint) => formatMoney(money(micros, 'GBP'));

/** An extra seat's price, or its range when tiered: "£10", "£8 to £6". */
export function seatPrices(terms: PlanTerms): string {
  const tiers = terms.extraSeatTiers ?? [];
  const first = tiers[0]?.monthlyMicros ?? 0n;
  const last = tiers.at(-1)?.monthlyMicros ?? 0n;
  return first === last ? pounds(first) : `${pounds(first)} to ${pounds(last)}`;
}

/** The plan's terms in words, as the pricing page lists them. */
export function planFeatures(terms: PlanTerms): string[] {
  const features = [
    `${terms.upliftBasisPoints / 100}% uplift over base model cost on optimised keys`,
    `${terms.minimumTokensPerRequest}-token minimum per optimised request (${pounds(terms.belowMinimumFeeMicros)} below it)`,
    terms.optimisedKeysIncluded === null
      ? 'Unlimited optimised keys'
      : `${terms.optimisedKeysIncluded} optimised keys included, then ${pounds(terms.extraOptimisedKeyMonthlyMicros!)}/key/month`,
    terms.syntheticGroupsIncluded === null
      ? 'Unlimited synthetic groups, custom pricing'
      : `Up to ${terms.syntheticGroupsIncluded} synthetic groups, then ${pounds(terms.extraGroupMonthlyMicros!)} per extra group`,
    `BYOM routing at ${pounds(terms.byomRoutingFeeMicros)} per request`,
    `AI Advisor insights at ${pounds(terms.advisorInsightMicros)} each`,
    terms.lookBackDays === null ? 'Unlimited cost dashboard look-back' : `${terms.lookBackDays}-day cost dashboard look-back`,
    terms.seatsIncluded === null
      ? 'Custom seats'
      : `${terms.seatsIncluded} seats free, then ${seatPrices(terms)}/user`,
    terms.alertChannels.length === 1
      ? 'Spend alerts by e-mail'
      : 'Spend alerts by e-mail, Slack, Teams and SMS',
    { community: 'Community support', priority: 'Priority support queue', dedicated: 'Dedicated support with an SLA' }[terms.support],
  ];
  return terms.slug === 'enterprise' ? [...features, ...ENTERPRISE_ONLY] : features;
}

/** A stored subscription as core's access rule reads it. */
export function subscriptionState(subscription: { plan_slug: string; status: SubscriptionStatus; trial_end: Date | null; has_payment_method: boolean }): SubscriptionState {
  return {
    planSlug: subscription.plan_slug as PlanSlug,
    status: subscription.status,
    trialEnd: subscription.trial_end,
    hasPaymentMethod: subscription.has_payment_method,
  };
}

export interface SubscriptionSummary {
  plan: PlanSlug;
  status: SubscriptionStatus;
  trialEnd: string | null;
  isTrialing: boolean;
}

interface Allowance {
  noun: string;
  included: (terms: PlanTerms) => number | null;
  /** What the unit numbered `unit` costs a month; null when the plan cannot charge for it. */
  unitPrice: (terms: PlanTerms, unit: number) => bigint | null;
  count: (db: Db, teamId: string) => Promise<number>;
}

const ALLOWANCES: Record<PlanUnitKind, Allowance> = {
  seat: {
    noun: 'seats',
    included: (terms) => terms.seatsIncluded,
    unitPrice: (terms, unit) => seatMonthlyMicros(terms, unit),
    count: (db, teamId) => countTeamMembers(db, teamId),
  },
  group: {
    noun: 'synthetic groups',
    included: (terms) => terms.syntheticGroupsIncluded,
    unitPrice: (terms) => terms.extraGroupMonthlyMicros,
    count: (db, teamId) => countTeamGroups(db, teamId),
  },
  key: {
    noun: 'optimised keys',
    included: (terms) => terms.optimisedKeysIncluded,
    unitPrice: (terms) => terms.extraOptimisedKeyMonthlyMicros,
    count: (db, teamId) => countTeamKeys(db, teamId, 'optimised'),
  },
};

export function createPlanService(deps: { sql: SqlStore; now?: () => Date }) {
  const { db } = deps.sql;
  const now = deps.now ?? (() => new Date());

  /** The team's plan, and whether it pays for units beyond the plan's allowance now (core's subscriptionAccess). */
  async function teamPlan(trx: Db, teamId: string) {
    const subscription = await findTeamSubscription(trx, teamId);
    const slug = (subscription?.plan_slug ?? 'free-trial') as PlanSlug;
    const paying = subscription ? subscriptionAccess(subscriptionState(subscription), now()).chargesExtras : false;
    return { terms: planTerms(slug), paying, charged: isCharged({ isDemo: await isDemoTeam(trx, teamId) }) };
  }

  return {
    /** The terms of the team's plan (the free trial's when it has no subscription), whether it pays, and whether it is charged at all (not a demo team). */
    teamTerms: (teamId: string) => teamPlan(db, teamId),

    /** Stores core's plans (new ones added, known ones refreshed). */
    async seedPlans(): Promise<void> {
      await upsertSubscriptionPlans(
        db,
        PLANS.map((terms) => ({
          slug: terms.slug,
          name: terms.name,
          description: DESCRIPTIONS[terms.slug],
          priceMicros: terms.monthlyPriceMicros,
          currency: 'GBP',
          listed: terms.listed,
          features: planFeatures(terms),
        })),
        now(),
      );
    },

    /** The plans as core's table has them now, with the id and creation time each was stored under. */
    async listPlans() {
      const stored = new Map((await listSubscriptionPlans(db)).map((plan) => [plan.slug, plan]));
      return PLANS.flatMap((terms) => {
        const plan = stored.get(terms.slug);
        if (!plan) return [];
        return [
          {
            id: plan.id,
            name: terms.name,
            slug: terms.slug,
            description: DESCRIPTIONS[terms.slug],
            price: terms.monthlyPriceMicros === null ? null : Number(microsToDecimalString(terms.monthlyPriceMicros)),
            features: planFeatures(terms),
            createdAt: plan.created_at,
          },
        ];
      });
    },

    /** Starts the 60-day trial of a plan (no card). */
    async startTrial(trx: Db, userId: string, planSlug: PlanSlug): Promise<void> {
      await upsertSubscription(trx, {
        userId,
        planSlug,
        status: 'trialing',
        trialEnd: new Date(now().getTime() + FREE_TRIAL_DAYS * DAY_MS),
      });
    },

    async summary(userId: string): Promise<SubscriptionSummary | null> {
      const subscription = await findSubscription(db, userId);
      if (!subscription) return null;
      const status = statusAt(subscriptionState(subscription), now());
      return {
        plan: subscription.plan_slug as PlanSlug,
        status,
        trialEnd: subscription.trial_end?.toISOString() ?? null,
        isTrialing: status === 'trialing',
      };
    },

    /** A team's seats: what its plan includes, what its members and pending invitations take, and what the next extra seat costs. */
    async seats(teamId: string) {
      const { terms, paying } = await teamPlan(db, teamId);
      const used = await countTeamMembers(db, teamId);
      const pending = await countPendingTeamInvitations(db, teamId, now());
      const nextExtra = Math.max(used + pending, terms.seatsIncluded ?? 0) + 1;
      return {
        plan: terms.name,
        planSlug: terms.slug,
        paying,
        included: terms.seatsIncluded,
        used,
        pending,
        currency: 'GBP' as const,
        extraSeatMonthlyMicros: seatMonthlyMicros(terms, nextExtra)?.toString() ?? null,
      };
    },

    /**
     * Checks that the team may take one more unit (call before adding it, in the same
     * transaction; `reserved` counts units already promised, e.g. pending invitations).
     * Returns a function to call once the unit exists: when it is charged, it writes so
     * to the audit log (the unit's span, which the invoice prices, the store keeps).
     */
    async claimAllowance(trx: Db, teamId: string, kind: PlanUnitKind, reserved = 0) {
      const allowance = ALLOWANCES[kind];
      const { terms, paying, charged } = await teamPlan(trx, teamId);
      const included = allowance.included(terms);
      const taken = (await allowance.count(trx, teamId)) + reserved;
      const overLimit = included !== null && taken >= included;
      const unitPrice = allowance.unitPrice(terms, taken + 1);
      if (overLimit && (!paying || unitPrice === null)) {
        throw new PlanLimitError(
          `Your ${terms.name} plan includes ${included} ${allowance.noun}${paying ? '' : ' during the trial'}. ` +
            `Choose a paid plan to add more.`,
        );
      }
      return async (targetId: string) => {
        if (!overLimit || unitPrice === null || !charged) return;
        await writeAudit(trx, {
          teamId,
          actorUserId: null,
          action: 'plan.overage_started',
          targetType: kind,
          targetId,
          details: { plan: terms.slug, unitPriceMicros: unitPrice.toString(), currency: 'GBP' },
        });
      };
    },
  };
}

export type PlanService = ReturnType<typeof createPlanService>;
