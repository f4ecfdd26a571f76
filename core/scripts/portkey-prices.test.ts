import { describe, expect, it } from 'vitest';
import { centsToMicros, convertProviderPrices, InexactPriceError } from './portkey-prices.ts';

// cents/token × 10^4 µ$/cent × 10^6 tokens = µ$ per 1M tokens (× 10^10); cents/call × 10^4 = µ$/call.
describe('centsToMicros', () => {
  it('converts cents per token to micro-USD per 1M tokens', () => {
    expect(centsToMicros(0.00025, 'perMTok')).toBe(2_500_000n); // $2.50/M
    expect(centsToMicros(2.8e-7, 'perMTok')).toBe(2_800n); // $0.0028/M
    expect(centsToMicros(0.6, 'perMTok')).toBe(6_000_000_000n); // $6000/M
    expect(centsToMicros(0, 'perMTok')).toBe(0n);
  });

  it('converts cents per call to micro-USD per call', () => {
    expect(centsToMicros(0.25, 'perUnit')).toBe(2_500n);
    expect(centsToMicros(3.5, 'perUnit')).toBe(35_000n);
    expect(centsToMicros(1, 'perUnit')).toBe(10_000n);
  });

  it('rounds float artefacts away at 12 significant digits', () => {
    expect(centsToMicros(0.00008000000000000001, 'perMTok')).toBe(800_000n); // 0.00008 ¢
    expect(centsToMicros(0.00007499999999999999, 'perMTok')).toBe(750_000n); // 0.000075 ¢
    expect(centsToMicros(5.999999999999999e-5, 'perMTok')).toBe(600_000n); // 0.00006 ¢
  });

  it('fails on a price that is not a whole number of micro-USD', () => {
    // 8.33333333333333e-06 ¢ → 83_333.3333333 µ$/Mtok
    expect(() => centsToMicros(8.33333333333333e-6, 'perMTok')).toThrow(InexactPriceError);
    // 1.4e-05 ¢ per call → 0.14 µ$
    expect(() => centsToMicros(1.4e-5, 'perUnit')).toThrow(InexactPriceError);
  });

  it('fails on a negative or non-finite price', () => {
    expect(() => centsToMicros(-0.001, 'perMTok')).toThrow(RangeError);
    expect(() => centsToMicros(Number.NaN, 'perMTok')).toThrow(RangeError);
  });
});

const payAsYouGo = (prices: Record<string, unknown>) => ({ pricing_config: { pay_as_you_go: prices } });
const p = (price: number) => ({ price });

describe('convertProviderPrices', () => {
  it('maps token rates, 1-hour cache writes and per-call units; ignores media it cannot carry', () => {
    const { prices } = convertProviderPrices('acme', {
      default: payAsYouGo({ request_token: p(0), response_token: p(0) }),
      chat: payAsYouGo({
        request_token: p(0.0001), // 1_000_000 µ$/Mtok
        response_token: p(0.0002), // 2_000_000
        cache_read_input_token: p(0.00001), // 100_000
        cache_write_input_token: p(0), // listed free
        request_audio_token: p(0.004), // not carried by Usage
        additional_units: {
          cache_write_1h: p(0.0002), // 2_000_000
          thinking_token: p(0.00015), // 1_500_000
          web_search: p(1), // 10_000 µ$/call
          video_duration_seconds_720_1280: p(10), // not carried
        },
      }),
    });
    expect(prices).toEqual({
      chat: {
        inputPerMTok: 1_000_000n,
        outputPerMTok: 2_000_000n,
        cachedReadPerMTok: 100_000n,
        cacheWrite5mPerMTok: 0n,
        cacheWrite1hPerMTok: 2_000_000n,
        reasoningPerMTok: 1_500_000n,
        perUnit: { web_search: 10_000n },
      },
    });
  });

  it('skips what is not a token-priced model, saying why', () => {
    const { prices, skipped } = convertProviderPrices('acme', {
      free: payAsYouGo({ request_token: p(0), response_token: p(0) }),
      painter: payAsYouGo({ image: { default: { default: p(4) } } }),
      speaker: payAsYouGo({ request_token: p(0.0001), response_token: p(0), response_audio_token: p(0.002) }),
      'whisper-1': payAsYouGo({ request_token: p(0.6), response_token: p(0) }),
      online: {
        pricing_config: {
          pay_as_you_go: { request_token: p(0.0001), response_token: p(0.0001) },
          fixed_cost: { request: p(0.5), response: p(0) },
        },
      },
      unlisted: { pricing_config: null },
    });
    expect(prices).toEqual({});
    expect(skipped).toEqual({
      free: 'every price is zero',
      painter: 'no text-token price (image, audio or video model)',
      speaker: 'output is audio, image or video, which Usage does not count apart from text',
      'whisper-1': 'billed per audio minute, filed in the source as a token price',
      online: 'charges a fixed fee per request, which the catalog cannot hold',
      unlisted: 'no pricing',
    });
  });

  it('lists context tiers under the real id, the upper tier as its long-context price', () => {
    const { prices } = convertProviderPrices('acme', {
      'flash-lte-128k': payAsYouGo({ request_token: p(0.00003), response_token: p(0.00025) }),
      'flash-gt-128k': payAsYouGo({ request_token: p(0.00003), response_token: p(0.00025) }),
      'pro-lte-200k': payAsYouGo({ request_token: p(0.000125), response_token: p(0.001) }),
      'pro-gt-200k': payAsYouGo({ request_token: p(0.00025), response_token: p(0.0015) }),
    });
    expect(Object.keys(prices).sort()).toEqual(['flash', 'pro']);
    expect(prices.flash).toEqual({ inputPerMTok: 300_000n, outputPerMTok: 2_500_000n });
    expect(prices.pro).toEqual({
      inputPerMTok: 1_250_000n,
      outputPerMTok: 10_000_000n,
      longContext: { aboveTokens: 200_000, price: { inputPerMTok: 2_500_000n, outputPerMTok: 15_000_000n } },
    });
  });

  it('fails loudly on an unknown field, an inexact price or a foreign currency', () => {
    expect(() =>
      convertProviderPrices('acme', { m: payAsYouGo({ request_token: p(1e-4), response_token: p(1e-4), brand_new_token: p(1) }) }),
    ).toThrow('acme/m: unknown price field "brand_new_token"');
    expect(() =>
      convertProviderPrices('acme', { m: payAsYouGo({ request_token: p(8.33333333333333e-6), response_token: p(1e-4) }) }),
    ).toThrow(/acme\/m request_token: .* not a whole number/);
    expect(() =>
      convertProviderPrices('acme', {
        m: { pricing_config: { currency: 'EUR', pay_as_you_go: { request_token: p(1e-4), response_token: p(1e-4) } } },
      }),
    ).toThrow('acme/m: prices in EUR, expected USD');
  });

  it('leaves out a known inexact price, so that category is unpriced', () => {
    const { prices, omitted } = convertProviderPrices('openrouter', {
      'google/gemini-2.5-flash': payAsYouGo({
        request_token: p(3e-5),
        response_token: p(0.00025),
        cache_write_input_token: p(8.33333333333333e-6),
      }),
    });
    expect(prices['google/gemini-2.5-flash']).toEqual({ inputPerMTok: 300_000n, outputPerMTok: 2_500_000n });
    expect(omitted).toEqual(['openrouter google/gemini-2.5-flash cache_write_input_token']);
  });
});
