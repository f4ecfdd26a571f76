// Drives the fake Anthropic with the real `@anthropic-ai/sdk`: if the SDK accepts every answer,
// so will code written against Anthropic. Expected token counts follow the rules documented in
// anthropic-provider.ts and are worked out by hand next to each assertion.
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from './anthropic-provider.ts';

const API_KEY = 'sk-ant-fake-upstream';
// System 14 + user 17 = 31 characters → ceil(31 / 4) = 8, plus 3 × 1 message → 11 input tokens.
const SYSTEM = 'You are terse.';
const MESSAGES = [{ role: 'user' as const, content: 'Hello there world' }];
const REPLY = 'echo: Hello there world'; // 4 words → 4 output tokens.
const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
};

let fake: FakeAnthropic;
let client: Anthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  client = new Anthropic({ baseURL: fake.url, apiKey: API_KEY, maxRetries: 0 });
});

afterEach(() => {
  for (const header of Object.keys(fake.controlHeaders)) delete fake.controlHeaders[header];
});

afterAll(async () => {
  await fake.close();
});

async function collect(stream: AsyncIterable<RawMessageStreamEvent>): Promise<RawMessageStreamEvent[]> {
  const events: RawMessageStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Posts to the fake without the SDK, to see the raw wire. */
function postRaw(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY, 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
}

describe('fake Anthropic messages', () => {
  it('answers a message with the dated model, an echo and the documented usage', async () => {
    const message = await client.messages.create({ model: 'claude-opus-4-5', max_tokens: 64, system: SYSTEM, messages: MESSAGES });

    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-5-20251101',
      content: [{ type: 'text', text: REPLY }],
      stop_reason: 'end_turn',
      stop_sequence: null,
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message.usage).toEqual({
      input_tokens: 11,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: 4,
      service_tier: 'standard',
      inference_geo: 'not_available',
    });
    expect(message._request_id).toMatch(/^req_/);
  });

  it('records each request; the SDK authenticates with a Bearer key and sends anthropic-version', async () => {
    const before = fake.requests.length;
    await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: MESSAGES });

    const recorded = fake.requests[before];
    expect(recorded?.method).toBe('POST');
    expect(recorded?.path).toBe('/v1/messages');
    expect(recorded?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(recorded?.headers['anthropic-version']).toEqual(expect.any(String));
    expect(recorded?.body).toMatchObject({ model: 'claude-haiku-4-5', messages: MESSAGES });
  });

  it('accepts the x-api-key header too', async () => {
    const response = await postRaw('/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 64, messages: MESSAGES });

    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    expect(await response.json()).toMatchObject({ content: [{ type: 'text', text: REPLY }] });
  });

  it('streams events in Anthropic’s order with usage in message_start and message_delta', async () => {
    const response = await postRaw('/v1/messages', { model: 'claude-haiku-4-5', max_tokens: 64, system: SYSTEM, messages: MESSAGES, stream: true });
    const wire = await response.text();
    const eventNames = [...wire.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    const messageStart = JSON.parse(/^data: (.*)$/m.exec(wire)?.[1] ?? '{}');

    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(eventNames).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      ...Array(4).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(messageStart.message.content).toEqual([]);
    expect(messageStart.message.usage).toMatchObject({ input_tokens: 11, output_tokens: 1 });
  });

  it('streams the reply word by word and finalMessage() carries the final usage', async () => {
    const stream = client.messages.stream({ model: 'claude-haiku-4-5', max_tokens: 64, system: SYSTEM, messages: MESSAGES });
    const texts: string[] = [];
    stream.on('text', (text) => texts.push(text));

    const message = await stream.finalMessage();

    expect(texts).toEqual(['echo:', ' Hello', ' there', ' world']);
    expect(message.content).toEqual([{ type: 'text', text: REPLY }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 11, output_tokens: 4 });
  });

  it('cuts the reply at max_tokens with stop_reason "max_tokens"', async () => {
    const message = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 2, messages: MESSAGES });

    expect(message.content).toEqual([{ type: 'text', text: 'echo: Hello' }]);
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.usage.output_tokens).toBe(2);
  });

  it('forces cache numbers: input_tokens excludes them, the 5m/1h split adds up', async () => {
    // Prompt 11 = input 4 + cache read 5 + cache creation 2 (all 1h).
    const headers = { 'x-fake-usage': JSON.stringify({ cache_read_input_tokens: 5, cache_creation: { ephemeral_1h_input_tokens: 2 } }) };
    const expectedUsage = {
      input_tokens: 4,
      cache_read_input_tokens: 5,
      cache_creation_input_tokens: 2,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 2 },
      output_tokens: 4,
    };
    const params = { model: 'claude-haiku-4-5', max_tokens: 64, system: SYSTEM, messages: MESSAGES };

    const message = await client.messages.create(params, { headers });
    const streamed = await client.messages.stream(params, { headers }).finalMessage();

    expect(message.usage).toMatchObject(expectedUsage);
    expect(streamed.usage).toMatchObject(expectedUsage);
  });

  it('forces exact numbers from the fake’s controlHeaders, for requests that come through a gateway', async () => {
    fake.controlHeaders['x-fake-usage'] = JSON.stringify({ input_tokens: 1000, output_tokens: 500, cache_creation_input_tokens: 300 });

    const message = await client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: MESSAGES });

    expect(message.usage).toMatchObject({
      input_tokens: 1000,
      output_tokens: 500,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 0 },
    });
  });

  it('forces thinking tokens: counted in output_tokens and broken out in output_tokens_details', async () => {
    // Reply 4 words + 40 thinking = 44 output tokens.
    const headers = { 'x-fake-usage': JSON.stringify({ output_tokens_details: { thinking_tokens: 40 } }) };
    const params = { model: 'claude-opus-4-5', max_tokens: 64, messages: MESSAGES };

    const message = await client.messages.create(params, { headers });
    const streamed = await client.messages.stream(params, { headers }).finalMessage();

    expect(message.usage).toMatchObject({ output_tokens: 44, output_tokens_details: { thinking_tokens: 40 } });
    expect(streamed.usage).toMatchObject({ output_tokens: 44, output_tokens_details: { thinking_tokens: 40 } });
  });
});

