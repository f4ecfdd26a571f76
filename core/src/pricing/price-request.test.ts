import { describe, expect, it } from 'vitest';
import { planTerms } from '../plans.ts';
import { maxOutputTokensOf } from '../routing/profiles.ts';
import { plainUsage } from '../usage.ts';
import { findPrice, priceCatalog } from './catalog.ts';
import { priceRequest, worstCaseSpendMicros } from './price-request.ts';

const at = new Date('2026-11-22T12:00:00Z');
const growth = planTerms('growth');

describe('priceRequest', () => {
  it('gives the list cost, the bill and the budget spend of one request', () => {
    // gpt-4o: 1,000 × $2.50/M + 500 × $10/M = $0.0075 = 7,500 µ$ → £0.005625 at 0.75.
    const byok = priceRequest(priceCatalog, { kind: 'byok', plan: growth, provider: 'openai', model: 'gpt-4o', usage: plainUsage(1000, 500), at });
    expect(byok.cost).toMatchObject({ status: 'priced', totalMicros: 7_500n });
    expect(byok.bill.rule).toBe('byok-provider-direct');
    expect(byok.budgetSpendMicros).toBe(5_625n);
    // Optimised on Growth: × 1.25 → £0.00703125 → 7,031 µ£ (half-up).
    const optimised = priceRequest(priceCatalog, { kind: 'optimised', plan: growth, provider: 'openai', model: 'gpt-4o', usage: plainUsage(1000, 500), at });
    expect(optimised.bill).toMatchObject({ rule: 'optimised-uplift', billedMicros: 7_031n });
    expect(optimised.budgetSpendMicros).toBe(7_031n);
  });
});

describe('worstCaseSpendMicros', () => {
  const request = { plan: growth, provider: 'openai', usage: plainUsage(10, 20), at };

  it('cannot bound a BYOK or optimised request for a model without a price', () => {
    expect(worstCaseSpendMicros(priceCatalog, { ...request, kind: 'byok', model: 'my-own-model' })).toBeUndefined();
    expect(worstCaseSpendMicros(priceCatalog, { ...request, kind: 'optimised', model: 'my-own-model' })).toBeUndefined();
  });

  it('bounds a BYOM request by its routing fee, priced or not', () => {
    expect(worstCaseSpendMicros(priceCatalog, { ...request, kind: 'byom', model: 'my-own-model' })).toBe(growth.byomRoutingFeeMicros);
  });

  it('bounds an optimised request by the plan fee when a short answer would be billed more than the uplifted cost', () => {
    // 10 + 20 tokens of gpt-4o-mini cost far less than the £0.0018 fee under the minimum.
    expect(worstCaseSpendMicros(priceCatalog, { ...request, kind: 'optimised', model: 'gpt-4o-mini' })).toBe(growth.belowMinimumFeeMicros);
    const long = { ...request, kind: 'optimised' as const, model: 'gpt-4o', usage: plainUsage(1000, 500) };
    expect(worstCaseSpendMicros(priceCatalog, long)).toBe(7_031n);
  });
});

describe('fine-tuned models', () => {
  it('are priced at their base model’s fine-tuned price', () => {
    const found = findPrice(priceCatalog, 'openai', 'ft:gpt-4o-mini-2024-07-18:acme:support:9xYzAbCd', at);
    expect(found?.price).toEqual(findPrice(priceCatalog, 'openai', 'ft:gpt-4o-mini-2024-07-18', at)?.price);
    expect(found?.price.inputPerMTok).toBe(300_000n);
    // Without a dated base listed, the undated fine-tuned price.
    expect(findPrice(priceCatalog, 'openai', 'ft:gpt-4.1-mini-2025-04-14:acme::abc', at)?.price.outputPerMTok).toBe(3_200_000n);
    // A base the catalog has no fine-tuned price for stays unpriced, never the base model's plain price.
    expect(findPrice(priceCatalog, 'openai', 'ft:gpt-5:acme::abc', at)).toBeUndefined();
  });

  it('answer as much output as their base model', () => {
    expect(maxOutputTokensOf('ft:gpt-4o-mini-2024-07-18:acme::9xYz')).toBe(16_384);
    expect(maxOutputTokensOf('claude-sonnet-4-5-20250929')).toBe(64_000);
    expect(maxOutputTokensOf('my-own-model')).toBeUndefined();
  });
});
