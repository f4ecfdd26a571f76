import { describe, expect, it } from 'vitest';
import { findPrice, type PriceCatalog, type PriceCatalogVersion, priceCatalog, priceVersionAt } from './catalog.ts';

const january: PriceCatalogVersion = {
  id: 'v-january',
  effectiveFrom: '2026-01-01T00:00:00Z',
  currency: 'USD',
  prices: {
    openai: {
      'gpt-4o-mini': { inputPerMTok: 1_000_000n, outputPerMTok: 2_000_000n },
      'retired-model': { inputPerMTok: 5n, outputPerMTok: 5n },
    },
  },
};
const june: PriceCatalogVersion = {
  id: 'v-june',
  effectiveFrom: '2026-06-01T00:00:00Z',
  currency: 'USD',
  prices: {
    openai: {
      'gpt-4o-mini': { inputPerMTok: 3_000_000n, outputPerMTok: 4_000_000n },
      'gpt-4o-mini-2024-07-18': { inputPerMTok: 7n, outputPerMTok: 7n },
      'Mixed-Case-Model': { inputPerMTok: 9n, outputPerMTok: 9n },
    },
  },
};
const testCatalog: PriceCatalog = { versions: [january, june] };
const july = new Date('2026-07-01T00:00:00Z');

describe('priceVersionAt', () => {
  it('picks the newest version whose effectiveFrom is not after the time', () => {
    expect(priceVersionAt(testCatalog, new Date('2025-12-31T23:59:59.999Z'))).toBeUndefined();
    expect(priceVersionAt(testCatalog, new Date('2026-01-01T00:00:00Z'))).toBe(january);
    expect(priceVersionAt(testCatalog, new Date('2026-05-31T23:59:59.999Z'))).toBe(january);
    expect(priceVersionAt(testCatalog, new Date('2026-06-01T00:00:00Z'))).toBe(june);
    expect(priceVersionAt(testCatalog, new Date('2030-01-01T00:00:00Z'))).toBe(june);
  });

  it('finds none for an invalid time', () => {
    expect(priceVersionAt(testCatalog, new Date('not a date'))).toBeUndefined();
  });
});

describe('findPrice', () => {
  it('prices a model at the version in force', () => {
    const march = findPrice(testCatalog, 'openai', 'gpt-4o-mini', new Date('2026-03-01T00:00:00Z'));
    expect(march?.version.id).toBe('v-january');
    expect(march?.price.inputPerMTok).toBe(1_000_000n);
    expect(findPrice(testCatalog, 'openai', 'gpt-4o-mini', july)?.price.inputPerMTok).toBe(3_000_000n);
  });

  it('has no price before the first version, nor for a model the version in force dropped', () => {
    expect(findPrice(testCatalog, 'openai', 'gpt-4o-mini', new Date('2025-06-01T00:00:00Z'))).toBeUndefined();
    expect(findPrice(testCatalog, 'openai', 'retired-model', july)).toBeUndefined();
  });

  it('looks up by exact id, then ignoring case, then without a date suffix', () => {
    const input = (model: string) => findPrice(testCatalog, 'openai', model, july)?.price.inputPerMTok;
    expect(input('Mixed-Case-Model')).toBe(9n);
    expect(input('mixed-case-model')).toBe(9n);
    expect(input('GPT-4o-Mini')).toBe(3_000_000n);
    // a listed dated id wins over its undated model
    expect(input('gpt-4o-mini-2024-07-18')).toBe(7n);
    expect(input('gpt-4o-mini-2025-01-31')).toBe(3_000_000n);
    expect(input('gpt-4o-mini-20250131')).toBe(3_000_000n);
    expect(input('GPT-4O-MINI-2025-01-31')).toBe(3_000_000n);
  });

  it('strips only a date, not other numeric suffixes', () => {
    expect(findPrice(testCatalog, 'openai', 'gpt-4o-mini-0613', july)).toBeUndefined();
    expect(findPrice(testCatalog, 'openai', 'gpt-4o-mini-2025', july)).toBeUndefined();
  });

  it('knows nothing of unknown providers or of names inherited from Object', () => {
    expect(findPrice(testCatalog, 'acme', 'gpt-4o-mini', july)).toBeUndefined();
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(findPrice(testCatalog, name, 'gpt-4o-mini', july)).toBeUndefined();
      expect(findPrice(testCatalog, 'openai', name, july)).toBeUndefined();
    }
  });
});