describe('fake Anthropic tool use', () => {
  // JSON input {"city":"Paris"} is 16 characters → ceil(16 / 4) = 4 output tokens, 4 pieces.
  const toolParams = {
    model: 'claude-opus-4-5',
    max_tokens: 64,
    tools: [WEATHER_TOOL],
    messages: [{ role: 'user' as const, content: 'call get_weather {"city":"Paris"}' }],
  };

  it('answers a tool_use block when the last user message says "call <tool>"', async () => {
    const message = await client.messages.create(toolParams);

    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'Paris' } },
    ]);
    expect(message.usage.output_tokens).toBe(4);
  });

  it('streams the tool input as input_json_delta pieces the SDK reassembles', async () => {
    const events = await collect(await client.messages.create({ ...toolParams, stream: true }));
    const message = await client.messages.stream(toolParams).finalMessage();

    const pieces = events.flatMap((event) =>
      event.type === 'content_block_delta' && event.delta.type === 'input_json_delta' ? [event.delta.partial_json] : [],
    );
    expect(pieces).toEqual(['{"ci', 'ty":', '"Par', 'is"}']);
    expect(message.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.output_tokens).toBe(4);
  });

  it('echoes when the named tool is not offered', async () => {
    const message = await client.messages.create({ ...toolParams, tools: [] });

    expect(message.content).toEqual([{ type: 'text', text: 'echo: call get_weather {"city":"Paris"}' }]);
  });
});

describe('fake Anthropic count_tokens and models', () => {
  it('counts the prompt as the documented rule', async () => {
    const count = await client.messages.countTokens({ model: 'claude-opus-4-5', system: SYSTEM, messages: MESSAGES });

    expect(count).toEqual({ input_tokens: 11 });
  });

  it('lists and retrieves models', async () => {
    const models = await client.models.list();
    const model = await client.models.retrieve('claude-opus-4-5-20251101');

    expect(models.data.map((listed) => listed.id)).toContain('claude-haiku-4-5-20251001');
    expect(model).toMatchObject({ type: 'model', display_name: 'Claude Opus 4.5' });
  });
});

describe('fake Anthropic errors', () => {
  it('rejects a wrong key with 401 authentication_error and a request id', async () => {
    const wrongKeyClient = new Anthropic({ baseURL: fake.url, apiKey: 'sk-ant-wrong', maxRetries: 0 });

    const error = await wrongKeyClient.messages
      .create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: MESSAGES })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'authentication_error', requestID: expect.stringMatching(/^req_/) });
    expect((error as APIError).error).toMatchObject({ type: 'error', request_id: expect.stringMatching(/^req_/) });
  });

  it('requires the anthropic-version header', async () => {
    const noVersion = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 64, messages: MESSAGES }),
    });

    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
    });
  });

  it('answers 400 invalid_request_error when max_tokens is missing', async () => {
    const response = await postRaw('/v1/messages', { model: 'claude-haiku-4-5', messages: MESSAGES });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
  });

  it.each([
    [400, Anthropic.BadRequestError, 'invalid_request_error'],
    [401, Anthropic.AuthenticationError, 'authentication_error'],
    [429, Anthropic.RateLimitError, 'rate_limit_error'],
    [500, Anthropic.InternalServerError, 'api_error'],
    [529, Anthropic.OverloadedError, 'overloaded_error'],
  ])('forces a %i from x-fake-status', async (status, errorClass, type) => {
    const error = await client.messages
      .create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: MESSAGES }, { headers: { 'x-fake-status': String(status) } })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ status, type });
  });

  it('ends the stream abruptly after N deltas and the SDK raises', async () => {
    const received: RawMessageStreamEvent[] = [];
    const stream = await client.messages.create(
      { model: 'claude-haiku-4-5', max_tokens: 64, messages: MESSAGES, stream: true },
      { headers: { 'x-fake-stream-error-after': '2' } },
    );

    const consume = async () => {
      for await (const event of stream) received.push(event);
    };

    await expect(consume()).rejects.toThrow();
    expect(received.map((event) => event.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta']);
  });

  it('sends an error event mid-stream when asked, which the SDK raises as an APIError', async () => {
    const error = await client.messages
      .stream(
        { model: 'claude-haiku-4-5', max_tokens: 64, messages: MESSAGES },
        { headers: { 'x-fake-stream-error-after': '1', 'x-fake-stream-error-type': 'overloaded_error' } },
      )
      .finalMessage()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
  });
});
