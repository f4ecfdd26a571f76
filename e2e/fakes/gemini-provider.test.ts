// Drives the fake Gemini over plain fetch (no Google SDK is installed) and checks the wire as
// Google's REST reference shows it. Expected token counts follow the rules documented in
// gemini-provider.ts and are worked out by hand next to each assertion.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGemini, startFakeGemini } from './gemini-provider.ts';

const API_KEY = 'fake-gemini-upstream-key';
// System 14 + user 17 = 31 characters → ceil(31 / 4) = 8, plus 3 × 1 content → 11 prompt tokens.
const REQUEST = {
  systemInstruction: { parts: [{ text: 'You are terse.' }] },
  contents: [{ role: 'user', parts: [{ text: 'Hello there world' }] }],
};
const REPLY = 'echo: Hello there world'; // 4 words → 4 candidates tokens.
const WEATHER_TOOLS = [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'OBJECT' } }] }];

let fake: FakeGemini;

beforeAll(async () => {
  fake = await startFakeGemini();
});

afterEach(() => {
  for (const header of Object.keys(fake.controlHeaders)) delete fake.controlHeaders[header];
});

afterAll(async () => {
  await fake.close();
});

interface GeminiChunk {
  candidates: { content: { parts: { text?: string; functionCall?: unknown }[]; role: string }; finishReason?: string }[];
  usageMetadata: Record<string, unknown>;
  modelVersion: string;
  responseId: string;
}

function callModel(
  method: string,
  body: unknown,
  { model = 'gemini-2.5-flash', query = '', headers = {} }: { model?: string; query?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return fetch(`${fake.url}/v1beta/models/${model}:${method}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': API_KEY, ...headers },
    body: JSON.stringify(body),
  });
}

/** Splits an SSE body on Google's CRLF blank lines into the JSON chunks. */
function sseChunks(wire: string): GeminiChunk[] {
  return wire
    .split('\r\n\r\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => JSON.parse(event.slice('data: '.length)));
}

const textOf = (chunks: GeminiChunk[]) => chunks.map((chunk) => chunk.candidates[0]?.content.parts[0]?.text ?? '').join('');

describe('fake Gemini generateContent', () => {
  it('answers with the echo, modelVersion and the documented usageMetadata', async () => {
    const response = await callModel('generateContent', REQUEST);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      candidates: [{ content: { parts: [{ text: REPLY }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: 11,
        candidatesTokenCount: 4,
        totalTokenCount: 15,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 11 }],
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: expect.any(String),
    });
  });

  it('accepts the key as ?key= and records each request with its headers', async () => {
    const before = fake.requests.length;
    const response = await fetch(`${fake.url}/v1beta/models/gemini-2.0-flash:generateContent?key=${API_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(REQUEST),
    });

    expect(response.status).toBe(200);
    expect(fake.requests[before]).toMatchObject({
      method: 'POST',
      path: `/v1beta/models/gemini-2.0-flash:generateContent?key=${API_KEY}`,
      headers: { 'content-type': 'application/json' },
      body: REQUEST,
    });
  });

  it('cuts the reply at maxOutputTokens with finishReason MAX_TOKENS, snake_case fields accepted', async () => {
    const response = await callModel('generateContent', {
      system_instruction: REQUEST.systemInstruction,
      contents: REQUEST.contents,
      generation_config: { max_output_tokens: 2 },
    });
    const body = (await response.json()) as GeminiChunk;

    expect(body.candidates[0]).toMatchObject({ content: { parts: [{ text: 'echo: Hello' }] }, finishReason: 'MAX_TOKENS' });
    expect(body.usageMetadata).toMatchObject({ promptTokenCount: 11, candidatesTokenCount: 2, totalTokenCount: 13 });
  });

  it('forces cached and thoughts tokens: the prompt count includes the cached part', async () => {
    // Prompt 11 + cached 100 = 111; total = 111 + 4 candidates + 40 thoughts = 155.
    const headers = { 'x-fake-usage': JSON.stringify({ cachedContentTokenCount: 100, thoughtsTokenCount: 40 }) };

    const body = (await (await callModel('generateContent', REQUEST, { headers })).json()) as GeminiChunk;

    expect(body.usageMetadata).toEqual({
      promptTokenCount: 111,
      candidatesTokenCount: 4,
      totalTokenCount: 155,
      cachedContentTokenCount: 100,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 111 }],
      cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 100 }],
      thoughtsTokenCount: 40,
    });
  });

  it('forces exact numbers from the fake’s controlHeaders, for requests that come through a gateway', async () => {
    fake.controlHeaders['x-fake-usage'] = JSON.stringify({ promptTokenCount: 1000, candidatesTokenCount: 500 });

    const body = (await (await callModel('generateContent', REQUEST)).json()) as GeminiChunk;

    expect(body.usageMetadata).toMatchObject({ promptTokenCount: 1000, candidatesTokenCount: 500, totalTokenCount: 1500 });
  });

  it('answers a functionCall part when the last user text says "call <tool>"', async () => {
    // Args {"city":"Paris"} are 16 characters → ceil(16 / 4) = 4 candidates tokens.
    const response = await callModel('generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'call get_weather {"city":"Paris"}' }] }],
      tools: WEATHER_TOOLS,
    });
    const body = (await response.json()) as GeminiChunk;

    expect(body.candidates[0]).toMatchObject({
      content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }], role: 'model' },
      finishReason: 'STOP',
    });
    expect(body.usageMetadata).toMatchObject({ candidatesTokenCount: 4 });
  });
});

