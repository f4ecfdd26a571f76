/**
 * What a change of plan now would come to on the next invoice, as the invoices prorate
 * (core/src/invoices.ts): each plan's monthly price × the milliseconds it is in force /
 * the period's milliseconds, rounded half-up to the micro, then each line half-up to
 * whole pence. Changing now credits the current plan's unused time and charges the new
 * plan's. Nothing is charged while trialing or outside a billing period. An estimate: the
 * invoice is the server's.
 */
import { decimalToMicros, roundHalfUpDiv } from '@spendgate/core';
import type { CurrentSubscription, Plan } from '../../api/subscription/types.ts';

const MICROS_PER_PENNY = 10_000n;

export interface ProrationPreview {
  /** The current plan's unused time, given back (≥ 0). */
  creditMicros: bigint;
  /** The new plan's rest of the period (≥ 0). */
  chargeMicros: bigint;
  /** charge − credit: negative is money owed to the team. */
  netMicros: bigint;
}

/** Monthly price in micro-units; null when the plan has none (custom pricing) or it is not a price. */
export function monthlyMicros(plan: Pick<Plan, 'price'>): bigint | null {
  if (plan.price === null) return null;
  return decimalToMicros(plan.price) ?? null;
}

const toPennies = (micros: bigint) => roundHalfUpDiv(micros, MICROS_PER_PENNY) * MICROS_PER_PENNY;

/** Null when either plan has no list price (the change is by arrangement). */
export function prorationPreview(subscription: CurrentSubscription, from: Plan, to: Plan, now: Date): ProrationPreview | null {
  const fromMicros = monthlyMicros(from);
  const toMicros = monthlyMicros(to);
  if (fromMicros === null || toMicros === null) return null;
  if (subscription.status === 'trialing') return { creditMicros: 0n, chargeMicros: 0n, netMicros: 0n };
  if (subscription.currentPeriodStart === null || subscription.currentPeriodEnd === null) return { creditMicros: 0n, chargeMicros: 0n, netMicros: 0n };
  const start = Date.parse(subscription.currentPeriodStart);
  const end = Date.parse(subscription.currentPeriodEnd);
  const length = BigInt(end - start);
  const left = BigInt(Math.min(Math.max(end - now.getTime(), 0), end - start));
  if (length <= 0n) return { creditMicros: 0n, chargeMicros: 0n, netMicros: 0n };
  const creditMicros = toPennies(roundHalfUpDiv(fromMicros * left, length));
  const chargeMicros = toPennies(roundHalfUpDiv(toMicros * left, length));
  return { creditMicros, chargeMicros, netMicros: chargeMicros - creditMicros };
}

/** Whole days left before `trialEnd` (a part-day counts as one); 0 once it has passed. */
export function trialDaysLeft(trialEnd: string, now: Date): number {
  const left = Date.parse(trialEnd) - now.getTime();
  return left <= 0 ? 0 : Math.ceil(left / 86_400_000);
}
