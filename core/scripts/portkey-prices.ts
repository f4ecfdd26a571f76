// Turns one provider file of the Portkey-AI/models price data (US cents per token or
// per call) into Spendgate catalog prices (integer micro-USD per 1M tokens or per call).
// Pure and strict: a field it does not know, or a price it cannot hold exactly, stops
// it. generate-price-catalog.ts does the file I/O.

import type { ModelPrice } from '../src/pricing/catalog.ts';

/** Powers of ten from cents: 10^4 micro-USD per cent, × 10^6 tokens per million. */
const SCALE = { perMTok: 10, perUnit: 4 } as const;

export class InexactPriceError extends Error {}

/**
 * An exact integer micro-USD amount from a price in cents. The source's floats carry
 * artefacts (0.00008000000000000001), so the value is first rounded to 12 significant
 * digits in decimal; a result that is still not a whole number throws.
 *
 * @example centsToMicros(0.00025, 'perMTok') // 2_500_000n  ($2.50 per 1M tokens)
 * @example centsToMicros(0.25, 'perUnit') // 2_500n  ($0.0025 per call)
 */
export function centsToMicros(cents: number, scale: keyof typeof SCALE): bigint {
  if (!Number.isFinite(cents) || cents < 0) {
    throw new RangeError(`a price must be a finite non-negative number, got ${cents}`);
  }
  const [mantissa = '', exponent = '0'] = cents.toPrecision(12).split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  let digits = BigInt(whole + fraction);
  let power = Number(exponent) - fraction.length + SCALE[scale];
  while (power < 0 && digits % 10n === 0n) {
    digits /= 10n;
    power += 1;
  }
  if (power < 0) {
    throw new InexactPriceError(`${cents} cents is not a whole number of micro-USD ${scale}`);
  }
  return digits * 10n ** BigInt(power);
}

type RateField = Exclude<keyof ModelPrice, 'perUnit'>;

/** Fields (of pay_as_you_go or its additional_units) that are token rates of a Usage category. */
const TOKEN_RATES = new Map<string, RateField>([
  ['request_token', 'inputPerMTok'],
  ['response_token', 'outputPerMTok'],
  ['cache_read_input_token', 'cachedReadPerMTok'],
  ['cache_write_input_token', 'cacheWrite5mPerMTok'],
  ['cache_write_1h', 'cacheWrite1hPerMTok'],
  ['reasoning_token', 'reasoningPerMTok'],
  ['thinking_token', 'reasoningPerMTok'],
]);

/** additional_units billed per call: imported as perUnit, micro-USD per call. */
const PER_CALL_UNITS = new Set([
  'web_search',
  'web_search_low_context',
  'web_search_medium_context',
  'web_search_high_context',
  'search',
  'x_search',
  'file_search',
  'attachment_search',
  'code_execution',
]);

/** Output media that Usage does not count apart from text: a model that prices it is left out. */
const MEDIA_OUTPUT = new Set(['response_audio_token', 'response_image_token', 'image', 'image_token', 'output_video_token']);

/**
 * Prices for what Usage does not carry (audio, image and video media, generation
 * settings, Azure's model-router fee): known, and not imported.
 */
const NOT_IMPORTED = new Set([
  ...MEDIA_OUTPUT,
  'request_audio_token',
  'request_image_token',
  'request_text_token',
  'response_text_token',
  'cache_read_audio_input_token',
  'cache_read_image_input_token',
  'cache_read_text_input_token',
  'cached_image_input_token',
  'cached_text_input_token',
  'input_image',
  'image_1k',
  'megapixels',
  'video_seconds',
  'default_duration_seconds',
  'default_sample_count',
  'default_steps',
  'routing_units',
]);
const NOT_IMPORTED_PATTERN = /^video_duration_seconds_/;

/** pricing_config keys: prices we read, and modes we do not (batch, fine-tuning). */
const PRICING_CONFIG_KEYS = new Set(['pay_as_you_go', 'fixed_cost', 'currency', 'batch_config', 'finetune_config', 'calculate']);