describe('fake Gemini streamGenerateContent', () => {
  it('streams one SSE chunk per word with CRLF line ends and cumulative usageMetadata', async () => {
    const response = await callModel('streamGenerateContent', REQUEST, { query: '?alt=sse' });
    const wire = await response.text();
    const chunks = sseChunks(wire);

    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(wire.endsWith('}\r\n\r\n')).toBe(true);
    expect(textOf(chunks)).toBe(REPLY);
    expect(chunks.map((chunk) => chunk.usageMetadata.candidatesTokenCount)).toEqual([1, 2, 3, 4]);
    expect(chunks.map((chunk) => chunk.usageMetadata.totalTokenCount)).toEqual([12, 13, 14, 15]);
    expect(chunks.every((chunk) => chunk.usageMetadata.promptTokenCount === 11)).toBe(true);
    expect(chunks.map((chunk) => chunk.candidates[0]?.finishReason)).toEqual([undefined, undefined, undefined, 'STOP']);
    expect(new Set(chunks.map((chunk) => chunk.responseId)).size).toBe(1);
  });

  it('carries forced thoughts on every chunk and the forced totals on the last', async () => {
    const headers = { 'x-fake-usage': JSON.stringify({ thoughtsTokenCount: 40, candidatesTokenCount: 10 }) };

    const chunks = sseChunks(await (await callModel('streamGenerateContent', REQUEST, { query: '?alt=sse', headers })).text());

    expect(chunks.every((chunk) => chunk.usageMetadata.thoughtsTokenCount === 40)).toBe(true);
    // Last chunk: 11 prompt + 10 candidates + 40 thoughts.
    expect(chunks.at(-1)?.usageMetadata).toMatchObject({ candidatesTokenCount: 10, totalTokenCount: 61 });
  });

  it('answers a JSON array of the same chunks without alt=sse', async () => {
    const response = await callModel('streamGenerateContent', REQUEST);
    const chunks = (await response.json()) as GeminiChunk[];

    expect(response.headers.get('content-type')).toBe('application/json');
    expect(chunks).toHaveLength(4);
    expect(textOf(chunks)).toBe(REPLY);
  });

  it('streams a function call whole in one chunk', async () => {
    const response = await callModel(
      'streamGenerateContent',
      { contents: [{ role: 'user', parts: [{ text: 'call get_weather' }] }], tools: WEATHER_TOOLS },
      { query: '?alt=sse' },
    );
    const chunks = sseChunks(await response.text());

    // Prompt: "call get_weather" is 16 characters → 4 + 3 = 7. Args {} are 2 characters → 1 token.
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.candidates[0]?.content.parts).toEqual([{ functionCall: { name: 'get_weather', args: {} } }]);
    expect(chunks[0]?.usageMetadata).toMatchObject({ promptTokenCount: 7, candidatesTokenCount: 1, totalTokenCount: 8 });
  });

  it('breaks the connection after N chunks', async () => {
    const response = await callModel('streamGenerateContent', REQUEST, {
      query: '?alt=sse',
      headers: { 'x-fake-stream-error-after': '2' },
    });
    const decoder = new TextDecoder();
    let wire = '';
    const read = async () => {
      for await (const bytes of response.body ?? []) wire += decoder.decode(bytes, { stream: true });
    };

    await expect(read()).rejects.toThrow();
    expect(textOf(sseChunks(wire))).toBe('echo: Hello');
  });
});

describe('fake Gemini countTokens and models', () => {
  it('counts the prompt, given contents or a whole generateContentRequest', async () => {
    const direct = await (await callModel('countTokens', { contents: REQUEST.contents })).json();
    const wrapped = await (await callModel('countTokens', { generateContentRequest: { model: 'models/gemini-2.5-flash', ...REQUEST } })).json();

    // Contents only: ceil(17 / 4) = 5 + 3 = 8; with the system instruction: 11.
    expect(direct).toEqual({ totalTokens: 8, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 8 }] });
    expect(wrapped).toMatchObject({ totalTokens: 11 });
  });

  it('lists and gets models', async () => {
    const list = (await (await fetch(`${fake.url}/v1beta/models`, { headers: { 'x-goog-api-key': API_KEY } })).json()) as {
      models: { name: string }[];
    };
    const model = await (await fetch(`${fake.url}/v1beta/models/gemini-2.5-pro?key=${API_KEY}`)).json();

    expect(list.models.map((listed) => listed.name)).toContain('models/gemini-2.5-flash');
    expect(model).toMatchObject({ name: 'models/gemini-2.5-pro', supportedGenerationMethods: expect.arrayContaining(['generateContent']) });
  });
});

describe('fake Gemini errors', () => {
  it('answers a missing key with 403 PERMISSION_DENIED', async () => {
    const response = await callModel('generateContent', REQUEST, { headers: { 'x-goog-api-key': '' } });

    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
  });

  it('answers a wrong key with 400 INVALID_ARGUMENT and reason API_KEY_INVALID, as Google does', async () => {
    const response = await callModel('generateContent', REQUEST, { headers: { 'x-goog-api-key': 'wrong' } });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [{ reason: 'API_KEY_INVALID' }],
      },
    });
  });

  it('answers 400 INVALID_ARGUMENT for empty contents', async () => {
    const response = await callModel('generateContent', { contents: [] });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
  });

  it.each([
    [400, 'INVALID_ARGUMENT'],
    [403, 'PERMISSION_DENIED'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
  ])('forces a %i from x-fake-status', async (code, status) => {
    const response = await callModel('generateContent', REQUEST, { headers: { 'x-fake-status': String(code) } });

    expect(response.status).toBe(code);
    expect(await response.json()).toMatchObject({ error: { code, status, message: expect.any(String) } });
  });
});
