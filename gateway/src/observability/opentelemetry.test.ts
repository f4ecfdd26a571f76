// The metric-name contract: every name, attribute and well-known value the gateway's
// OpenTelemetry emits is one the published GenAI semantic conventions define (the
// fixture, copied from them). The end-to-end test (e2e/data-plane/opentelemetry.test.ts)
// checks that a request through the real SDK emits exactly these names.
import { describe, expect, it } from 'vitest';
import { providers } from '../providers/registry.ts';
import { GENAI_SEMCONV } from './genai-semconv.fixture.ts';
import { CUSTOM_OPERATIONS, DURATION_BUCKETS, GEN_AI, OPERATION_NAMES, PROVIDER_NAMES, TOKEN_BUCKETS } from './opentelemetry.ts';

describe('OpenTelemetry names against the GenAI semantic conventions', () => {
  it('emits the two client metrics by their names, and only attributes the conventions define', () => {
    expect(Object.keys(GENAI_SEMCONV.metrics)).toEqual(expect.arrayContaining([GEN_AI.tokenUsageMetric, GEN_AI.operationDurationMetric]));
    const attributes = Object.entries(GEN_AI).filter(([name]) => !name.endsWith('Metric'));
    for (const [name, attribute] of attributes) expect(GENAI_SEMCONV.attributes, name).toContain(attribute);
    for (const metric of Object.values(GENAI_SEMCONV.metrics)) {
      for (const required of metric.requiredAttributes) expect(Object.values(GEN_AI)).toContain(required);
    }
  });

  it('uses the advised buckets', () => {
    expect(TOKEN_BUCKETS).toEqual(GENAI_SEMCONV.tokenUsageBuckets);
    expect(DURATION_BUCKETS).toEqual(GENAI_SEMCONV.operationDurationBuckets);
  });

  it('names operations by the well-known values, the one without a value as the provider does', () => {
    for (const [endpoint, operation] of Object.entries(OPERATION_NAMES)) {
      if (CUSTOM_OPERATIONS.has(operation)) continue;
      expect(GENAI_SEMCONV.operationNames, endpoint).toContain(operation);
    }
    expect([...CUSTOM_OPERATIONS].filter((operation) => (GENAI_SEMCONV.operationNames as readonly string[]).includes(operation))).toEqual([]);
  });

  it('names each provider the conventions know by its well-known value', () => {
    for (const [provider, name] of Object.entries(PROVIDER_NAMES)) expect(GENAI_SEMCONV.providerNames, provider).toContain(name);
    // Every provider the gateway has is either mapped or one the conventions do not name.
    const known = new Set<string>(GENAI_SEMCONV.providerNames);
    for (const adapter of providers) {
      if (known.has(adapter.catalogProvider)) expect(PROVIDER_NAMES[adapter.catalogProvider], adapter.catalogProvider).toBe(adapter.catalogProvider);
    }
    expect(GENAI_SEMCONV.tokenTypes).toEqual(['input', 'output']);
  });
});
