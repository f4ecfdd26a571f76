import { describe, expect, it } from 'vitest';
import { emptyUsage, type Usage } from '../usage.ts';
import { type PriceCatalog, priceCatalog } from './catalog.ts';
import { costOfRequest } from './cost.ts';

// Token prices are micro-USD per 1M tokens, so tokens × price is in pico-USD
// (1e-6 micro-USD); dividing by 1_000_000 gives micros.
const at = new Date('2026-09-01T12:00:00Z');
const usage = (fields: Partial<Usage>): Usage => ({ ...emptyUsage(), ...fields });
const cost = (provider: string, model: string, fields: Partial<Usage>, catalog: PriceCatalog = priceCatalog) =>
  costOfRequest(catalog, { provider, model, usage: usage(fields), at });

describe('costOfRequest at list prices (catalog 2026-08-21)', () => {
  it('prices gpt-4o input, cache reads, output and a web search', () => {
    // gpt-4o: input 2_500_000, cache read 1_250_000, output 10_000_000 µ$/Mtok; web_search 10_000 µ$/call
    //   input      1000 × 2_500_000  = 2_500_000_000 p$ =  2_500 µ$
    //   cache read 2000 × 1_250_000  = 2_500_000_000 p$ =  2_500 µ$
    //   output      500 × 10_000_000 = 5_000_000_000 p$ =  5_000 µ$
    //   web_search    1 × 10_000 µ$                     = 10_000 µ$
    //   total 20_000 µ$ = $0.02
    expect(cost('openai', 'gpt-4o', { inputTokens: 1000, cachedReadTokens: 2000, outputTokens: 500, units: { web_search: 1 } })).toEqual({
      status: 'priced',
      priceVersion: '2026-08-21',
      currency: 'USD',
      totalMicros: 20_000n,
      breakdown: {
        inputMicros: 2_500n,
        cachedReadMicros: 2_500n,
        cacheWriteMicros: 0n,
        outputMicros: 5_000n,
        reasoningMicros: 0n,
        unitsMicros: 10_000n,
      },
    });
  });

  it('prices gpt-4o-mini by its dated id, rounding the exact total once', () => {
    // gpt-4o-mini-2024-07-18: input 150_000, output 600_000 µ$/Mtok
    //   input  1234 × 150_000 = 185_100_000 p$ = 185.1 µ$ → shown 185
    //   output  567 × 600_000 = 340_200_000 p$ = 340.2 µ$ → shown 340
    //   total 525_300_000 p$ = 525.3 µ$ → 525
    const result = cost('openai', 'gpt-4o-mini-2024-07-18', { inputTokens: 1234, outputTokens: 567 });
    expect(result).toMatchObject({
      status: 'priced',
      totalMicros: 525n,
      breakdown: { inputMicros: 185n, outputMicros: 340n },
    });
  });

  it('bills o3 reasoning tokens at the output rate, shown apart', () => {
    // o3: input 2_000_000, output 8_000_000 µ$/Mtok, no reasoning rate
    //   input                 1000 × 2_000_000 =  2_000_000_000 p$ =  2_000 µ$
    //   output (3000 − 2500) = 500 × 8_000_000 =  4_000_000_000 p$ =  4_000 µ$
    //   reasoning             2500 × 8_000_000 = 20_000_000_000 p$ = 20_000 µ$
    //   total 26_000 µ$ (= 1000 × $2/M + 3000 × $8/M)
    expect(cost('openai', 'o3', { inputTokens: 1000, outputTokens: 3000, reasoningTokens: 2500 })).toMatchObject({
      status: 'priced',
      totalMicros: 26_000n,
      breakdown: { inputMicros: 2_000n, outputMicros: 4_000n, reasoningMicros: 20_000n },
    });
  });

  it('bills reasoning at its own rate when the model has one', () => {
    // openrouter perplexity/sonar-deep-research: input 2_000_000, output 8_000_000, reasoning 3_000_000 µ$/Mtok
    //   input                 100 × 2_000_000 =   200_000_000 p$ =   200 µ$
    //   output (1000 − 400) = 600 × 8_000_000 = 4_800_000_000 p$ = 4_800 µ$
    //   reasoning             400 × 3_000_000 = 1_200_000_000 p$ = 1_200 µ$
    //   total 6_200 µ$
    expect(
      cost('openrouter', 'perplexity/sonar-deep-research', { inputTokens: 100, outputTokens: 1000, reasoningTokens: 400 }),
    ).toMatchObject({
      status: 'priced',
      totalMicros: 6_200n,
      breakdown: { inputMicros: 200n, outputMicros: 4_800n, reasoningMicros: 1_200n },
    });
  });

  it('prices claude-sonnet-4-5 cache reads and both kinds of cache write', () => {
    // claude-sonnet-4-5 µ$/Mtok: input 3_000_000, cache read 300_000, 5m write 3_750_000,
    // 1h write 6_000_000, output 15_000_000
    //   input        100 × 3_000_000  =   300_000_000 p$ =   300 µ$
    //   cache read 10000 × 300_000    = 3_000_000_000 p$ = 3_000 µ$
    //   5m write    2000 × 3_750_000  = 7_500_000_000 p$ = 7_500 µ$
    //   1h write    1000 × 6_000_000  = 6_000_000_000 p$ = 6_000 µ$
    //   output       400 × 15_000_000 = 6_000_000_000 p$ = 6_000 µ$
    //   total 22_800 µ$; cache writes 7_500 + 6_000 = 13_500 µ$
    expect(
      cost('anthropic', 'claude-sonnet-4-5', {
        inputTokens: 100,
        cachedReadTokens: 10_000,
        cacheWrite5mTokens: 2000,
        cacheWrite1hTokens: 1000,
        outputTokens: 400,
      }),
    ).toEqual({
      status: 'priced',
      priceVersion: '2026-08-21',
      currency: 'USD',
      totalMicros: 22_800n,
      breakdown: {
        inputMicros: 300n,
        cachedReadMicros: 3_000n,
        cacheWriteMicros: 13_500n,
        outputMicros: 6_000n,
        reasoningMicros: 0n,
        unitsMicros: 0n,
      },
    });
  });

  it('leaves an unknown model or provider unpriced, never at zero', () => {
    expect(cost('openai', 'gpt-99', { inputTokens: 10 })).toEqual({
      status: 'unpriced',
      reason: 'model "gpt-99" of "openai" is not in price catalog 2026-08-21',
    });
    expect(cost('acme', 'gpt-4o', { inputTokens: 10 })).toEqual({
      status: 'unpriced',
      reason: 'provider "acme" is not in price catalog 2026-08-21',
    });
    expect(cost('openai', 'gpt-99', {})).toMatchObject({ status: 'unpriced' });
  });

  it('leaves a request unpriced when a category it used has no price', () => {
    // mistral-large-latest lists input and output prices only
    expect(cost('mistral', 'mistral-large-latest', { inputTokens: 10, cachedReadTokens: 100, outputTokens: 5 })).toEqual({
      status: 'unpriced',
      reason: 'mistral/mistral-large-latest has no cache-read price in catalog 2026-08-21',
    });
    // gpt-4o has a (free) 5-minute write price but no 1-hour one, and no code_execution price
    expect(cost('openai', 'gpt-4o', { cacheWrite1hTokens: 1, units: { code_execution: 1 } })).toEqual({
      status: 'unpriced',
      reason: 'openai/gpt-4o has no 1-hour cache-write, "code_execution" unit price in catalog 2026-08-21',
    });
  });

  it('does not need a price for a category with no usage', () => {
    // only input used: 10 × 500_000 = 5_000_000 p$ = 5 µ$
    expect(cost('mistral', 'mistral-large-latest', { inputTokens: 10, units: { web_search: 0 } })).toMatchObject({
      status: 'priced',
      totalMicros: 5n,
    });
  });

  it('leaves a request before the first catalog version unpriced', () => {
    const before = costOfRequest(priceCatalog, {
      provider: 'openai',
      model: 'gpt-4o',
      usage: usage({ inputTokens: 10 }),
      at: new Date('2026-08-20T23:59:59Z'),
    });
    expect(before).toEqual({ status: 'unpriced', reason: 'no price catalog version is in force at 2026-08-20T23:59:59.000Z' });
  });

  it('refuses invalid usage and times', () => {
    expect(cost('openai', 'gpt-4o', { outputTokens: 1, reasoningTokens: 2 })).toEqual({
      status: 'unpriced',
      reason: 'invalid usage: reasoningTokens (2) exceeds outputTokens (1)',
    });
    const invalidTime = costOfRequest(priceCatalog, { provider: 'openai', model: 'gpt-4o', usage: emptyUsage(), at: new Date('') });
    expect(invalidTime).toEqual({ status: 'unpriced', reason: 'the request time is not a valid date' });
  });
});

