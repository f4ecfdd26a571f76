/**
 * The data plane against an OpenAI provider (the local fake), called by both official
 * SDKs: the OpenAI SDK natively, the Anthropic SDK through format translation. Costs
 * are hand-computed from the usage the fake is told to report (gpt-4o on 2026-08-21:
 * $2.50 input, $1.25 cached input, $10.00 output per million tokens).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { issueByokKey, recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

// 600 uncached × 2.5 + 400 cached × 1.25 + 200 output × 10 = 1500 + 500 + 2000 = 4000 micro-USD.
const FORCED_USAGE = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 400 });
const FORCED_COST_MICROS = 4000n;

for (const mode of testModes) {
  describe(`data plane → OpenAI provider (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let tenant: Tenant;
    let openai: OpenAI;
    let anthropic: Anthropic;
    let requestsSent = 0;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      fake.controlHeaders['x-fake-usage'] = FORCED_USAGE;
      spendgate = await startSpendgate(mode, 'data-plane-openai');
      tenant = await signUpTeam(spendgate.url, 'openai-provider@example.com');
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      anthropic = new Anthropic({ baseURL: spendgate.url, apiKey: key, maxRetries: 0 });
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    const events = () => recordedEvents(spendgate, tenant.teamId, requestsSent);

    it('prices an OpenAI chat completion with cached tokens', async () => {
      requestsSent++;
      const { data, response } = await openai.chat.completions
        .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there world' }] })
        .withResponse();
      expect(data.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 200, prompt_tokens_details: { cached_tokens: 400 } });
      expect(response.headers.get('x-spendgate-cost')).toBe('0.004000');
    });

    it('prices reasoning tokens of an o-series model at its output rate', async () => {
      requestsSent++;
      fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 500, reasoning_tokens: 400 });
      try {
        // o3-mini: $1.10 input, $4.40 output per million; reasoning is output: 1100 + 500 × 4.4 = 3300 micro-USD
        const { data, response } = await openai.chat.completions
          .create({ model: 'o3-mini', messages: [{ role: 'user', content: 'Think' }] })
          .withResponse();
        expect(data.usage?.completion_tokens_details?.reasoning_tokens).toBe(400);
        expect(response.headers.get('x-spendgate-cost')).toBe('0.003300');
      } finally {
        fake.controlHeaders['x-fake-usage'] = FORCED_USAGE;
      }
    });

    it('passes tool calls through natively and translates them for Anthropic callers', async () => {
      requestsSent += 2;
      const parameters = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };
      const completion = await openai.chat.completions.create({
        model: 'gpt-4o',
        tools: [{ type: 'function', function: { name: 'get_weather', parameters } }],
        messages: [{ role: 'user', content: 'call get_weather {"city":"Paris"}' }],
      });
      const call = completion.choices[0]?.message.tool_calls?.[0];
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
      const message = await anthropic.messages.create({
        model: 'gpt-4o',
        max_tokens: 256,
        tools: [{ name: 'get_weather', input_schema: parameters }],
        messages: [{ role: 'user', content: 'call get_weather {"city":"Paris"}' }],
      });
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } })]);
    });

    it('serves an Anthropic-format request from the OpenAI model', async () => {
      requestsSent++;
      const message = await anthropic.messages.create({
        model: 'gpt-4o',
        max_tokens: 256,
        system: 'You are terse.',
        messages: [{ role: 'user', content: 'Hello there world' }],
      });
      expect(message.type).toBe('message');
      expect(message.role).toBe('assistant');
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: Hello there world' })]);
      expect(message.usage).toMatchObject({ input_tokens: 600, cache_read_input_tokens: 400, output_tokens: 200 });
      const sent = fake.requests.at(-1)!.body as { messages: { role: string; content: unknown }[]; max_completion_tokens: number };
      expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
      expect(sent.max_completion_tokens).toBe(256);
    });

    it('streams an Anthropic-format request from the OpenAI model', async () => {
      requestsSent++;
      const stream = anthropic.messages.stream({
        model: 'gpt-4o',
        max_tokens: 256,
        messages: [{ role: 'user', content: 'Stream me please' }],
      });
      const texts: string[] = [];
      stream.on('text', (text) => texts.push(text));
      const message = await stream.finalMessage();
      expect(texts.length).toBeGreaterThan(1);
      expect(texts.join('')).toBe('echo: Stream me please');
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage).toMatchObject({ input_tokens: 600, cache_read_input_tokens: 400, output_tokens: 200 });
    });

    it('prices embeddings by their input tokens', async () => {
      requestsSent++;
      // The fake counts ceil(4000 characters / 4) = 1000 tokens × $0.02 per million = 20 micro-USD.
      const { data, response } = await openai.embeddings
        .create({ model: 'text-embedding-3-small', input: 'abcd'.repeat(1000), encoding_format: 'float' })
        .withResponse();
      expect(data.data[0]?.embedding.length).toBeGreaterThan(0);
      expect(data.usage.prompt_tokens).toBe(1000);
      expect(response.headers.get('x-spendgate-cost')).toBe('0.000020');
    });

    it('proxies the Responses API, plain and streamed, priced from its usage', async () => {
      requestsSent += 2;
      delete fake.controlHeaders['x-fake-usage'];
      try {
        // The fake's rule: input ceil(17 / 4) + 3 = 8, output 4 words → 8 × 2.5 + 4 × 10 = 60 micro-USD.
        const { data, response } = await openai.responses.create({ model: 'gpt-4o', input: 'Hello there world' }).withResponse();
        expect(data.output_text).toBe('echo: Hello there world');
        expect(data.usage).toMatchObject({ input_tokens: 8, output_tokens: 4 });
        expect(response.headers.get('x-spendgate-cost')).toBe('0.000060');
        const stream = await openai.responses.create({ model: 'gpt-4o', input: 'Hello there world', stream: true });
        let text = '';
        for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
        expect(text).toBe('echo: Hello there world');
      } finally {
        fake.controlHeaders['x-fake-usage'] = FORCED_USAGE;
      }
      const responses = (await events()).filter((event) => event.endpoint === 'responses');
      expect(responses.map((event) => [event.streamed, event.cost_micros, event.estimated])).toEqual([
        [false, 60n, false],
        [true, 60n, false],
      ]);
    });

    it('passes each stream event on as the provider sends it, holding none back', async () => {
      requestsSent++;
      const intervalMs = 150;
      fake.controlHeaders['x-fake-stream-interval-ms'] = String(intervalMs);
      const arrivals: number[] = [];
      try {
        const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one two three' }], stream: true });
        for await (const chunk of stream) if (chunk.choices[0]?.delta.content) arrivals.push(performance.now());
      } finally {
        delete fake.controlHeaders['x-fake-stream-interval-ms'];
      }
      // "echo:", "one", "two", "three": a pause between each, none arriving with the next.
      expect(arrivals).toHaveLength(4);
      for (let index = 1; index < arrivals.length; index++) expect(arrivals[index]! - arrivals[index - 1]!).toBeGreaterThan(intervalMs / 2);
    });

    it('bills a client that leaves mid-stream by estimate, once', async () => {
      requestsSent++;
      fake.controlHeaders['x-fake-stream-interval-ms'] = '100';
      try {
        const abort = new AbortController();
        const stream = await openai.chat.completions.create(
          { model: 'gpt-4o', messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }], stream: true },
          { signal: abort.signal },
        );
        let chunks = 0;
        try {
          for await (const _chunk of stream) if (++chunks === 3) abort.abort();
        } catch {
          // The SDK may end the loop quietly or raise on abort: either way the caller left.
        }
        expect(chunks).toBe(3);
      } finally {
        delete fake.controlHeaders['x-fake-stream-interval-ms'];
      }
      const left = (await events()).at(-1)!;
      // Prompt by tiktoken: 3 + 3 + 10 words' tokens; output: the few words generated before the caller left.
      expect(left).toMatchObject({ streamed: true, estimated: true, status_code: 499, input_tokens: 16n });
      expect(left.output_tokens).toBeGreaterThan(0n);
      expect(left.output_tokens).toBeLessThan(11n);
      expect(left.cost_micros).toBe(16n * 25n / 10n + left.output_tokens * 10n);
    });

    it('counts tokens for the Anthropic SDK by estimate when the provider is not Anthropic', async () => {
      requestsSent += 0; // answered by the gateway itself: nothing is sent upstream
      const counted = await anthropic.messages.countTokens({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello there world' }] });
      expect(counted.input_tokens).toBe(9); // 3 (reply) + 3 (message) + 3 tokens of text
    });

    it('lists the models the key may use in each SDK’s format', async () => {
      const models = await openai.models.list();
      const ids = models.data.map((model) => model.id);
      expect(ids).toContain('gpt-4o');
      expect(ids).not.toContain('claude-sonnet-4-5');
      const anthropicModels = await anthropic.models.list();
      expect(anthropicModels.data.map((model) => model.id)).toContain('gpt-4o-mini');
    });

    it('passes provider errors through in the caller’s format with the provider’s status', async () => {
      fake.controlHeaders['x-fake-status'] = '429';
      try {
        requestsSent += 2;
        await expect(openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
          OpenAI.RateLimitError,
        );
        await expect(
          anthropic.messages.create({ model: 'gpt-4o', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
        ).rejects.toBeInstanceOf(Anthropic.RateLimitError);
      } finally {
        delete fake.controlHeaders['x-fake-status'];
      }
    });

    it('forwards the caller’s body as sent when nothing changes it, and encodes it anew when something does', async () => {
      requestsSent += 2;
      const send = (text: string) =>
        fetch(`${spendgate.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
          body: text,
        });
      // Spacing, key order, an escape and a field the gateway does not know stay as they are.
      const asSent = '{ "messages" : [{"role":"user","content":"caf\\u00e9 au lait"}],\n  "model":"gpt-4o", "x_custom": {"kept": true} }';
      const plain = await send(asSent);
      expect(plain.status).toBe(200);
      expect(fake.requests.at(-1)!.bodyText).toBe(asSent);

      // A stream without the usage option: the gateway adds it, so the provider gets a new encoding.
      const streamed = await send('{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}');
      expect(streamed.status).toBe(200);
      await streamed.text();
      expect(fake.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true } });
    });

    it('answers bad input in the caller’s format, naming the field, without reaching the provider', async () => {
      const before = fake.requests.length;
      await expect(anthropic.messages.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] } as never)).rejects.toMatchObject({
        status: 400,
        error: { type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') } },
      });
      expect(fake.requests.length).toBe(before);
    });

    it('records every request sent exactly once, with its cost', async () => {
      const recorded = await events();
      expect(new Set(recorded.map((event) => event.request_id)).size).toBe(requestsSent);
      const chat = recorded.filter(
        (event) => event.status_code === 200 && ['chat.completions', 'messages'].includes(event.endpoint),
      );
      expect(chat.map((event) => [event.endpoint, event.model, event.cost_micros])).toEqual([
        ['chat.completions', 'gpt-4o-2024-08-06', FORCED_COST_MICROS],
        ['chat.completions', 'o3-mini', 3300n],
        ['chat.completions', 'gpt-4o-2024-08-06', FORCED_COST_MICROS],
        ['messages', 'gpt-4o-2024-08-06', FORCED_COST_MICROS],
        ['messages', 'gpt-4o-2024-08-06', FORCED_COST_MICROS],
        ['messages', 'gpt-4o-2024-08-06', FORCED_COST_MICROS],
        ['chat.completions', 'gpt-4o-2024-08-06', FORCED_COST_MICROS],
        ['chat.completions', 'gpt-4o-2024-08-06', FORCED_COST_MICROS],
        ['chat.completions', 'gpt-4o-2024-08-06', FORCED_COST_MICROS],
      ]);
      expect(recorded.filter((event) => event.status_code === 429).map((event) => event.cost_micros)).toEqual([0n, 0n]);
    });
  });
}
