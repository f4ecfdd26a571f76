// Drives the fake OpenAI's Responses API with the real `openai` SDK, JSON and streamed.
// Expected token counts follow the rules in openai-provider.ts, worked out next to each assertion.
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from './openai-provider.ts';

// Instructions 14 + input 17 = 31 characters → ceil(31 / 4) = 8, plus 3 × 1 item → 11 input tokens.
const PARAMS = { model: 'gpt-4o-mini', instructions: 'You are terse.', input: 'Hello there world' };
const REPLY = 'echo: Hello there world'; // 4 words → 4 output tokens.
const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};

let fake: FakeOpenAI;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  client = new OpenAI({ baseURL: fake.url, apiKey: 'sk-fake-upstream', maxRetries: 0 });
});

afterAll(async () => {
  await fake.close();
});

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('fake OpenAI Responses API', () => {
  it('answers a response with the dated model, an echo and the documented usage', async () => {
    const response = await client.responses.create(PARAMS);

    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-4o-mini-2024-07-18', error: null });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe(REPLY);
    expect(response.output).toMatchObject([
      { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: REPLY, annotations: [] }] },
    ]);
    expect(response.usage).toEqual({
      input_tokens: 11,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 4,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    });
  });

  it('counts every input item: string content and input_text parts, 3 tokens each', async () => {
    // "Be terse." 9 + "Hi there" 8 = 17 characters → 5, plus 3 × 2 items → 11.
    const response = await client.responses.create({
      model: 'gpt-4o',
      input: [
        { role: 'developer', content: 'Be terse.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Hi there' }] },
      ],
    });

    expect(response.output_text).toBe('echo: Hi there');
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 3, total_tokens: 14 });
  });

  it('streams typed events in order with sequence numbers, usage only in response.completed', async () => {
    const events = await collect(await client.responses.create({ ...PARAMS, stream: true }));

    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(4).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const deltas = events.flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []));
    expect(deltas.join('')).toBe(REPLY);
    const created = events[0];
    const completed = events.at(-1);
    expect(created?.type === 'response.created' && created.response.usage).toBeNull();
    expect(completed?.type === 'response.completed' && completed.response.usage).toMatchObject({ input_tokens: 11, output_tokens: 4, total_tokens: 15 });
  });

  it('lets the SDK assemble a streamed response with finalResponse()', async () => {
    const response = await client.responses.stream(PARAMS).finalResponse();

    // The SDK sets output_text on created responses only, not on streamed ones.
    expect(response.output).toMatchObject([{ type: 'message', content: [{ type: 'output_text', text: REPLY }] }]);
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 4 });
  });

  it('forces usage numbers, nested in the Responses usage shape', async () => {
    const forced = { input_tokens: 1000, output_tokens: 500, input_tokens_details: { cached_tokens: 200 }, output_tokens_details: { reasoning_tokens: 40 } };
    const headers = { 'x-fake-usage': JSON.stringify(forced) };

    const response = await client.responses.create(PARAMS, { headers });
    const streamed = await client.responses.stream(PARAMS, { headers }).finalResponse();

    expect(response.usage).toEqual({ ...forced, total_tokens: 1500 });
    expect(streamed.usage).toEqual({ ...forced, total_tokens: 1500 });
  });

  it('cuts the reply at max_output_tokens: status incomplete, reason max_output_tokens', async () => {
    const input = Array.from({ length: 20 }, (_, index) => `w${index}`).join(' '); // Reply: 21 words.

    const response = await client.responses.create({ model: 'gpt-4o', input, max_output_tokens: 16 });
    const events = await collect(await client.responses.create({ model: 'gpt-4o', input, max_output_tokens: 16, stream: true }));

    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.usage?.output_tokens).toBe(16);
    expect(events.at(-1)?.type).toBe('response.incomplete');
  });

  it('refuses max_output_tokens below 16 as the API does', async () => {
    const error = await client.responses.create({ ...PARAMS, max_output_tokens: 2 }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'max_output_tokens', code: 'integer_below_min_value' });
  });

  it('answers a function_call item for "call <tool>", streamed as argument deltas', async () => {
    // Arguments {"city":"Paris"} are 16 characters → 4 output tokens, 4 deltas.
    const params = { model: 'gpt-4o', input: 'call get_weather {"city":"Paris"}', tools: [WEATHER_TOOL] };

    const response = await client.responses.create(params);
    const events = await collect(await client.responses.create({ ...params, stream: true }));
    const assembled = await client.responses.stream(params).finalResponse();

    expect(response.output).toMatchObject([
      { type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}', call_id: expect.stringMatching(/^call_/), status: 'completed' },
    ]);
    expect(response.usage?.output_tokens).toBe(4);
    expect(events.filter((event) => event.type === 'response.function_call_arguments.delta')).toHaveLength(4);
    expect(assembled.output[0]).toMatchObject({ type: 'function_call', arguments: '{"city":"Paris"}' });
  });

  it('ends the stream abruptly after N deltas and the SDK raises', async () => {
    const received: ResponseStreamEvent[] = [];
    const stream = await client.responses.create({ ...PARAMS, stream: true }, { headers: { 'x-fake-stream-error-after': '2' } });

    const consume = async () => {
      for await (const event of stream) received.push(event);
    };

    await expect(consume()).rejects.toThrow();
    expect(received.filter((event) => event.type === 'response.output_text.delta')).toHaveLength(2);
    expect(received.some((event) => event.type === 'response.completed')).toBe(false);
  });
});
