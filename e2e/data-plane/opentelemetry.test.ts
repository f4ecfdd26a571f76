/**
 * OpenTelemetry end to end, in both modes: with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a
 * local OTLP/HTTP receiver, requests through the real OpenAI SDK (a chat answer, a
 * streamed chat, embeddings) arrive as client spans and the two GenAI client histograms,
 * named and attributed by the semantic conventions (gateway/src/observability's contract
 * test checks those names against the published conventions), with the providers'
 * usage, and no key, team or group id.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { testModes, usageWritten } from '../support/spendgate.ts';
import { issueByokKey, signUpTeam } from './tenant.ts';
import { tracedGateway } from './traced-gateway.ts';

const HI = [{ role: 'user' as const, content: 'Hi there' }];
/** OTLP's SpanKind CLIENT. */
const CLIENT = 3;

for (const mode of testModes) {
  describe(`OpenTelemetry over OTLP/HTTP (${mode})`, () => {
    const traced = tracedGateway(mode, 'opentelemetry', { OTEL_SERVICE_NAME: 'spendgate-test' });

    it('exports a span per request and the GenAI client metrics, named by the conventions', async () => {
      const { receiver, fake, spendgate } = traced;
      const tenant = await signUpTeam(spendgate.url, 'otel@example.com');
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      const openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI });
      const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI, stream: true, stream_options: { include_usage: true } });
      for await (const _chunk of stream);
      await openai.embeddings.create({ model: 'text-embedding-3-small', input: 'hello world' });
      await usageWritten(spendgate);
      // Closing flushes the span processor and the metric reader.
      await spendgate.close();

      const spans = receiver.spans();
      expect(spans.map((span) => span.name).sort()).toEqual(['chat gpt-4o-mini', 'chat gpt-4o-mini', 'embeddings text-embedding-3-small']);
      for (const span of spans) {
        expect(span.kind).toBe(CLIENT);
        expect(span.resource['service.name']).toBe('spendgate-test');
        expect(BigInt(span.endTimeUnixNano)).toBeGreaterThan(BigInt(span.startTimeUnixNano));
        const text = JSON.stringify(span);
        for (const secret of [key, tenant.teamId, tenant.groupId, 'sk-fake-upstream']) expect(text).not.toContain(secret);
      }
      // The fake's rule: 'Hi there' is ceil(8 / 4) + 3 = 5 prompt tokens, 'echo: Hi there' 3 words.
      expect(spans.find((span) => span.name.startsWith('chat'))!.attributes).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
        'gen_ai.usage.input_tokens': 5,
        'gen_ai.usage.output_tokens': 3,
        'http.response.status_code': 200,
      });
      expect(spans.find((span) => span.name.startsWith('embeddings'))!.attributes).toMatchObject({
        'gen_ai.operation.name': 'embeddings',
        'gen_ai.usage.input_tokens': 3,
        'gen_ai.usage.output_tokens': 0,
      });

      // The last export holds each metric's cumulative points.
      const metrics = receiver.metrics();
      expect(new Set(metrics.map((metric) => metric.name))).toEqual(new Set(['gen_ai.client.token.usage', 'gen_ai.client.operation.duration']));
      const last = (name: string) => metrics.filter((metric) => metric.name === name).at(-1)!;
      const tokenUsage = last('gen_ai.client.token.usage');
      expect([tokenUsage.kind, tokenUsage.unit]).toEqual(['histogram', '{token}']);
      const chatTokens = (type: string) =>
        tokenUsage.points.find((point) => point.attributes['gen_ai.token.type'] === type && point.attributes['gen_ai.operation.name'] === 'chat')!;
      expect(chatTokens('input')).toMatchObject({
        count: 2,
        sum: 10,
        attributes: {
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
        },
      });
      expect(chatTokens('output')).toMatchObject({ count: 2, sum: 6 });
      const duration = last('gen_ai.client.operation.duration');
      expect([duration.kind, duration.unit]).toEqual(['histogram', 's']);
      expect(duration.points.reduce((sum, point) => sum + (point.count ?? 0), 0)).toBe(3);
      for (const point of duration.points) expect(Object.keys(point.attributes)).toEqual(expect.arrayContaining(['gen_ai.operation.name', 'gen_ai.provider.name']));
    });
  });
}
