import { type KeySettings, planTerms, priceCatalog, type RequestNeeds } from '@spendgate/core';
import type { Broadcast } from '@spendgate/store';
import { describe, expect, it } from 'vitest';
import { findProvider } from '../providers/registry.ts';
import type { Principal } from './principals.ts';
import { type CircuitNews, createRouter, createUpstreamHealth, type RoutePlan } from './routing.ts';
import { createUpstreamResolver } from './upstreams.ts';

const at = new Date('2026-09-01T00:00:00Z');
const chat: RequestNeeds = { promptTokens: 1000, maxOutputTokens: 500, tools: false, images: false, jsonMode: false };

const upstreams = createUpstreamResolver({
  catalog: priceCatalog,
  optimisedUpstreams: { openai: { apiKey: 'sk-o', baseUrl: 'http://openai.test/v1' }, anthropic: { apiKey: 'sk-a', baseUrl: 'http://anthropic.test' } },
});
const newRouter = () => createRouter({ upstreams, catalog: priceCatalog, health: createUpstreamHealth({ now: () => at.getTime() }) });

const optimised = (settings: KeySettings = {}) => ({ kind: 'optimised', plan: planTerms('developers'), settings, connection: null }) as unknown as Principal;
const byok = {
  kind: 'byok',
  plan: planTerms('developers'),
  settings: {},
  connection: { connectionId: 'conn-1', adapter: findProvider('openai')!, baseUrl: 'http://team.test/v1', options: {}, secret: 'sk-team', active: true },
} as unknown as Principal;

const models = (plan: RoutePlan) => plan.attempts.map((attempt) => `${attempt.upstream.adapter.id}/${attempt.model}`);

