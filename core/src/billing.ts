/**
 * What Spendgate bills for one request, by key kind and the team's plan (spec §9):
 * - BYOK: nothing per request — the team's own provider account pays the list price.
 * - Optimised: base cost × (1 + plan uplift), in GBP; a request under the plan's
 *   token minimum is billed the plan's per-request fee instead.
 * - BYOM: the plan's routing fee per request.
 * Provider list prices are USD and plan fees GBP: the conversion uses the dated FX rate
 * in force at the request's time, and the rate is stored with the event.
 * A demo team is never charged (isCharged): its requests are billed £0.
 */
import { roundHalfUpDiv } from './money.ts';
import type { PlanTerms } from './plans.ts';
import { effectiveFromMs } from './pricing/catalog.ts';
import type { RequestCost } from './pricing/cost.ts';

export type KeyKind = 'byok' | 'optimised' | 'byom';

export interface FxRate {
  /** GBP per USD in parts per million (0.75 → 750 000n). */
  usdToGbpPpm: bigint;
  effectiveFrom: string;
}

/** USD→GBP rates, oldest first; the operator adds a row when the rate moves. */
export const FX_RATES: readonly FxRate[] = [{ usdToGbpPpm: 750_000n, effectiveFrom: '2026-08-21T00:00:00Z' }];

/** The rate in force at `at` (the oldest one for earlier times). */
export function fxRateAt(at: Date, rates: readonly FxRate[] = FX_RATES): FxRate {
  let current = rates[0]!;
  for (const rate of rates) if (effectiveFromMs(rate.effectiveFrom) <= at.getTime()) current = rate;
  return current;
}

export type BillingRule = 'byok-provider-direct' | 'optimised-uplift' | 'optimised-minimum-fee' | 'byom-routing-fee' | 'demo-never-billed';

export interface Bill {
  rule: BillingRule;
  /** GBP micros Spendgate charges; null when the base cost is unpriced. */
  billedMicros: bigint | null;
  currency: 'GBP';
  fxRatePpm: bigint;
}

const BASIS_POINTS = 10_000n;
const PPM = 1_000_000n;

/** USD micros → GBP micros at a rate, times an uplift in basis points, rounded half-up once. */
export function usdToGbp(usdMicros: bigint, rate: FxRate, upliftBasisPoints = 0): bigint {
  return roundHalfUpDiv(usdMicros * rate.usdToGbpPpm * (BASIS_POINTS + BigInt(upliftBasisPoints)), PPM * BASIS_POINTS);
}

/**
 * @example
 *   billRequest({ kind: 'optimised', plan: planTerms('growth'), cost, totalTokens: 1500, at })
 *   // → { rule: 'optimised-uplift', billedMicros: cost in GBP × 1.25, … }
 */
export function billRequest(request: {
  kind: KeyKind;
  plan: PlanTerms;
  cost: RequestCost;
  totalTokens: number;
  at: Date;
}): Bill {
  const rate = fxRateAt(request.at);
  const bill = (rule: BillingRule, billedMicros: bigint | null): Bill => ({
    rule,
    billedMicros,
    currency: 'GBP',
    fxRatePpm: rate.usdToGbpPpm,
  });
  switch (request.kind) {
    case 'byok':
      return bill('byok-provider-direct', 0n);
    case 'byom':
      return bill('byom-routing-fee', request.plan.byomRoutingFeeMicros);
    case 'optimised':
      if (request.totalTokens < request.plan.minimumTokensPerRequest) {
        return bill('optimised-minimum-fee', request.plan.belowMinimumFeeMicros);
      }
      return bill(
        'optimised-uplift',
        request.cost.status === 'priced' ? usdToGbp(request.cost.totalMicros, rate, request.plan.upliftBasisPoints) : null,
      );
  }
}

/**
 * Whom Spendgate charges: every team but a demo team (teams.is_demo: sample usage for a
 * newcomer to look at). The one rule every charge asks — a request's bill (chargedBill),
 * an AI advisor tip's price, an allowance's overage — so a demo team is never billed.
 */
export function isCharged(team: { isDemo: boolean }): boolean {
  return !team.isDemo;
}

/**
 * A request's bill as its team is charged: a team Spendgate does not charge owes £0
 * (`demo-never-billed`). What the request counts on the team's budgets is priced from the
 * plan's bill all the same (teamSpendMicros), so a demo team's spend still shows.
 */
export function chargedBill(team: { isDemo: boolean }, bill: Bill): Bill {
  return isCharged(team) ? bill : { ...bill, rule: 'demo-never-billed', billedMicros: 0n };
}

/**
 * What a request costs the team in GBP micros, the currency budgets are kept in: a BYOK
 * request is paid to the provider at list price; optimised and BYOM requests are what
 * Spendgate bills. An unpriced BYOK request counts 0 (its cost is unknown, not zero).
 */
export function teamSpendMicros(kind: KeyKind, cost: RequestCost, bill: Bill, rate: FxRate): bigint {
  if (kind === 'byok') return cost.status === 'priced' ? usdToGbp(cost.totalMicros, rate) : 0n;
  return bill.billedMicros ?? 0n;
}