describe('costOfRequest rounding', () => {
  const halfMicro: PriceCatalog = {
    versions: [
      {
        id: 'test',
        effectiveFrom: '2026-01-01T00:00:00Z',
        currency: 'USD',
        prices: {
          test: {
            half: { inputPerMTok: 500_000n, outputPerMTok: 500_000n },
            'just-under-half': { inputPerMTok: 499_999n, outputPerMTok: 0n },
          },
        },
      },
    ],
  };

  it('rounds half a micro up, and just under half down', () => {
    // 1 × 500_000 p$ = 0.5 µ$ → 1;   3 × 500_000 = 1_500_000 p$ = 1.5 µ$ → 2
    expect(cost('test', 'half', { inputTokens: 1 }, halfMicro)).toMatchObject({ totalMicros: 1n });
    expect(cost('test', 'half', { inputTokens: 3 }, halfMicro)).toMatchObject({ totalMicros: 2n });
    // 1 × 499_999 p$ = 0.499999 µ$ → 0
    expect(cost('test', 'just-under-half', { inputTokens: 1 }, halfMicro)).toMatchObject({ totalMicros: 0n });
    // list prices: gpt-4o-mini 10 × 150_000 = 1_500_000 p$ = 1.5 µ$ → 2
    expect(cost('openai', 'gpt-4o-mini', { inputTokens: 10 })).toMatchObject({ totalMicros: 2n });
  });

  it('rounds the total once, so the shown parts may not add up to it', () => {
    // input 0.5 µ$ → shown 1, output 0.5 µ$ → shown 1, but the exact total is 1.0 µ$ → 1
    expect(cost('test', 'half', { inputTokens: 1, outputTokens: 1 }, halfMicro)).toMatchObject({
      totalMicros: 1n,
      breakdown: { inputMicros: 1n, outputMicros: 1n },
    });
  });
});