describe('priceCatalog', () => {
  const at = new Date('2026-09-01T00:00:00Z');
  const current = priceVersionAt(priceCatalog, at);

  it('holds version 2026-08-21 for the supported providers', () => {
    expect(priceCatalog.versions[0]).toMatchObject({
      id: '2026-08-21',
      effectiveFrom: '2026-08-21T00:00:00Z',
      currency: 'USD',
    });
    expect(Object.keys(current?.prices ?? {}).sort()).toEqual([
      'anthropic',
      'azure-openai',
      'cerebras',
      'deepseek',
      'fireworks',
      'google',
      'groq',
      'mistral',
      'openai',
      'openrouter',
      'perplexity',
      'together',
      'xai',
    ]);
  });

  it('lists versions oldest first', () => {
    const starts = priceCatalog.versions.map((version) => Date.parse(version.effectiveFrom));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  // Source prices are US cents per token (or per call). 1 cent = 10_000 micro-USD, so
  // cents/token × 10_000 × 1_000_000 tokens = micro-USD per 1M tokens (× 10^10), and
  // cents/call × 10^4 = micro-USD per call.
  it('converts the source prices exactly', () => {
    const price = (provider: string, model: string) => current?.prices[provider]?.[model];

    // openai.json gpt-4o: request 0.00025, response 0.001, cache read 0.000125,
    // cache write 0 (listed: free), web_search 1 ¢/call, file_search 0.25 ¢/call
    expect(price('openai', 'gpt-4o')).toEqual({
      inputPerMTok: 2_500_000n,
      outputPerMTok: 10_000_000n,
      cachedReadPerMTok: 1_250_000n,
      cacheWrite5mPerMTok: 0n,
      perUnit: { file_search: 2_500n, web_search: 10_000n },
    });

    // anthropic.json claude-sonnet-4-5: 0.0003 / 0.0015, cache read 3e-05,
    // cache write 0.000375, additional_units.cache_write_1h 0.0006
    expect(price('anthropic', 'claude-sonnet-4-5')).toEqual({
      inputPerMTok: 3_000_000n,
      outputPerMTok: 15_000_000n,
      cachedReadPerMTok: 300_000n,
      cacheWrite5mPerMTok: 3_750_000n,
      cacheWrite1hPerMTok: 6_000_000n,
    });

    // deepseek.json deepseek-chat: 1.4e-05 / 2.8e-05, cache read 2.8e-07, cache write 0
    expect(price('deepseek', 'deepseek-chat')).toEqual({
      inputPerMTok: 140_000n,
      outputPerMTok: 280_000n,
      cachedReadPerMTok: 2_800n,
      cacheWrite5mPerMTok: 0n,
    });

    // x-ai.json grok-4: 0.0003 / 0.0015, no cache price; tools 0.5 ¢, attachment 1 ¢, files 0.25 ¢
    expect(price('xai', 'grok-4')).toEqual({
      inputPerMTok: 3_000_000n,
      outputPerMTok: 15_000_000n,
      perUnit: { attachment_search: 10_000n, code_execution: 5_000n, file_search: 2_500n, web_search: 5_000n, x_search: 5_000n },
    });

    // mistral-ai.json mistral-large-latest: 5e-05 / 0.00015 and nothing else
    expect(price('mistral', 'mistral-large-latest')).toEqual({ inputPerMTok: 500_000n, outputPerMTok: 1_500_000n });

    // openrouter.json perplexity/sonar-deep-research: 0.0002 / 0.0008, reasoning_token 0.0003, web_search 0.5 ¢
    expect(price('openrouter', 'perplexity/sonar-deep-research')).toEqual({
      inputPerMTok: 2_000_000n,
      outputPerMTok: 8_000_000n,
      reasoningPerMTok: 3_000_000n,
      perUnit: { web_search: 5_000n },
    });
  });

  it('lists Google models by their real id when both context tiers cost the same', () => {
    // google.json gemini-2.5-flash-lte-128k and -gt-128k: both 3e-05 / 0.00025, cache read 3e-06, search 3.5 ¢
    expect(current?.prices.google?.['gemini-2.5-flash']).toEqual({
      inputPerMTok: 300_000n,
      outputPerMTok: 2_500_000n,
      cachedReadPerMTok: 30_000n,
      perUnit: { search: 35_000n, web_search: 35_000n },
    });
    expect(current?.prices.google?.['gemini-2.5-flash-lte-128k']).toBeUndefined();
    // gemini-2.5-pro tiers differ (0.000125 vs 0.00025 input): the real id, the upper tier as long context
    expect(current?.prices.google?.['gemini-2.5-pro']?.inputPerMTok).toBe(1_250_000n);
    expect(current?.prices.google?.['gemini-2.5-pro']?.longContext?.aboveTokens).toBe(128_000);
    expect(current?.prices.google?.['gemini-2.5-pro']?.longContext?.price.inputPerMTok).toBe(2_500_000n);
    expect(current?.prices.google?.['gemini-2.5-pro-lte-128k']).toBeUndefined();
  });

  it('leaves out a price it cannot hold exactly, rather than rounding it', () => {
    // openrouter google/gemini-2.5-flash cache write 8.33333333333333e-06 ¢ = 83_333.33… micro-USD/Mtok
    const flash = current?.prices.openrouter?.['google/gemini-2.5-flash'];
    expect(flash?.cachedReadPerMTok).toBe(30_000n);
    expect(flash?.cacheWrite5mPerMTok).toBeUndefined();
  });

  it('leaves out entries that are not token-priced models', () => {
    const openai = current?.prices.openai ?? {};
    for (const model of ['default', 'dall-e-3', 'whisper-1', 'tts-1', 'text-moderation-latest', 'gpt-4o-audio-preview']) {
      expect(openai[model], model).toBeUndefined();
    }
    expect(current?.prices.perplexity?.['pplx-7b-online']).toBeUndefined(); // fixed fee per request
    expect(current?.prices.openrouter?.['openai/gpt-oss-20b:free']).toBeUndefined(); // every price zero
  });

  it('finds a dated id through its undated model', () => {
    // claude-sonnet-4-6-20260217 is not listed; claude-sonnet-4-6 is (0.0003 ¢/token input)
    expect(findPrice(priceCatalog, 'anthropic', 'claude-sonnet-4-6-20260217', at)?.price.inputPerMTok).toBe(3_000_000n);
  });

  it('holds only integer, non-negative prices with input and output set', () => {
    for (const models of Object.values(current?.prices ?? {})) {
      for (const price of Object.values(models)) {
        const amounts = [
          price.inputPerMTok,
          price.outputPerMTok,
          price.cachedReadPerMTok,
          price.cacheWrite5mPerMTok,
          price.cacheWrite1hPerMTok,
          price.reasoningPerMTok,
          ...Object.values(price.perUnit ?? {}),
        ].filter((amount) => amount !== undefined);
        for (const amount of amounts) {
          expect(typeof amount).toBe('bigint');
          expect(amount >= 0n).toBe(true);
        }
      }
    }
  });
});
