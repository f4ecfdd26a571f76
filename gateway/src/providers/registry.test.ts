// The registry's contract: every adapter can be reached, authenticated and priced.
import { priceCatalog } from '@spendgate/core';
import { describe, expect, it } from 'vitest';
import { findProvider, providers } from './registry.ts';

const target = { baseUrl: 'https://example.test', model: 'm-1', stream: false, options: {} };

describe('provider registry', () => {
  it('lists the providers of the product, each once', () => {
    expect(providers.map((p) => p.id)).toEqual([
      'openai', 'azure-openai', 'anthropic', 'google', 'mistral', 'groq', 'together',
      'deepseek', 'xai', 'fireworks', 'openrouter', 'perplexity', 'cerebras', 'openai-compatible',
    ]);
  });

  it.each(providers.map((p) => [p.id, p] as const))('%s: chat is reachable and authenticated with the secret', (_id, adapter) => {
    expect(adapter.url('chat', target)).toMatch(/^https:\/\/example\.test\//);
    expect(Object.values(adapter.authHeaders('sk-secret')).join(' ')).toContain('sk-secret');
    if (adapter.defaultBaseUrl) expect(adapter.defaultBaseUrl).toMatch(/^https:\/\//);
  });

  it.each(providers.filter((p) => p.id !== 'openai-compatible').map((p) => [p.id, p] as const))(
    '%s: has priced models in the catalog',
    (_id, adapter) => {
      const models = Object.keys(priceCatalog.versions.at(-1)!.prices[adapter.catalogProvider] ?? {});
      expect(models.length).toBeGreaterThan(0);
    },
  );

  it('sends each provider’s operations where its API expects them', () => {
    expect(findProvider('openai')!.url('responses', target)).toBe('https://example.test/responses');
    expect(findProvider('anthropic')!.url('chat', target)).toBe('https://example.test/v1/messages');
    expect(findProvider('anthropic')!.url('embeddings', target)).toBeUndefined();
    expect(findProvider('google')!.url('chat', { ...target, stream: true })).toBe(
      'https://example.test/v1beta/models/m-1:streamGenerateContent?alt=sse',
    );
    expect(findProvider('azure-openai')!.url('chat', { ...target, options: { apiVersion: '2025-01-01' } })).toBe(
      'https://example.test/openai/deployments/m-1/chat/completions?api-version=2025-01-01',
    );
    expect(findProvider('groq')!.url('responses', target)).toBeUndefined();
  });

  it('counts tokens where the provider has a count API, and takes BYOM keys only on the self-hosted endpoint', () => {
    expect(providers.filter((p) => p.countsTokens).map((p) => p.id)).toEqual(['anthropic', 'google']);
    for (const adapter of providers) expect(adapter.url('count_tokens', target) !== undefined).toBe(adapter.countsTokens);
    expect(providers.filter((p) => p.selfHosted).map((p) => p.id)).toEqual(['openai-compatible']);
  });

  it('asks OpenAI-format streams for their usage unless the caller did', () => {
    const openai = findProvider('openai')!;
    expect(openai.prepareBody('chat', { model: 'x', stream: true }, target)).toEqual({
      model: 'x',
      stream: true,
      stream_options: { include_usage: true },
    });
    const asked = { model: 'x', stream: true, stream_options: { include_usage: true } };
    expect(openai.prepareBody('chat', asked, target)).toBe(asked);
    expect(openai.prepareBody('chat', { model: 'x' }, target)).toEqual({ model: 'x' });
  });
});