describe('costOfRequest across catalog versions', () => {
  const twoVersions: PriceCatalog = {
    versions: [
      {
        id: 'spring',
        effectiveFrom: '2026-03-01T00:00:00Z',
        currency: 'USD',
        prices: { openai: { 'gpt-4o': { inputPerMTok: 2_000_000n, outputPerMTok: 0n } } },
      },
      {
        id: 'summer',
        effectiveFrom: '2026-06-01T00:00:00Z',
        currency: 'USD',
        prices: { openai: { 'gpt-4o': { inputPerMTok: 3_000_000n, outputPerMTok: 0n } } },
      },
    ],
  };
  const priceAt = (iso: string) =>
    costOfRequest(twoVersions, { provider: 'openai', model: 'gpt-4o', usage: usage({ inputTokens: 1000 }), at: new Date(iso) });

  it('uses the version in force at the request time and says which', () => {
    // 1000 × 2_000_000 p$ = 2_000 µ$ in spring; 1000 × 3_000_000 = 3_000 µ$ from June
    expect(priceAt('2026-05-31T23:59:59Z')).toMatchObject({ priceVersion: 'spring', totalMicros: 2_000n });
    expect(priceAt('2026-06-01T00:00:00Z')).toMatchObject({ priceVersion: 'summer', totalMicros: 3_000n });
    expect(priceAt('2026-02-28T00:00:00Z')).toMatchObject({ status: 'unpriced' });
  });
});

describe('long-context pricing', () => {
  const at = new Date('2026-11-22T00:00:00Z');
  const cost = (inputTokens: number, cachedReadTokens = 0) =>
    costOfRequest(priceCatalog, {
      provider: 'google',
      model: 'gemini-2.5-pro',
      usage: { ...emptyUsage(), inputTokens, cachedReadTokens, outputTokens: 1000 },
      at,
    });

  it('bills a prompt up to the threshold at the base tier', () => {
    // 128 000 × $1.25 + 1000 × $10 per million = 160 000 + 10 000 micro-USD
    expect(cost(128_000)).toMatchObject({ status: 'priced', totalMicros: 170_000n });
  });

  it('bills a longer prompt, cached tokens counted, wholly at the long-context tier', () => {
    // 128 000 + 1 cached > 128 000: 128 000 × $2.50 + 1 × $0.25 + 1000 × $15 per million
    // = 320 000 + 0.25 + 15 000 → 335 000 micro-USD (0.25 rounds down)
    expect(cost(128_000, 1)).toMatchObject({ status: 'priced', totalMicros: 335_000n });
  });
});