/** Models the source prices "per token" whose unit is really something else. */
const NOT_PER_TEXT_TOKEN: readonly { pattern: RegExp; reason: string }[] = [
  { pattern: /^whisper-/, reason: 'billed per audio minute, filed in the source as a token price' },
  { pattern: /^tts(-|$)/, reason: 'billed per input character' },
  { pattern: /-transcribe/, reason: 'input is audio, billed per minute or audio token' },
  { pattern: /^mistral-ocr-/, reason: 'billed per page' },
  { pattern: /^gpt-image-/, reason: 'image generation with no output price in the source' },
];

/**
 * Prices the source gives that are not whole micro-USD (a repeating decimal such as
 * 1/48 of a cent, or a fraction of a micro), as "provider model field". They are left
 * out, so usage in that category is unpriced rather than rounded; any other inexact
 * price stops the generator.
 */
export const KNOWN_INEXACT: ReadonlySet<string> = new Set([
  'openrouter ~deepseek/deepseek-v4-flash-latest cache_read_input_token', // 0.0157192 $/Mtok
  'openrouter deepseek/deepseek-v3.1-terminus cache_read_input_token', // 0.1300000002 $/Mtok
  ...[
    '~google/gemini-flash-latest', // $1/48, $1/24 or $1/12 per 1M tokens: repeating decimals
    'google/gemini-2.5-flash',
    'google/gemini-2.5-flash-lite',
    'google/gemini-3-flash-preview',
    'google/gemini-3.1-flash-lite',
    'google/gemini-3.1-flash-lite-preview',
    'google/gemini-3.5-flash',
    'google/gemini-3.5-flash-lite',
    'google/gemini-3.6-flash',
    'google/gemini-3.6-flash:batch',
    'google/gemini-3.7-flash',
    'google/gemini-3.7-flash:batch',
  ].map((model) => `openrouter ${model} cache_write_input_token`),
]);

export interface ConvertedProvider {
  prices: Record<string, ModelPrice>;
  /** model id → why it is not in the catalog. */
  skipped: Record<string, string>;
  /** KNOWN_INEXACT entries met, as "provider model field". */
  omitted: string[];
}

/**
 * Converts one provider's source file. The `default` entry is not a model; models are
 * skipped (with a reason) when they have no text-token price, are priced in another unit,
 * charge a fixed fee per request, price media output, or price nothing above zero.
 */
export function convertProviderPrices(provider: string, source: Record<string, unknown>): ConvertedProvider {
  const converted: ConvertedProvider = { prices: {}, skipped: {}, omitted: [] };
  for (const [model, entry] of Object.entries(source)) {
    if (model === 'default') continue;
    const result = convertModel(provider, model, entry, converted.omitted);
    if (typeof result === 'string') converted.skipped[model] = result;
    else converted.prices[model] = result;
  }
  converted.prices = mergeContextTiers(converted.prices);
  return converted;
}

