/**
 * What an account's subscription lets its teams do at a moment (issue 24), one rule for
 * the data plane's admission, the allowances and `POST /subscription/check-access`.
 *
 * The trial-end rule: the 60-day trial needs no card. When it ends with a default
 * payment method on a paid plan, billing starts (active). When it ends without one (or
 * on the free-trial plan, which has no price), the subscription is paused: BYOK keys
 * keep working — the team's own provider bills them and Spendgate charges nothing per
 * request — while optimised and BYOM keys, which Spendgate bills per request, are
 * refused with HTTP 402 `payment_required` saying why and where to add a payment method,
 * until one is added. A cancelled subscription is the same. A payment that failed
 * (past_due) keeps everything working while the payment provider retries.
 */
import type { KeyKind } from './billing.ts';
import { type PlanSlug, planTerms } from './plans.ts';

export type SubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'paused' | 'canceled';

/** What the rule reads: the subscription as stored, and whether a default payment method is on file. */
export interface SubscriptionState {
  planSlug: PlanSlug;
  status: SubscriptionStatus;
  trialEnd: Date | null;
  hasPaymentMethod: boolean;
}

export interface SubscriptionAccess {
  /** The status in force at the moment (a trial past its end reads as what it became). */
  status: SubscriptionStatus;
  /** Whole days of trial left, rounded up; null when not trialing. */
  trialDaysLeft: number | null;
  /** Which key kinds are served. */
  keys: Record<KeyKind, boolean>;
  /** Whether seats, groups and optimised keys beyond the plan's allowance may be added (and charged). */
  chargesExtras: boolean;
  /** Why optimised and BYOM keys are stopped, in words for the caller; null when they are not. */
  stoppedBecause: string | null;
}

const DAY_MS = 86_400_000;

/** The status a subscription is in at `at`: a trial that has ended is active with a card on a paid plan, else paused. */
export function statusAt(state: SubscriptionState, at: Date): SubscriptionStatus {
  if (state.status !== 'trialing' || state.trialEnd === null || state.trialEnd > at) return state.status;
  return state.hasPaymentMethod && planTerms(state.planSlug).monthlyPriceMicros !== null && state.planSlug !== 'free-trial' ? 'active' : 'paused';
}

/**
 * @example
 *   subscriptionAccess({ planSlug: 'growth', status: 'trialing', trialEnd, hasPaymentMethod: false }, afterTrialEnd)
 *   // → { status: 'paused', keys: { byok: true, optimised: false, byom: false }, stoppedBecause: 'The free trial …' }
 */
export function subscriptionAccess(state: SubscriptionState, at: Date): SubscriptionAccess {
  const status = statusAt(state, at);
  const serves = status === 'trialing' || status === 'active' || status === 'past_due';
  const plan = planTerms(state.planSlug).name;
  const day = state.trialEnd?.toISOString().slice(0, 10);
  const stoppedBecause = serves
    ? null
    : status === 'paused'
      ? state.planSlug === 'free-trial'
        ? `The free trial ended on ${day}: choose a plan and add a payment method to use optimised and BYOM keys again (BYOK keys keep working).`
        : `The free trial of the ${plan} plan ended on ${day} without a payment method: add one to use optimised and BYOM keys again (BYOK keys keep working).`
      : `The ${plan} subscription is cancelled: subscribe again to use optimised and BYOM keys (BYOK keys keep working).`;
  return {
    status,
    trialDaysLeft: status === 'trialing' && state.trialEnd ? Math.max(0, Math.ceil((state.trialEnd.getTime() - at.getTime()) / DAY_MS)) : null,
    keys: { byok: true, optimised: serves, byom: serves },
    chargesExtras: status === 'active' || status === 'past_due',
    stoppedBecause,
  };
}
