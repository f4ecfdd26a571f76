import { describe, expect, it } from 'vitest';
import { billRequest, chargedBill, fxRateAt, isCharged, teamSpendMicros, usdToGbp } from './billing.ts';
import { planTerms } from './plans.ts';
import type { RequestCost } from './pricing/cost.ts';

const at = new Date('2026-11-22T12:00:00Z');
const priced = (totalMicros: bigint): RequestCost => ({
  status: 'priced',
  priceVersion: '2026-08-21',
  currency: 'USD',
  totalMicros,
  breakdown: { inputMicros: 0n, cachedReadMicros: 0n, cacheWriteMicros: 0n, outputMicros: totalMicros, reasoningMicros: 0n, unitsMicros: 0n },
});

describe('billing by key kind and plan', () => {
  it('converts USD to GBP at the dated rate, rounding half-up once', () => {
    const rate = fxRateAt(at);
    expect(rate.usdToGbpPpm).toBe(750_000n);
    expect(usdToGbp(1_000_000n, rate)).toBe(750_000n); // $1 → £0.75
    expect(usdToGbp(2n, rate)).toBe(2n); // 1.5 → 2
    expect(usdToGbp(1n, rate)).toBe(1n); // 0.75 → 1
  });

  it('bills BYOK nothing: the provider bills the team', () => {
    expect(billRequest({ kind: 'byok', plan: planTerms('growth'), cost: priced(5_000n), totalTokens: 500, at })).toEqual({
      rule: 'byok-provider-direct',
      billedMicros: 0n,
      currency: 'GBP',
      fxRatePpm: 750_000n,
    });
  });

  it('bills optimised keys base cost × (1 + uplift) in GBP', () => {
    // $0.010000 → £0.007500; Developers +30 % → £0.009750; Growth +25 % → £0.009375; Enterprise +20 % → £0.009000
    const bill = (slug: 'developers' | 'growth' | 'enterprise') =>
      billRequest({ kind: 'optimised', plan: planTerms(slug), cost: priced(10_000n), totalTokens: 1000, at }).billedMicros;
    expect([bill('developers'), bill('growth'), bill('enterprise')]).toEqual([9_750n, 9_375n, 9_000n]);
  });

  it('bills the per-request fee below the 100-token minimum', () => {
    const bill = billRequest({ kind: 'optimised', plan: planTerms('growth'), cost: priced(10n), totalTokens: 99, at });
    expect(bill).toMatchObject({ rule: 'optimised-minimum-fee', billedMicros: 1_800n });
    const atMinimum = billRequest({ kind: 'optimised', plan: planTerms('growth'), cost: priced(10n), totalTokens: 100, at });
    expect(atMinimum).toMatchObject({ rule: 'optimised-uplift', billedMicros: 9n }); // 10 × 0.75 × 1.25 = 9.375 → 9
  });

  it('bills BYOM the routing fee, and leaves an unpriced optimised request unbilled (null)', () => {
    expect(billRequest({ kind: 'byom', plan: planTerms('enterprise'), cost: priced(1n), totalTokens: 5, at }).billedMicros).toBe(3_000n);
    const unpriced: RequestCost = { status: 'unpriced', reason: 'unknown model' };
    expect(billRequest({ kind: 'optimised', plan: planTerms('developers'), cost: unpriced, totalTokens: 500, at }).billedMicros).toBeNull();
  });

  it('charges a demo team nothing, while its requests still count their plan price on its budgets', () => {
    const bill = billRequest({ kind: 'optimised', plan: planTerms('growth'), cost: priced(10_000n), totalTokens: 1000, at });
    expect([isCharged({ isDemo: false }), isCharged({ isDemo: true })]).toEqual([true, false]);
    expect(chargedBill({ isDemo: false }, bill)).toBe(bill);
    expect(chargedBill({ isDemo: true }, bill)).toEqual({ rule: 'demo-never-billed', billedMicros: 0n, currency: 'GBP', fxRatePpm: 750_000n });
    expect(teamSpendMicros('optimised', priced(10_000n), bill, fxRateAt(at))).toBe(9_375n);
  });
});