function convertModel(provider: string, model: string, entry: unknown, omitted: string[]): ModelPrice | string {
  const where = `${provider}/${model}`;
  const config = isRecord(entry) ? entry.pricing_config : undefined;
  if (!isRecord(config)) return 'no pricing';
  for (const key of Object.keys(config)) {
    if (!PRICING_CONFIG_KEYS.has(key)) throw new Error(`${where}: unknown pricing_config key "${key}"`);
  }
  if (config.currency !== undefined && config.currency !== 'USD') {
    throw new Error(`${where}: prices in ${String(config.currency)}, expected USD`);
  }
  const payAsYouGo = config.pay_as_you_go;
  if (!isRecord(payAsYouGo) || !('request_token' in payAsYouGo) || !('response_token' in payAsYouGo)) {
    return 'no text-token price (image, audio or video model)';
  }
  const notPerToken = NOT_PER_TEXT_TOKEN.find(({ pattern }) => pattern.test(model));
  if (notPerToken) return notPerToken.reason;
  if (isRecord(config.fixed_cost) && Object.values(config.fixed_cost).some((fee) => priceOf(fee, where) > 0)) {
    return 'charges a fixed fee per request, which the catalog cannot hold';
  }

  const { additional_units: additionalUnits, ...tokenFields } = payAsYouGo;
  const fields = [...Object.entries(tokenFields), ...Object.entries(isRecord(additionalUnits) ? additionalUnits : {})];
  const pricesMediaOutput = fields.some(
    ([field, value]) => MEDIA_OUTPUT.has(field) && (field === 'image' || priceOf(value, where) > 0),
  );
  if (pricesMediaOutput) return 'output is audio, image or video, which Usage does not count apart from text';

  const rates: Partial<Record<RateField, bigint>> = {};
  const perUnit: Record<string, bigint> = {};
  const exact = (field: string, value: unknown, scale: keyof typeof SCALE): bigint | undefined => {
    try {
      return centsToMicros(priceOf(value, where), scale);
    } catch (error) {
      const key = `${provider} ${model} ${field}`;
      if (error instanceof InexactPriceError && KNOWN_INEXACT.has(key)) {
        omitted.push(key);
        return undefined;
      }
      throw new Error(`${where} ${field}: ${(error as Error).message}`);
    }
  };
  const setRate = (rate: RateField, amount: bigint | undefined, field: string) => {
    if (amount === undefined) return;
    if (rates[rate] !== undefined && rates[rate] !== amount) throw new Error(`${where}: two prices for ${rate} (${field})`);
    rates[rate] = amount;
  };

  for (const [field, value] of fields) {
    const rate = TOKEN_RATES.get(field);
    if (rate) setRate(rate, exact(field, value, 'perMTok'), field);
    else if (PER_CALL_UNITS.has(field)) {
      const amount = exact(field, value, 'perUnit');
      if (amount !== undefined) perUnit[field] = amount;
    } else if (!NOT_IMPORTED.has(field) && !NOT_IMPORTED_PATTERN.test(field)) {
      throw new Error(`${where}: unknown price field "${field}"; classify it in portkey-prices.ts`);
    }
  }

  const { inputPerMTok, outputPerMTok, ...optionalRates } = rates;
  if (inputPerMTok === undefined || outputPerMTok === undefined) {
    throw new Error(`${where}: input and output prices are required`);
  }
  if ([...Object.values(rates), ...Object.values(perUnit)].every((amount) => amount === 0n)) {
    return 'every price is zero';
  }
  const price: ModelPrice = { inputPerMTok, outputPerMTok };
  for (const rate of OPTIONAL_RATES) {
    if (optionalRates[rate] !== undefined) price[rate] = optionalRates[rate];
  }
  if (Object.keys(perUnit).length > 0) price.perUnit = sortKeys(perUnit);
  return price;
}

const OPTIONAL_RATES = [
  'cachedReadPerMTok',
  'cacheWrite5mPerMTok',
  'cacheWrite1hPerMTok',
  'reasoningPerMTok',
] as const satisfies readonly RateField[];

const CONTEXT_TIER = /^(.+)-lte-(\d+)k$/;

/**
 * The source splits some models into context tiers (`gemini-2.5-pro-lte-200k` and
 * `-gt-200k`), ids no provider answers with. The model is listed under its real id (unless
 * the source lists that id itself): with the lower tier's price, and the upper tier's as
 * its long-context price when the two differ.
 */
function mergeContextTiers(prices: Record<string, ModelPrice>): Record<string, ModelPrice> {
  const merged = { ...prices };
  for (const [lowerTier, price] of Object.entries(prices)) {
    const [, model, size] = CONTEXT_TIER.exec(lowerTier) ?? [];
    const upperTier = `${model}-gt-${size}k`;
    const upperPrice = prices[upperTier];
    if (!model || !size || !upperPrice) continue;
    if (Object.hasOwn(prices, model)) continue; // the source's own entry for the real id wins
    delete merged[lowerTier];
    delete merged[upperTier];
    merged[model] =
      priceKey(upperPrice) === priceKey(price)
        ? price
        : { ...price, longContext: { aboveTokens: Number(size) * 1000, price: upperPrice } };
  }
  return merged;
}

function priceKey(price: ModelPrice): string {
  return JSON.stringify(price, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
}

function priceOf(value: unknown, where: string): number {
  if (isRecord(value) && typeof value.price === 'number') return value.price;
  throw new Error(`${where}: expected { price: number }, got ${JSON.stringify(value)}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
