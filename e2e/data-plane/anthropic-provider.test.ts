/**
 * The data plane against an Anthropic provider (the local fake): the Anthropic SDK
 * natively, the OpenAI SDK through format translation, tools both ways, a stream the
 * provider cuts. Costs are hand-computed for claude-sonnet-4-5 on 2026-08-21 (per
 * million tokens: $3 input, $0.30 cache read, $3.75 5-minute write, $6 1-hour write,
 * $15 output) from the usage the fake is told to report:
 *   1000 × 3 + 2000 × 0.30 + 300 × 3.75 + 100 × 6 + 500 × 15
 *   = 3000 + 600 + 1125 + 600 + 7500 = 12 825 micro-USD.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic-provider.ts';
import { type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { issueByokKey, recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

const FORCED_USAGE = JSON.stringify({
  input_tokens: 1000,
  output_tokens: 500,
  cache_read_input_tokens: 2000,
  cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 100 },
});
const COST = '0.012825';
const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather of a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

for (const mode of testModes) {
  describe(`data plane → Anthropic provider (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeAnthropic;
    let tenant: Tenant;
    let anthropic: Anthropic;
    let openai: OpenAI;
    let requestsSent = 0;

    beforeAll(async () => {
      fake = await startFakeAnthropic();
      fake.controlHeaders['x-fake-usage'] = FORCED_USAGE;
      spendgate = await startSpendgate(mode, 'data-plane-anthropic');
      tenant = await signUpTeam(spendgate.url, 'anthropic-provider@example.com');
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'anthropic', apiKey: 'sk-ant-fake-upstream', baseUrl: fake.url });
      anthropic = new Anthropic({ baseURL: spendgate.url, apiKey: key, maxRetries: 0 });
      openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    const events = () => recordedEvents(spendgate, tenant.teamId, requestsSent);

    it('prices a native message with cache reads and 5-minute and 1-hour cache writes', async () => {
      requestsSent++;
      const { data, response } = await anthropic.messages
        .create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello there world' }] })
        .withResponse();
      expect(data.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: Hello there world' })]);
      expect(response.headers.get('x-spendgate-cost')).toBe(COST);
      expect(response.headers.get('x-spendgate-model')).toBe('claude-sonnet-4-5-20250929');
      const upstream = fake.requests.at(-1)!;
      expect(upstream.headers['x-api-key']).toBe('sk-ant-fake-upstream');
      expect(upstream.headers['anthropic-version']).toBe('2023-06-01');
    });

    it('streams a native message event by event', async () => {
      requestsSent++;
      const stream = anthropic.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Stream this' }] });
      const message = await stream.finalMessage();
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'echo: Stream this' })]);
      expect(message.usage).toMatchObject({ input_tokens: 1000, output_tokens: 500, cache_read_input_tokens: 2000 });
    });

    it('passes native tool use through', async () => {
      requestsSent++;
      const message = await anthropic.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'call get_weather {"city":"Paris"}' }],
      });
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } })]);
    });

    it('counts tokens with the provider', async () => {
      requestsSent++;
      delete fake.controlHeaders['x-fake-usage'];
      try {
        const counted = await anthropic.messages.countTokens({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello there world' }] });
        expect(counted.input_tokens).toBe(8); // the fake's rule: ceil(17 / 4) + 3
      } finally {
        fake.controlHeaders['x-fake-usage'] = FORCED_USAGE;
      }
      expect(fake.requests.at(-1)!.path).toBe('/v1/messages/count_tokens');
    });

    it('serves an OpenAI-format request from the Claude model, usage included', async () => {
      requestsSent++;
      const { data, response } = await openai.chat.completions
        .create({ model: 'claude-sonnet-4-5', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello there world' }] })
        .withResponse();
      expect(data.object).toBe('chat.completion');
      expect(data.choices[0]?.message.content).toBe('echo: Hello there world');
      expect(data.choices[0]?.finish_reason).toBe('stop');
      // prompt = input + cache read + cache writes = 1000 + 2000 + 400
      expect(data.usage).toMatchObject({ prompt_tokens: 3400, completion_tokens: 500, prompt_tokens_details: { cached_tokens: 2000 } });
      expect(response.headers.get('x-spendgate-cost')).toBe(COST);
      const sent = fake.requests.at(-1)!.body as { system?: unknown; max_tokens: number };
      expect(JSON.stringify(sent.system)).toContain('Be brief.');
      expect(sent.max_tokens).toBe(4096);
    });

    it('streams an OpenAI-format request from the Claude model, with and without the usage chunk', async () => {
      requestsSent += 2;
      const collect = async (includeUsage: boolean) => {
        const stream = await openai.chat.completions.create({
          model: 'claude-sonnet-4-5',
          messages: [{ role: 'user', content: 'Stream me please' }],
          stream: true,
          ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
        });
        let text = '';
        const usages = [];
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta?.content ?? '';
          if (chunk.usage) usages.push(chunk.usage);
        }
        return { text, usages };
      };
      expect(await collect(false)).toEqual({ text: 'echo: Stream me please', usages: [] });
      const withUsage = await collect(true);
      expect(withUsage.text).toBe('echo: Stream me please');
      expect(withUsage.usages).toEqual([expect.objectContaining({ prompt_tokens: 3400, completion_tokens: 500 })]);
    });

    it('translates tool calls for OpenAI callers', async () => {
      requestsSent++;
      const completion = await openai.chat.completions.create({
        model: 'claude-sonnet-4-5',
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_TOOL.input_schema } }],
        messages: [{ role: 'user', content: 'call get_weather {"city":"Paris"}' }],
      });
      const choice = completion.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      const call = choice.message.tool_calls?.[0];
      expect(call?.type === 'function' && call.function.name).toBe('get_weather');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    });

    it('bills a stream the provider cuts by estimate, and cuts it for the caller', async () => {
      requestsSent++;
      fake.controlHeaders['x-fake-stream-error-after'] = '2';
      try {
        const stream = await openai.chat.completions.create({
          model: 'claude-sonnet-4-5',
          messages: [{ role: 'user', content: 'Hello there world' }],
          stream: true,
        });
        await expect(
          (async () => {
            for await (const _chunk of stream) {
              // read until the connection breaks
            }
          })(),
        ).rejects.toThrow();
      } finally {
        delete fake.controlHeaders['x-fake-stream-error-after'];
      }
      const cut = (await events()).at(-1)!;
      // Reported input and cache numbers are kept; output is estimated from "echo: Hello"
      // (3 tokens): 3000 + 600 + 1125 + 600 + 3 × 15 = 5370 micro-USD.
      expect(cut).toMatchObject({ estimated: true, status_code: 502, output_tokens: 3n, cost_micros: 5370n });
    });

    it('records every request sent exactly once', async () => {
      const recorded = await events();
      expect(new Set(recorded.map((event) => event.request_id)).size).toBe(requestsSent);
      const full = recorded.filter((event) => event.endpoint !== 'messages.count_tokens' && !event.estimated);
      expect(full.every((event) => event.cost_micros === 12_825n)).toBe(true);
      expect(full.map((event) => [event.cache_write_5m_tokens, event.cache_write_1h_tokens])[0]).toEqual([300n, 100n]);
    });
  });
}
