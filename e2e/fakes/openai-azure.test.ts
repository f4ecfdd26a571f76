// Drives the fake OpenAI in Azure mode with the real `AzureOpenAI` client of the `openai` SDK.
// Token counts follow the rules in openai-provider.ts, worked out next to each assertion.
import OpenAI, { AzureOpenAI } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from './openai-provider.ts';

const API_KEY = 'sk-fake-upstream';
const API_VERSION = '2024-10-21';
// 14 + 17 = 31 characters → ceil(31 / 4) = 8, plus 3 × 2 messages → 14 prompt tokens.
const MESSAGES = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Hello there world' },
];
const REPLY = 'echo: Hello there world';

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    azure: { apiVersion: API_VERSION, deployments: { 'team-gpt': 'gpt-4o-mini', 'team-embedder': 'text-embedding-3-small' } },
  });
});

afterAll(async () => {
  await fake.close();
});

function azureClient(overrides: Partial<ConstructorParameters<typeof AzureOpenAI>[0]> = {}): AzureOpenAI {
  return new AzureOpenAI({ endpoint: fake.url, apiKey: API_KEY, apiVersion: API_VERSION, deployment: 'team-gpt', maxRetries: 0, ...overrides });
}

describe('fake Azure OpenAI', () => {
  it('answers a deployment’s chat completion with the underlying model and content filters', async () => {
    const before = fake.requests.length;

    const completion = await azureClient().chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES });

    expect(fake.requests[before]?.path).toBe(`/openai/deployments/team-gpt/chat/completions?api-version=${API_VERSION}`);
    expect(fake.requests[before]?.headers['api-key']).toBe(API_KEY);
    expect(completion.model).toBe('gpt-4o-mini-2024-07-18');
    expect(completion.choices[0]?.message.content).toBe(REPLY);
    expect(completion.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 4, total_tokens: 18 });
    expect(completion).toMatchObject({
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' } } }],
    });
  });

  it('starts a stream with Azure’s prompt-filter chunk of empty choices, then streams as OpenAI', async () => {
    const chunks: ChatCompletionChunk[] = [];
    const stream = await azureClient().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: MESSAGES,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks[0]).toMatchObject({ id: '', model: '', choices: [], prompt_filter_results: expect.any(Array) });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(REPLY);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 4 });
  });

  it('answers embeddings for an embedding deployment', async () => {
    const embeddings = await azureClient({ deployment: 'team-embedder' }).embeddings.create({
      model: 'text-embedding-3-small',
      input: 'first text',
      encoding_format: 'float',
    });

    // ceil(10 / 4) = 3.
    expect(embeddings.model).toBe('text-embedding-3-small');
    expect(embeddings.data[0]?.embedding).toHaveLength(1536);
    expect(embeddings.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
  });

  it('answers 404 "Resource not found" without api-version or with another one, as Azure does', async () => {
    const withoutVersion = await fetch(`${fake.url}/openai/deployments/team-gpt/chat/completions`, {
      method: 'POST',
      headers: { 'api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: MESSAGES }),
    });
    const otherVersion = await azureClient({ apiVersion: '2023-05-15' })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES })
      .catch((caught: unknown) => caught);

    expect(withoutVersion.status).toBe(404);
    expect(await withoutVersion.json()).toEqual({ error: { code: '404', message: 'Resource not found' } });
    expect(otherVersion).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('rejects a wrong api-key with 401 in Azure’s shape', async () => {
    const error = await azureClient({ apiKey: 'wrong' })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: '401' });
  });

  it('answers 404 DeploymentNotFound for a deployment that does not exist', async () => {
    const error = await azureClient({ deployment: 'nobody-deployed-this' })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'DeploymentNotFound' });
  });

  it('forces a 429 in Azure’s shape with retry-after', async () => {
    const error = await azureClient()
      .chat.completions.create({ model: 'gpt-4o-mini', messages: MESSAGES }, { headers: { 'x-fake-status': '429' } })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: '429' });
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('1');
  });

  it('accepts any deployment and api-version when none are configured, answering the body’s model', async () => {
    const openFake = await startFakeOpenAI({ azure: {} });
    try {
      const completion = await new AzureOpenAI({ endpoint: openFake.url, apiKey: API_KEY, apiVersion: '2025-01-01-preview', maxRetries: 0 })
        .chat.completions.create({ model: 'gpt-4o', messages: MESSAGES });

      expect(openFake.requests[0]?.path).toBe('/openai/deployments/gpt-4o/chat/completions?api-version=2025-01-01-preview');
      expect(completion.model).toBe('gpt-4o-2024-08-06');
    } finally {
      await openFake.close();
    }
  });
});
