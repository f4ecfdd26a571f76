import { describe, expect, it } from 'vitest';
import { findPrice, priceCatalog } from '../pricing/catalog.ts';
import { MODEL_PROFILES, modelProfile } from './profiles.ts';

const at = new Date('2026-09-01T00:00:00Z');
const price = (provider: string, model: string) => findPrice(priceCatalog, provider, model, at)?.price;

describe('model profiles', () => {
  it('describes only models the catalog prices', () => {
    const unpriced = MODEL_PROFILES.filter((profile) => !price(profile.provider, profile.model)).map((profile) => profile.model);
    expect(unpriced).toEqual([]);
  });

  it('downgrades each model to a cheaper one of its own family and provider', () => {
    for (const profile of MODEL_PROFILES.filter((candidate) => candidate.cheaperSibling)) {
      const sibling = modelProfile(profile.cheaperSibling!)!;
      expect([sibling.family, sibling.provider], profile.model).toEqual([profile.family, profile.provider]);
      expect(price(sibling.provider, sibling.model)!.outputPerMTok, profile.model).toBeLessThan(price(profile.provider, profile.model)!.outputPerMTok);
    }
    expect(modelProfile('gpt-4o-2024-08-06')?.cheaperSibling).toBe('gpt-4o-mini');
    expect(modelProfile('claude-sonnet-4-5-20250929')?.cheaperSibling).toBe('claude-haiku-4-5');
  });
});
