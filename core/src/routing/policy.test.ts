import { describe, expect, it } from 'vitest';
import { priceCatalog } from '../pricing/catalog.ts';
import { costOfRequest } from '../pricing/cost.ts';
import { emptyUsage } from '../usage.ts';
import { describeWeights, normaliseWeights, type RequestNeeds, type RouteCandidate, rankCandidates } from './policy.ts';
import { modelProfile } from './profiles.ts';

const at = new Date('2026-09-01T00:00:00Z');
const plainChat: RequestNeeds = { promptTokens: 1000, maxOutputTokens: 500, tools: false, images: false, jsonMode: false };

/** A candidate priced from the catalog for `plainChat`, with an optional measured latency. */
function candidate(model: string, latencyMs?: number, healthy = true): RouteCandidate {
  const profile = modelProfile(model)!;
  const cost = costOfRequest(priceCatalog, {
    provider: profile.provider,
    model,
    usage: { ...emptyUsage(), inputTokens: 1000, outputTokens: 500 },
    at,
  });
  if (cost.status !== 'priced') throw new Error(`${model} is not priced`);
  return { profile, costMicros: cost.totalMicros, latencyMs, healthy };
}

const order = (ranked: RouteCandidate[]) => ranked.map((c) => c.profile.model);

describe('routing policy', () => {
  const pool = [candidate('gpt-4o'), candidate('gpt-4o-mini'), candidate('claude-sonnet-4-5'), candidate('claude-haiku-4-5')];

  it('picks the cheapest model under a cost weight and the most accurate under an accuracy weight', () => {
    expect(order(rankCandidates(pool, plainChat, { cost: 1, speed: 0, accuracy: 0 }))).toEqual([
      'gpt-4o-mini', // $0.00045
      'claude-haiku-4-5', // $0.0035
      'gpt-4o', // $0.0075
      'claude-sonnet-4-5', // $0.0105
    ]);
    expect(order(rankCandidates(pool, plainChat, { cost: 0, speed: 0, accuracy: 1 }))[0]).toBe('claude-sonnet-4-5');
  });

  it('moves the choice as the weights move', () => {
    const first = (weights: { cost: number; speed: number; accuracy: number }) =>
      order(rankCandidates([candidate('gpt-4o'), candidate('gpt-4o-mini')], plainChat, weights))[0];
    expect(first({ cost: 0.6, speed: 0.2, accuracy: 0.2 })).toBe('gpt-4o-mini');
    expect(first({ cost: 0.2, speed: 0.2, accuracy: 0.6 })).toBe('gpt-4o');
    // Only proportions count: 3/1/1 is 0.6/0.2/0.2.
    expect(first({ cost: 3, speed: 1, accuracy: 1 })).toBe('gpt-4o-mini');
  });

  it('prefers the faster model under a speed weight, once latency is measured', () => {
    const measured = [candidate('gpt-4o-mini', 900), candidate('claude-haiku-4-5', 150)];
    expect(order(rankCandidates(measured, plainChat, { cost: 0, speed: 1, accuracy: 0 }))).toEqual(['claude-haiku-4-5', 'gpt-4o-mini']);
    expect(order(rankCandidates(measured, plainChat, { cost: 1, speed: 0, accuracy: 0 }))).toEqual(['gpt-4o-mini', 'claude-haiku-4-5']);
  });

  it('leaves out models that cannot serve the request', () => {
    const withO3 = [...pool, candidate('o3-mini'), candidate('gemini-2.5-flash')];
    const cheapest = { cost: 1, speed: 0, accuracy: 0 };
    // 150 000 prompt tokens: over the 128k of gpt-4o(-mini), within Claude's 200k and Gemini's 1M.
    expect(order(rankCandidates(withO3, { ...plainChat, promptTokens: 150_000 }, cheapest))).toEqual([
      'gemini-2.5-flash',
      'o3-mini',
      'claude-haiku-4-5',
      'claude-sonnet-4-5',
    ]);
    // 300 000: only Gemini's window is large enough.
    expect(order(rankCandidates(withO3, { ...plainChat, promptTokens: 300_000 }, cheapest))).toEqual(['gemini-2.5-flash']);
    // Images: o3-mini has no vision.
    expect(order(rankCandidates(withO3, { ...plainChat, images: true }, cheapest))).not.toContain('o3-mini');
    // JSON mode: Claude does not answer OpenAI's json modes.
    expect(order(rankCandidates(withO3, { ...plainChat, jsonMode: true }, cheapest))).toEqual([
      'gpt-4o-mini',
      'gemini-2.5-flash',
      'o3-mini',
      'gpt-4o',
    ]);
    // An output limit over the model's own.
    expect(order(rankCandidates(withO3, { ...plainChat, maxOutputTokens: 20_000 }, cheapest))).not.toContain('gpt-4o-mini');
  });

  it('leaves out models without tools when the request offers tools', () => {
    const noTools = { ...candidate('gpt-4o-mini'), profile: { ...modelProfile('gpt-4o-mini')!, features: { tools: false, vision: true, jsonMode: true } } };
    expect(order(rankCandidates([noTools, candidate('gpt-4o')], { ...plainChat, tools: true }, { cost: 1, speed: 0, accuracy: 0 }))).toEqual(['gpt-4o']);
  });

  it('puts models whose circuit is open last', () => {
    const ranked = rankCandidates([candidate('gpt-4o-mini', undefined, false), candidate('gpt-4o')], plainChat, { cost: 1, speed: 0, accuracy: 0 });
    expect(order(ranked)).toEqual(['gpt-4o', 'gpt-4o-mini']);
  });

  it('normalises and describes weights', () => {
    expect(normaliseWeights({ cost: 3, speed: 1, accuracy: 1 })).toEqual({ cost: 0.6, speed: 0.2, accuracy: 0.2 });
    expect(describeWeights({ cost: 2, speed: 0, accuracy: 1 })).toBe('cost 0.67 speed 0 accuracy 0.33');
  });
});
