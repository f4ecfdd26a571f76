import { describe, expect, it } from 'vitest';
import { FREE_TRIAL_DAYS, planTerms } from './plans.ts';

describe('plan terms (spec §9)', () => {
  it('holds the optimised-key uplift, minimum and per-request fees', () => {
    expect([planTerms('developers'), planTerms('growth'), planTerms('enterprise')].map((p) => [
      p.upliftBasisPoints,
      p.minimumTokensPerRequest,
      p.belowMinimumFeeMicros,
      p.byomRoutingFeeMicros,
      p.advisorInsightMicros,
    ])).toEqual([
      [3000, 100, 2_000n, 5_000n, 30_000n], // 30 %, 100 tokens, £0.002, £0.005, £0.03
      [2500, 100, 1_800n, 4_000n, 30_000n], // 25 %, 100 tokens, £0.0018, £0.004, £0.03
      [2000, 100, 1_500n, 3_000n, 20_000n], // 20 %, 100 tokens, £0.0015, £0.003, £0.02
    ]);
  });

  it('holds the included allowances and their overage prices', () => {
    const growth = planTerms('growth');
    expect([growth.optimisedKeysIncluded, growth.extraOptimisedKeyMonthlyMicros]).toEqual([10, 3_000_000n]);
    expect([growth.syntheticGroupsIncluded, growth.extraGroupMonthlyMicros]).toEqual([10, 4_000_000n]);
    expect([planTerms('developers').seatsIncluded, planTerms('developers').extraSeatTiers]).toEqual([2, [{ upTo: null, monthlyMicros: 10_000_000n }]]);
    expect(growth.extraSeatTiers!.map((tier) => [tier.upTo, tier.monthlyMicros])).toEqual([
      [15, 8_000_000n],
      [50, 7_000_000n],
      [null, 6_000_000n],
    ]);
    expect([planTerms('developers').monthlyPriceMicros, growth.monthlyPriceMicros]).toEqual([29_000_000n, 99_000_000n]);
    expect(planTerms('enterprise').syntheticGroupsIncluded).toBeNull();
    expect(planTerms('enterprise').monthlyPriceMicros).toBeNull();
    expect(planTerms('enterprise').alertChannels).toEqual(['email', 'slack', 'teams', 'sms']);
  });

  it("says on the pricing page why Growth includes 10 optimised keys where the feature matrix said 5", () => {
    expect(planTerms('growth').footnotes.join(' ')).toContain('10 optimised keys');
    expect(planTerms('developers').footnotes).toEqual([]);
  });

  it('keeps the free trial off the pricing page and 60 days long', () => {
    expect(planTerms('free-trial').listed).toBe(false);
    expect(FREE_TRIAL_DAYS).toBe(60);
  });
});
