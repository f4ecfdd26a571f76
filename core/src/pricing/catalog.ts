// The versioned price catalog: which list price applied to a provider's model at a
// given moment. Each version is a full snapshot, in force from its effectiveFrom until
// the next one; an event is priced at the version in force at its time.

import { catalog20260821 } from './catalog-2026-08-21.ts';

/**
 * A model's list prices. Token prices are integer micro-USD per 1 million tokens;
 * `perUnit` prices are integer micro-USD per call. An absent price means "not priced"
 * (usage in that category cannot be costed); 0n means free.
 */
export interface ModelPrice {
  inputPerMTok: bigint;
  outputPerMTok: bigint;
  cachedReadPerMTok?: bigint;
  cacheWrite5mPerMTok?: bigint;
  cacheWrite1hPerMTok?: bigint;
  /** Set only when reasoning tokens are billed apart from output; otherwise they cost outputPerMTok. */
  reasoningPerMTok?: bigint;
  perUnit?: Record<string, bigint>;
  /**
   * Long-context pricing: a request whose prompt (input + cached + cache writes) is
   * longer than `aboveTokens` is billed entirely at `price` (Gemini's context tiers).
   */
  longContext?: { aboveTokens: number; price: Omit<ModelPrice, 'longContext'> };
}

export interface PriceCatalogVersion {
  id: string;
  /** ISO 8601 instant from which this version applies. */
  effectiveFrom: string;
  currency: 'USD';
  /** provider id → model id → price. */
  prices: Record<string, Record<string, ModelPrice>>;
}

export interface PriceCatalog {
  /** Oldest first. */
  versions: readonly PriceCatalogVersion[];
}

/** Every catalog version Spendgate ships, oldest first. */
export const priceCatalog: PriceCatalog = { versions: [catalog20260821] };

const effectiveFromTimes = new Map<string, number>();

/** An `effectiveFrom` instant in ms, parsed once: prices and rates are looked up several times per request. */
export function effectiveFromMs(effectiveFrom: string): number {
  let time = effectiveFromTimes.get(effectiveFrom);
  if (time === undefined) {
    time = Date.parse(effectiveFrom);
    effectiveFromTimes.set(effectiveFrom, time);
  }
  return time;
}

/** The version in force at `at`: the newest whose effectiveFrom is not after it. */
export function priceVersionAt(catalog: PriceCatalog, at: Date): PriceCatalogVersion | undefined {
  const time = at.getTime();
  for (let i = catalog.versions.length - 1; i >= 0; i--) {
    const version = catalog.versions[i];
    if (version && effectiveFromMs(version.effectiveFrom) <= time) return version;
  }
  return undefined;
}

/**
 * The price of a provider's model at a moment. Providers answer with dated or
 * differently-cased ids, so the model is looked up by exact id, then ignoring case,
 * then with a trailing date suffix removed (exact, then ignoring case). A fine-tuned id
 * (`ft:<base>:<org>:<suffix>:<id>`) is priced as its base model's fine-tuned price
 * (`ft:<base>`), when the catalog lists one.
 *
 * @example findPrice(priceCatalog, 'anthropic', 'claude-sonnet-4-5-20250929', new Date())
 * // the claude-sonnet-4-5 price, when the dated id itself is not listed
 * @example findPrice(priceCatalog, 'openai', 'ft:gpt-4o-mini-2024-07-18:acme::9xYz', new Date())
 * // the ft:gpt-4o-mini-2024-07-18 price
 */
export function findPrice(
  catalog: PriceCatalog,
  provider: string,
  model: string,
  at: Date,
): { version: PriceCatalogVersion; price: ModelPrice } | undefined {
  const version = priceVersionAt(catalog, at);
  const models = version && Object.hasOwn(version.prices, provider) && version.prices[provider];
  if (!version || !models) return undefined;
  const listed = fineTunedBase(model);
  const undated = listed.replace(DATE_SUFFIX, '');
  const price =
    lookupModel(models, listed) ?? (undated === listed ? undefined : lookupModel(models, undated));
  return price && { version, price };
}

/**
 * The catalog id of a fine-tuned model: `ft:<base>` of OpenAI's `ft:<base>:<org>:<suffix>:<id>`;
 * any other id unchanged.
 */
export function fineTunedBase(model: string): string {
  if (!model.startsWith('ft:')) return model;
  const end = model.indexOf(':', 3);
  return end === -1 ? model : model.slice(0, end);
}

/** `-2024-07-18` or `-20250929` at the end of a model id. */
const DATE_SUFFIX = /-(?:20\d{2}-\d{2}-\d{2}|20\d{6})$/;

function lookupModel(models: Record<string, ModelPrice>, model: string): ModelPrice | undefined {
  if (Object.hasOwn(models, model)) return models[model];
  const id = lowerCaseIndex(models).get(model.toLowerCase());
  return id === undefined ? undefined : models[id];
}

const lowerCaseIndexes = new WeakMap<Record<string, ModelPrice>, Map<string, string>>();

/** Lower-cased id → listed id, built once per provider table. */
function lowerCaseIndex(models: Record<string, ModelPrice>): Map<string, string> {
  let index = lowerCaseIndexes.get(models);
  if (!index) {
    index = new Map(Object.keys(models).map((id) => [id.toLowerCase(), id]));
    lowerCaseIndexes.set(models, index);
  }
  return index;
}
