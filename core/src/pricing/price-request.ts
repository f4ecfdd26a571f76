/**
 * One call for what a request costs everyone: the provider's list cost (USD), what
 * Spendgate bills for it by key kind and plan (GBP), and what it counts against the
 * team's budgets (GBP) at the FX rate in force. The data plane prices with it twice —
 * the worst case a request may reach before it is sent, and the usage it really had.
 */
import { type Bill, billRequest, fxRateAt, type KeyKind, teamSpendMicros } from '../billing.ts';
import type { PlanTerms } from '../plans.ts';
import { totalTokens, type Usage } from '../usage.ts';
import type { PriceCatalog } from './catalog.ts';
import { costOfRequest, type RequestCost } from './cost.ts';

export interface PricedRequest {
  cost: RequestCost;
  bill: Bill;
  /** GBP micros counted on the team's budgets. */
  budgetSpendMicros: bigint;
}

export interface RequestToPrice {
  kind: KeyKind;
  plan: PlanTerms;
  provider: string;
  model: string;
  usage: Usage;
  at: Date;
}

/**
 * @example
 * priceRequest(priceCatalog, { kind: 'byok', plan, provider: 'openai', model: 'gpt-4o', usage: plainUsage(1000, 500), at })
 * // { cost: { status: 'priced', totalMicros: 7500n, … }, bill: { rule: 'byok-provider-direct', … }, budgetSpendMicros: 5625n }
 */
export function priceRequest(catalog: PriceCatalog, request: RequestToPrice): PricedRequest {
  const { kind, plan, usage, at } = request;
  const cost = costOfRequest(catalog, { provider: request.provider, model: request.model, usage, at });
  const bill = billRequest({ kind, plan, cost, totalTokens: totalTokens(usage), at });
  return { cost, bill, budgetSpendMicros: teamSpendMicros(kind, cost, bill, fxRateAt(at)) };
}

/**
 * The most a request with at most this usage can count against a budget (GBP micros),
 * or undefined when that cannot be bounded: a BYOK or optimised request for a model
 * without a price. An optimised request that ends up under the plan's token minimum is
 * billed the plan's fee, which can be more than the uplifted cost of the worst case, so
 * the bound is the greater of the two.
 */
export function worstCaseSpendMicros(catalog: PriceCatalog, request: RequestToPrice): bigint | undefined {
  const priced = priceRequest(catalog, request);
  if (request.kind === 'byom') return priced.budgetSpendMicros;
  if (priced.cost.status !== 'priced') return undefined;
  if (request.kind === 'optimised' && request.plan.belowMinimumFeeMicros > priced.budgetSpendMicros) {
    return request.plan.belowMinimumFeeMicros;
  }
  return priced.budgetSpendMicros;
}
