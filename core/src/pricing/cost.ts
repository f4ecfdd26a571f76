// What one request cost at list price, from its usage and the catalog version in force
// at its time. A request that cannot be costed in full is "unpriced" with a reason,
// never priced at zero.

import { roundHalfUpDiv } from '../money.ts';
import { type Usage, validateUsage } from '../usage.ts';
import { findPrice, type PriceCatalog, priceVersionAt } from './catalog.ts';

export type RequestCost =
  | {
      status: 'priced';
      /** Id of the catalog version used, stored with the event. */
      priceVersion: string;
      currency: 'USD';
      totalMicros: bigint;
      /**
       * Each part rounded half-up on its own, for display. The total is the exact sum
       * rounded once, so the parts may differ from it by a micro or two.
       */
      breakdown: {
        inputMicros: bigint;
        cachedReadMicros: bigint;
        /** 5-minute and 1-hour cache writes together. */
        cacheWriteMicros: bigint;
        /** Output tokens other than reasoning, at the output rate. */
        outputMicros: bigint;
        /** Reasoning tokens, at the reasoning rate if the model has one, else the output rate. */
        reasoningMicros: bigint;
        unitsMicros: bigint;
      };
    }
  | { status: 'unpriced'; reason: string };

/** tokens × micro-USD per 1M tokens is exact in pico-USD (1e-12 USD); a micro is 1e6 of them. */
const PICO_PER_MICRO = 1_000_000n;

/**
 * Prices one request. Every category with usage must have a price; otherwise the
 * request is unpriced and the reason names what is missing.
 *
 * @example
 * costOfRequest(priceCatalog, { provider: 'openai', model: 'gpt-4o', at: new Date(),
 *   usage: plainUsage(1000, 500) })
 * // { status: 'priced', totalMicros: 7500n, … }   (1000 × $2.50/M + 500 × $10/M = $0.0075)
 */
export function costOfRequest(
  catalog: PriceCatalog,
  request: { provider: string; model: string; usage: Usage; at: Date },
): RequestCost {
  const { provider, model, usage, at } = request;
  const problems = validateUsage(usage);
  if (problems.length > 0) return unpriced(`invalid usage: ${problems.join('; ')}`);
  if (Number.isNaN(at.getTime())) return unpriced('the request time is not a valid date');

  const version = priceVersionAt(catalog, at);
  if (!version) return unpriced(`no price catalog version is in force at ${at.toISOString()}`);
  if (!Object.hasOwn(version.prices, provider)) {
    return unpriced(`provider "${provider}" is not in price catalog ${version.id}`);
  }
  const found = findPrice(catalog, provider, model, at);
  if (!found) return unpriced(`model "${model}" of "${provider}" is not in price catalog ${version.id}`);
  const promptTokens = usage.inputTokens + usage.cachedReadTokens + usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  const longContext = found.price.longContext;
  const price = longContext && promptTokens > longContext.aboveTokens ? longContext.price : found.price;

  const missing: string[] = [];
  const atRate = (count: number, rate: bigint | undefined, category: string): bigint => {
    if (count === 0) return 0n;
    if (rate === undefined) {
      missing.push(category);
      return 0n;
    }
    return BigInt(count) * rate;
  };

  const input = atRate(usage.inputTokens, price.inputPerMTok, 'input');
  const cachedRead = atRate(usage.cachedReadTokens, price.cachedReadPerMTok, 'cache-read');
  const cacheWrite =
    atRate(usage.cacheWrite5mTokens, price.cacheWrite5mPerMTok, '5-minute cache-write') +
    atRate(usage.cacheWrite1hTokens, price.cacheWrite1hPerMTok, '1-hour cache-write');
  const output = atRate(usage.outputTokens - usage.reasoningTokens, price.outputPerMTok, 'output');
  const reasoning = atRate(
    usage.reasoningTokens,
    price.reasoningPerMTok ?? price.outputPerMTok,
    'reasoning',
  );
  let units = 0n;
  for (const [unit, count] of Object.entries(usage.units ?? {})) {
    const perUnit = price.perUnit && Object.hasOwn(price.perUnit, unit) ? price.perUnit[unit] : undefined;
    units += atRate(count, perUnit === undefined ? undefined : perUnit * PICO_PER_MICRO, `"${unit}" unit`);
  }

  if (missing.length > 0) {
    return unpriced(
      `${provider}/${model} has no ${missing.join(', ')} price in catalog ${found.version.id}`,
    );
  }
  const toMicros = (pico: bigint) => roundHalfUpDiv(pico, PICO_PER_MICRO);
  return {
    status: 'priced',
    priceVersion: found.version.id,
    currency: found.version.currency,
    totalMicros: toMicros(input + cachedRead + cacheWrite + output + reasoning + units),
    breakdown: {
      inputMicros: toMicros(input),
      cachedReadMicros: toMicros(cachedRead),
      cacheWriteMicros: toMicros(cacheWrite),
      outputMicros: toMicros(output),
      reasoningMicros: toMicros(reasoning),
      unitsMicros: toMicros(units),
    },
  };
}

function unpriced(reason: string): RequestCost {
  return { status: 'unpriced', reason };
}