describe('router', () => {
  it('routes `auto` by the key’s weights, or the plan’s, across operator accounts', () => {
    const router = newRouter();
    const byPlan = router.plan(optimised(), { model: 'auto', operation: 'chat', needs: chat }, at);
    expect(byPlan.reason).toBe('auto: cost 0.6 speed 0.2 accuracy 0.2 -> gpt-5-nano');
    const accurate = router.plan(optimised({ routing: { weights: { cost: 0, speed: 0, accuracy: 1 } } }), { model: 'auto', operation: 'chat', needs: chat }, at);
    expect(models(accurate)).toEqual(['anthropic/claude-opus-4-5', 'openai/gpt-5', 'anthropic/claude-sonnet-4-5', 'openai/o4-mini']);
  });

  it('refuses `auto` when no model can serve the request, and outside chat', () => {
    expect(() => newRouter().plan(optimised(), { model: 'auto', operation: 'chat', needs: { ...chat, promptTokens: 2_000_000 } }, at)).toThrow(
      expect.objectContaining({ statusCode: 400, code: 'no_model_fits' }),
    );
    expect(() => newRouter().plan(optimised(), { model: 'auto', operation: 'embeddings', needs: chat }, at)).toThrow(
      expect.objectContaining({ statusCode: 400, code: 'model_not_available' }),
    );
  });

  it('tries a named model, then the key’s fallbacks, then alternatives of its tier or above', () => {
    const principal = optimised({ routing: { weights: { cost: 1, speed: 0, accuracy: 0 }, fallbacks: ['claude-haiku-4-5', 'not-served-anywhere'] } });
    const plan = newRouter().plan(principal, { model: 'gpt-4o', operation: 'chat', needs: chat }, at);
    // gpt-4o is tier 2: the cheapest tier-2+ alternatives follow (never gpt-4o-mini or the nanos, tier 1);
    // o4-mini and o3-mini cost the same: the more accurate first.
    expect(models(plan)).toEqual(['openai/gpt-4o', 'anthropic/claude-haiku-4-5', 'openai/gpt-5-mini', 'openai/o4-mini']);
    expect(plan.reason).toBe('requested');
  });

  it('keeps BYOK and BYOM keys on their connection, with the requested model only', () => {
    const plan = newRouter().plan(byok, { model: 'gpt-4o', operation: 'chat', needs: chat }, at);
    expect(plan.attempts.map((attempt) => [attempt.upstream.connectionId, attempt.model])).toEqual([['conn-1', 'gpt-4o']]);
  });

  it('routes a model the key overrides as the model sent instead, saying so', () => {
    const router = newRouter();
    const principal = optimised({ modelOverrides: [{ replace: 'gpt-4o', with: 'claude-haiku-4-5' }, { replace: 'auto', with: 'gpt-5-nano' }] });
    const plan = router.plan(principal, { model: 'gpt-4o', operation: 'chat', needs: chat }, at);
    expect([models(plan)[0], plan.reason]).toEqual(['anthropic/claude-haiku-4-5', 'override: gpt-4o -> claude-haiku-4-5']);
    expect(router.plan(principal, { model: 'auto', operation: 'chat', needs: chat }, at).reason).toBe('override: auto -> gpt-5-nano');

    const azure = { connectionId: 'conn-2', adapter: findProvider('azure-openai')!, baseUrl: 'http://azure.test', options: {}, secret: 'az', active: true };
    const overridden = {
      ...byok,
      settings: { modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o', connectionId: 'conn-2' }, { replace: 'gpt-4.1', with: 'gpt-4.1-mini', connectionId: 'conn-gone' }] },
      overrideConnections: new Map([['conn-2', azure]]),
    } as unknown as Principal;
    const through = router.plan(overridden, { model: 'gpt-4o', operation: 'chat', needs: chat }, at);
    expect([through.attempts.map((attempt) => [attempt.upstream.connectionId, attempt.model]), through.reason]).toEqual([
      [['conn-2', 'gpt-4o']],
      'override: gpt-4o -> gpt-4o via azure-openai',
    ]);
    expect(() => router.plan(overridden, { model: 'gpt-4.1', operation: 'chat', needs: chat }, at)).toThrow(
      expect.objectContaining({ statusCode: 400, code: 'no_connection', message: "The connection conn-gone, which this key's model override goes through, no longer exists" }),
    );
    expect(router.plan(overridden, { model: 'gpt-4o-mini', operation: 'chat', needs: chat }, at).attempts[0]!.upstream.connectionId).toBe('conn-1');
  });

  it('reads what a request needs only for optimised keys, the ones it chooses models for', () => {
    const router = newRouter();
    expect(router.choosesAmongModels(optimised())).toBe(true);
    expect(router.choosesAmongModels(byok)).toBe(false);
  });

  it('downgrades to the cheaper sibling: on the operator account for optimised keys, on the connection for BYOK', () => {
    const router = newRouter();
    const principal = optimised({ routing: { fallbacks: ['gpt-4o'] } });
    const plan = router.downgrade(principal, router.plan(principal, { model: 'claude-sonnet-4-5', operation: 'chat', needs: chat }, at), 'budget-1', at);
    expect(models(plan).slice(0, 2)).toEqual(['anthropic/claude-haiku-4-5', 'openai/gpt-4o-mini']);
    expect(plan.reason).toBe('requested; downgrade (budget budget-1 spent): claude-sonnet-4-5 -> claude-haiku-4-5');

    const own = router.downgrade(byok, router.plan(byok, { model: 'gpt-4o-2024-08-06', operation: 'chat', needs: chat }, at), 'budget-2', at);
    expect(own.attempts.map((attempt) => [attempt.upstream.connectionId, attempt.model])).toEqual([['conn-1', 'gpt-4o-mini']]);
    const cheapest = router.downgrade(byok, router.plan(byok, { model: 'gpt-4o-mini', operation: 'chat', needs: chat }, at), 'budget-2', at);
    expect(cheapest.reason).toBe('requested; downgrade (budget budget-2 spent): no cheaper model than gpt-4o-mini');
  });
});

describe('upstream health across gateways', () => {
  /** Two gateways' news, as Redis pub/sub carries it: each hears what the other publishes (store tests cover Redis itself). */
  const linkedBroadcasts = () => {
    const listeners: ((news: unknown) => void)[][] = [[], []];
    const published: CircuitNews[][] = [[], []];
    const end = (self: 0 | 1): Broadcast<CircuitNews> => ({
      publish(news) {
        published[self]!.push(news);
        for (const listener of listeners[1 - self]!) listener(JSON.parse(JSON.stringify(news)));
      },
      subscribe: (listener) => void listeners[self]!.push(listener),
      close: async () => {},
    });
    return { ends: [end(0), end(1)] as const, published, heard: (self: 0 | 1, news: unknown) => {
        for (const listener of listeners[self]!) listener(news);
      },
    };
  };

  it('opens and closes a circuit in every gateway when one of them opens or closes it, and ignores malformed news', () => {
    let now = 0;
    const { ends, published, heard } = linkedBroadcasts();
    const [here, there] = ends.map((news) => createUpstreamHealth({ now: () => now, breaker: { failureThreshold: 2, cooldownMs: 1000 }, news }));
    const gpt4o = upstreams.operatorUpstreamFor('gpt-4o', at)!;
    const attempt = { upstream: gpt4o, model: 'gpt-4o' };
    const circuit = `${gpt4o.adapter.id}/gpt-4o`;

    here!.failed(attempt);
    expect([published[0], there!.allows(attempt)]).toEqual([[], true]);
    here!.failed(attempt);
    here!.failed(attempt); // already open: no second news
    expect(published[0]).toEqual([{ circuit, open: true }]);
    expect([here!.allows(attempt), there!.allows(attempt)]).toEqual([false, false]);

    now = 1000; // both half-open: the other gateway's probe succeeds and closes both
    there!.started(attempt);
    there!.succeeded(attempt, 120);
    expect(published[1]).toEqual([{ circuit, open: false }]);
    expect([here!.allows(attempt), there!.latencyMs(attempt), here!.latencyMs(attempt)]).toEqual([true, 120, undefined]);

    for (const news of [null, 'open', { circuit }, { circuit: 42, open: true }]) heard(0, news);
    expect(here!.allows(attempt)).toBe(true);
  });
});

