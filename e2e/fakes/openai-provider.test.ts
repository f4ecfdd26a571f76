// Drives the fake OpenAI with the real `openai` SDK: if the SDK accepts every answer, so
// will code written against OpenAI. Expected token counts follow the rules documented in
// openai-provider.ts and are worked out by hand next to each assertion.
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from './openai-provider.ts';

const API_KEY = 'sk-fake-upstream';
// 14 + 17 = 31 characters → ceil(31 / 4) = 8, plus 3 × 2 messages → 14 prompt tokens.
const MESSAGES = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Hello there world' },
];
const REPLY = 'echo: Hello there world';

let fake: FakeOpenAI;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  client = new OpenAI({ baseURL: fake.url, apiKey: API_KEY, maxRetries: 0 });
});

afterAll(async () => {
  await fake.close();
});

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const contentOf = (chunks: ChatCompletionChunk[]) => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');

describe('fake OpenAI chat completions', () => {
  it('answers a JSON completion with the dated model, an echo and the documented usage', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES });

    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('gpt-4o-mini-2024-07-18');
    expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: REPLY });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toEqual({
      prompt_tokens: 14,
      completion_tokens: 4,
      total_tokens: 18,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
    expect(completion._request_id).toMatch(/^req_/);
  });

  it('records each request with its headers and body', async () => {
    const before = fake.requests.length;
    await client.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES });

    const recorded = fake.requests[before];
    expect(recorded?.method).toBe('POST');
    expect(recorded?.path).toBe('/v1/chat/completions');
    expect(recorded?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(recorded?.body).toMatchObject({ model: 'gpt-4o', messages: MESSAGES });
  });

  it('streams the reply word by word without usage when include_usage is not set', async () => {
    const chunks = await collect(
      await client.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES, stream: true }),
    );

    expect(contentOf(chunks)).toBe(REPLY);
    // Role chunk, 4 word chunks, finish chunk.
    expect(chunks).toHaveLength(6);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-4o-2024-08-06')).toBe(true);
    expect(chunks.every((chunk) => !('usage' in chunk))).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  });

  it('sends one final usage chunk with empty choices only when include_usage is set', async () => {
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: MESSAGES,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );

    const usageChunk = chunks.at(-1);
    expect(usageChunk?.choices).toEqual([]);
    expect(usageChunk?.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 4, total_tokens: 18 });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(contentOf(chunks)).toBe(REPLY);
  });

  it('cuts the reply at max_tokens and reports finish_reason "length"', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES, max_tokens: 2 });

    expect(completion.choices[0]?.message.content).toBe('echo: Hello');
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(2);
  });

  it('forces exact usage numbers from x-fake-usage, streamed or not', async () => {
    const forcedUsage = { prompt_tokens: 1000, completion_tokens: 500, cached_tokens: 200, reasoning_tokens: 40 };
    const headers = { 'x-fake-usage': JSON.stringify(forcedUsage) };
    const expectedUsage = {
      prompt_tokens: 1000,
      completion_tokens: 500,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 200 },
      completion_tokens_details: { reasoning_tokens: 40 },
    };

    const completion = await client.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES }, { headers });
    const chunks = await collect(
      await client.chat.completions.create(
        { model: 'gpt-4o', messages: MESSAGES, stream: true, stream_options: { include_usage: true } },
        { headers },
      ),
    );

    expect(completion.usage).toMatchObject(expectedUsage);
    expect(chunks.at(-1)?.usage).toMatchObject(expectedUsage);
  });

  it('rejects a bad key with 401 in OpenAI’s error shape', async () => {
    const wrongKeyClient = new OpenAI({ baseURL: fake.url, apiKey: 'sk-wrong-key-1234', maxRetries: 0 });

    const error = await wrongKeyClient.models.list().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'invalid_request_error', code: 'invalid_api_key', param: null });
    expect((error as Error).message).not.toContain('sk-wrong-key-1234');
  });

  it.each([
    [400, OpenAI.BadRequestError, 'invalid_request_error'],
    [429, OpenAI.RateLimitError, 'requests'],
    [500, OpenAI.InternalServerError, 'server_error'],
    [503, OpenAI.InternalServerError, 'server_error'],
  ])('forces a %i from x-fake-status', async (status, errorClass, type) => {
    const error = await client.chat.completions
      .create({ model: 'gpt-4o', messages: MESSAGES }, { headers: { 'x-fake-status': String(status) } })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(errorClass);
    expect(error).toMatchObject({ status, type });
  });

  it('forces a status on the next N requests only with x-fake-status-times on the fake', async () => {
    Object.assign(fake.controlHeaders, { 'x-fake-status': '429', 'x-fake-status-times': '2' });
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      outcomes.push(
        await client.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES }).then(
          () => 200,
          (error: { status: number }) => error.status,
        ),
      );
    }
    expect(outcomes).toEqual([429, 429, 200]);
    expect(fake.controlHeaders).toEqual({});
  });

  it('answers 400 with the offending param for invalid input', async () => {
    const error = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [] })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, param: 'messages', code: 'empty_array' });
  });

  it('ends the stream abruptly after N content chunks and the SDK raises', async () => {
    const received: ChatCompletionChunk[] = [];
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o', messages: MESSAGES, stream: true, stream_options: { include_usage: true } },
      { headers: { 'x-fake-stream-error-after': '2' } },
    );

    const consume = async () => {
      for await (const chunk of stream) received.push(chunk);
    };

    await expect(consume()).rejects.toThrow();
    expect(contentOf(received)).toBe('echo: Hello');
    expect(received.some((chunk) => chunk.usage)).toBe(false);
  });
});

describe('fake OpenAI embeddings and models', () => {
  it('answers the base64 embeddings the SDK asks for by default, equal to the float ones', async () => {
    const before = fake.requests.length;
    const input = ['first text', 'second'];

    const decoded = await client.embeddings.create({ model: 'text-embedding-3-small', input });
    const floats = await client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'float' });

    expect(fake.requests[before]?.body).toMatchObject({ encoding_format: 'base64' });
    expect(decoded.data).toHaveLength(2);
    expect(decoded.data[0]?.embedding).toHaveLength(1536);
    expect(Array.from(decoded.data[1]?.embedding ?? [])).toEqual(floats.data[1]?.embedding);
    expect(decoded.data[0]?.embedding).not.toEqual(decoded.data[1]?.embedding);
    // ceil(10 / 4) + ceil(6 / 4) = 3 + 2.
    expect(floats.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
  });

  it('lists models', async () => {
    const models = await client.models.list();

    expect(models.data.map((model) => model.id)).toContain('gpt-4o-mini');
  });
});
