import { planTerms } from '@spendgate/core';
import { describe, expect, it } from 'vitest';
import { keyKindTerms } from './plan-terms.ts';

describe('what a key costs on the team’s plan (spec §9)', () => {
  it('states the optimised keys’ uplift, small-request fee and allowance per plan', () => {
    expect(keyKindTerms('optimised', planTerms('developers'), true)).toBe(
      'Developers plan: base model cost + 30% per request, £0.002 for a request under 100 tokens; 2 optimised keys, then £5.00 a key a month.',
    );
    expect(keyKindTerms('optimised', planTerms('growth'), true)).toBe(
      'Growth plan: base model cost + 25% per request, £0.0018 for a request under 100 tokens; 10 optimised keys, then £3.00 a key a month.',
    );
    expect(keyKindTerms('optimised', planTerms('enterprise'), true)).toBe(
      'Enterprise plan: base model cost + 20% per request, £0.0015 for a request under 100 tokens; unlimited optimised keys.',
    );
    expect(keyKindTerms('optimised', planTerms('free-trial'), false)).toBe(
      'Free Trial plan: base model cost + 30% per request, £0.002 for a request under 100 tokens; 2 optimised keys during the trial.',
    );
  });

  it('states the BYOM routing fee, and nothing for BYOK (the provider bills it)', () => {
    expect(keyKindTerms('byom', planTerms('developers'), true)).toBe('Developers plan: £0.005 routing fee per request.');
    expect(keyKindTerms('byom', planTerms('enterprise'), true)).toBe('Enterprise plan: £0.003 routing fee per request.');
    expect(keyKindTerms('byok', planTerms('growth'), true)).toBeUndefined();
  });
});
