/**
 * W3C trace context through the gateway, in both modes, with the fake OpenAI recording the
 * headers it was sent. With OpenTelemetry exporting traces to a local OTLP/HTTP receiver,
 * the gateway's span of a request continues the caller's `traceparent` (same trace, the
 * caller's span its parent) and the provider is sent the gateway span's own `traceparent`
 * with the caller's `tracestate`, on every try; a caller without one, or with an invalid
 * one, starts a new trace. Without OpenTelemetry the caller's headers reach the provider
 * unchanged, and none is made up.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import type { ReceivedSpan } from '../fakes/otlp-receiver.ts';
import { type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { issueByokKey, signUpTeam } from './tenant.ts';
import { tracedGateway } from './traced-gateway.ts';

const HI = [{ role: 'user' as const, content: 'Hi there' }];
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACESTATE = 'vendor=abc,other=x';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The trace context headers of the fake's chat requests, in order. */
const sentContexts = (fake: FakeOpenAI) =>
  fake.requests
    .filter((request) => request.path === '/v1/chat/completions')
    .map((request) => ({ traceparent: request.headers.traceparent as string | undefined, tracestate: request.headers.tracestate as string | undefined }));

/** A traceparent's trace id, span id and flags. */
function partsOf(traceparent: string | undefined) {
  const match = TRACEPARENT.exec(traceparent ?? '');
  expect(match, `traceparent ${traceparent}`).not.toBeNull();
  return { traceId: match![1]!, spanId: match![2]!, flags: match![3]! };
}

async function tenantClient(spendgate: RunningSpendgate, fake: FakeOpenAI, email: string) {
  const tenant = await signUpTeam(spendgate.url, email);
  const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
  return new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
}

for (const mode of testModes) {
  describe(`W3C trace context with OpenTelemetry traces (${mode})`, () => {
    const traced = tracedGateway(mode, 'trace-context');

    it("continues the caller's trace, and sends the gateway span's traceparent to the provider", async () => {
      const { receiver, fake, spendgate } = traced;
      const openai = await tenantClient(spendgate, fake, 'trace-on@example.com');
      // 1. A sampled caller trace with a tracestate; the provider fails the first try (503) and answers the retry.
      fake.controlHeaders['x-fake-status'] = '503';
      fake.controlHeaders['x-fake-status-times'] = '1';
      await openai.chat.completions.create(
        { model: 'gpt-4o-mini', messages: HI },
        { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: TRACESTATE } },
      );
      // 2. A streamed request without trace context: a new trace.
      const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI, stream: true, stream_options: { include_usage: true } });
      for await (const _chunk of stream);
      // 3. An invalid traceparent (all-zero trace id): a new trace, the caller's tracestate dropped.
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI }, { headers: { traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`, tracestate: TRACESTATE } });
      // 4. A caller that did not sample: the context goes on, unsampled, and no span is exported.
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI }, { headers: { traceparent: `00-${CALLER_TRACE.replace('4bf9', 'aaaa')}-${CALLER_SPAN}-00` } });
      await usageWritten(spendgate);
      await spendgate.close();

      const [firstTry, retry, streamed, invalid, unsampled] = sentContexts(fake);
      const spans = receiver.spans();
      expect(spans).toHaveLength(3);
      const spanWithId = (spanId: string): ReceivedSpan => {
        const span = spans.find((candidate) => candidate.spanId === spanId);
        expect(span, `an exported span ${spanId}`).toBeDefined();
        return span!;
      };

      // 1: both tries carry the gateway span's context, a child of the caller's span.
      expect(retry).toEqual(firstTry);
      const continued = partsOf(firstTry!.traceparent);
      expect(continued).toMatchObject({ traceId: CALLER_TRACE, flags: '01' });
      expect(continued.spanId).not.toBe(CALLER_SPAN);
      expect(firstTry!.tracestate).toBe(TRACESTATE);
      expect(spanWithId(continued.spanId)).toMatchObject({ name: 'chat gpt-4o-mini', traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN });

      // 2: a root span of a trace of its own, sent as it is.
      const root = partsOf(streamed!.traceparent);
      expect(root.traceId).not.toBe(CALLER_TRACE);
      expect(streamed!.tracestate).toBeUndefined();
      expect(spanWithId(root.spanId)).toMatchObject({ traceId: root.traceId, parentSpanId: '' });

      // 3: the invalid context is not continued.
      const restarted = partsOf(invalid!.traceparent);
      expect(restarted.traceId).not.toBe('0'.repeat(32));
      expect(invalid!.tracestate).toBeUndefined();
      expect(spanWithId(restarted.spanId)).toMatchObject({ traceId: restarted.traceId, parentSpanId: '' });

      // 4: the caller's trace, unsampled, with a span id of the gateway's; nothing exported for it.
      const notSampled = partsOf(unsampled!.traceparent);
      expect(notSampled).toMatchObject({ traceId: CALLER_TRACE.replace('4bf9', 'aaaa'), flags: '00' });
      expect(notSampled.spanId).not.toBe(CALLER_SPAN);
      expect(spans.map((span) => span.traceId)).not.toContain(notSampled.traceId);
    });
  });

  describe(`W3C trace context without OpenTelemetry (${mode})`, () => {
    let fake: FakeOpenAI;
    let spendgate: RunningSpendgate;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, 'trace-context-off');
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    it("passes the caller's trace context to the provider unchanged, and makes none up", async () => {
      expect(spendgate.app.runtime.tracer).toBeUndefined();
      const openai = await tenantClient(spendgate, fake, 'trace-off@example.com');
      const traceparent = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI }, { headers: { traceparent, tracestate: TRACESTATE } });
      // A version the gateway does not know, as it came: judging it is for the provider's tracer.
      const future = `cc-${CALLER_TRACE}-${CALLER_SPAN}-01-what-comes-next`;
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI }, { headers: { traceparent: future } });
      await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI });

      expect(sentContexts(fake)).toEqual([{ traceparent, tracestate: TRACESTATE }, { traceparent: future, tracestate: undefined }, { traceparent: undefined, tracestate: undefined }]);
    });
  });
}
