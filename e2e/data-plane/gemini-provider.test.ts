/**
 * The data plane against Google Gemini's native API (the local fake), called by the
 * OpenAI SDK and by the Anthropic SDK (Anthropic → OpenAI → Gemini translation).
 * Hand-computed cost for gemini-2.5-flash on 2026-08-21 (per million tokens: $0.30
 * input, $0.03 cached, $2.50 output — thinking billed as output) from the forced usage
 * promptTokenCount 1000 (400 of them cached), 200 candidates + 100 thoughts:
 *   600 × 0.30 + 400 × 0.03 + 300 × 2.50 = 180 + 12 + 750 = 942 micro-USD.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGemini, startFakeGemini } from '../fakes/gemini-provider.ts';
import { type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { issueByokKey, recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

const FORCED_USAGE = JSON.stringify({
  promptTokenCount: 1000,
  cachedContentTokenCount: 400,
  candidatesTokenCount: 200,
  thoughtsTokenCount: 100,
});

for (const mode of testModes) {
  describe(`data plane → Gemini provider (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeGemini;
    let tenant: Tenant;
    let openai: OpenAI;
    let anthropic: Anthropic;
    let requestsSent = 0;

    beforeAll(async () => {
      fake = await startFakeGemini();
      fake.controlHeaders['x-fake-usage'] = FORCED_USAGE;
      spendgate = await startSpendgate(mode, 'data-plane-gemini');
      tenant = await signUpTeam(spendgate.url, 'gemini-provider@example.com');
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'google', apiKey: 'fake-gemini-upstream-key', baseUrl: fake.url });
      openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      anthropic = new Anthropic({ baseURL: spendgate.url, apiKey: key, maxRetries: 0 });
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    it('serves an OpenAI chat completion from Gemini, thinking billed as output', async () => {
      requestsSent++;
      const { data, response } = await openai.chat.completions
        .create({ model: 'gemini-2.5-flash', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello there world' }] })
        .withResponse();
      expect(data.choices[0]?.message.content).toBe('echo: Hello there world');
      expect(data.usage).toMatchObject({
        prompt_tokens: 1000,
        completion_tokens: 300,
        prompt_tokens_details: { cached_tokens: 400 },
        completion_tokens_details: { reasoning_tokens: 100 },
      });
      expect(response.headers.get('x-spendgate-cost')).toBe('0.000942');
      const upstream = fake.requests.at(-1)!;
      expect(upstream.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
      expect(upstream.headers['x-goog-api-key']).toBe('fake-gemini-upstream-key');
      expect(JSON.stringify((upstream.body as { systemInstruction?: unknown }).systemInstruction)).toContain('Be brief.');
    });

    it('streams from Gemini to an OpenAI caller who asked for usage', async () => {
      requestsSent++;
      const stream = await openai.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'Stream me please' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      const usages = [];
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usages.push(chunk.usage);
      }
      expect(text).toBe('echo: Stream me please');
      expect(usages).toEqual([expect.objectContaining({ prompt_tokens: 1000, completion_tokens: 300 })]);
      expect(fake.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    });

    it('serves the Anthropic SDK from Gemini, plain and streamed', async () => {
      requestsSent += 2;
      const message = await anthropic.messages.create({
        model: 'gemini-2.5-flash',
        max_tokens: 512,
        messages: [{ role: 'user', content: 'Hello there world' }],
      });
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: Hello there world' })]);
      expect(message.usage).toMatchObject({ input_tokens: 600, cache_read_input_tokens: 400, output_tokens: 300 });
      const streamed = await anthropic.messages
        .stream({ model: 'gemini-2.5-flash', max_tokens: 512, messages: [{ role: 'user', content: 'Stream this' }] })
        .finalMessage();
      expect(streamed.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: Stream this' })]);
    });

    it('translates tool calls from Gemini for OpenAI callers', async () => {
      requestsSent++;
      const completion = await openai.chat.completions.create({
        model: 'gemini-2.5-flash',
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
        messages: [{ role: 'user', content: 'call get_weather {"city":"Paris"}' }],
      });
      const call = completion.choices[0]?.message.tool_calls?.[0];
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      expect(call?.type === 'function' && call.function.name).toBe('get_weather');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    });

    it('records every request exactly once at the hand-computed cost', async () => {
      const recorded = await recordedEvents(spendgate, tenant.teamId, requestsSent);
      expect(recorded.map((event) => [event.provider, event.cost_micros, event.reasoning_tokens, event.estimated])).toEqual(
        Array.from({ length: requestsSent }, () => ['google', 942n, 100n, false]),
      );
    });
  });
}
