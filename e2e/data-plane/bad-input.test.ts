/**
 * What the data plane answers to input it cannot take, over real HTTP and in every run
 * mode: each refusal is a 4xx in the caller's wire format naming what is wrong, nothing
 * reaches the provider, no usage is recorded, no header echoes the input, and the
 * connection stays usable for the next request.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listUsageEvents } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { issueByokKey, signUpTeam, type Tenant } from './tenant.ts';

const GOOD_BODY = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });

for (const mode of testModes) describe(`bad input on the data plane (${mode})`, () => {
  let spendgate: RunningSpendgate;
  let fake: FakeOpenAI;
  let tenant: Tenant;
  let key: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    spendgate = await startSpendgate(mode, 'data-plane-bad-input');
    tenant = await signUpTeam(spendgate.url, 'bad-input@example.com');
    key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
  });
  afterAll(async () => {
    await spendgate?.close();
    await fake?.close();
  });

  const post = (path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) =>
    fetch(`${spendgate.url}/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body,
    });

  it.each([
    ['malformed JSON', '/chat/completions', '{"model":', 400, 'body'],
    ['a missing field', '/chat/completions', JSON.stringify({ model: 'gpt-4o' }), 400, 'messages'],
    ['a field of the wrong type', '/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: 'hi' }), 400, 'messages'],
    ['an empty body', '/embeddings', '', 400, 'body'],
    ['more embeddings inputs than OpenAI takes', '/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: Array(2_049).fill('hi') }), 400, 'input'],
    ['an output limit no model has', '/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1e12 }), 400, 'max_tokens'],
    ['more answers than OpenAI gives', '/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], n: 129 }), 400, 'n'],
    ['a prototype-poisoning body', '/chat/completions', '{"model":"gpt-4o","messages":[{}],"__proto__":{"x":1}}', 400, 'body'],
  ])('refuses %s in OpenAI’s error shape, naming the field', async (_what, path, body, status, param) => {
    const response = await post(path, body);
    expect(response.status).toBe(status);
    const answer = await response.json();
    expect(answer.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(answer.error.message).toContain(param);
  });

  const ANTHROPIC = { 'anthropic-version': '2023-06-01' };
  const message = (fields: Record<string, unknown>) =>
    JSON.stringify({ model: 'gpt-4o', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], ...fields });

  it.each([
    ['tools that are not an array', { tools: {} }, 'tools: Invalid input: expected array, received object'],
    ['a system prompt that is a number', { system: 5 }, 'system: must be a string or an array of text blocks'],
    ['a null message', { messages: [null] }, 'messages.0: Invalid input: expected object, received null'],
    ['a message without content', { messages: [{ role: 'user' }] }, 'messages.0.content: must be a string or an array of content blocks'],
    ['a content block without its text', { messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages.0.content.0.text is required'],
    ['an image without a source', { messages: [{ role: 'user', content: [{ type: 'image' }] }] }, 'messages.0.content.0.source is required'],
    ['a tool choice that is a string', { tool_choice: 'auto' }, 'tool_choice: Invalid input: expected object, received string'],
  ])('refuses %s on /v1/messages in Anthropic’s error shape, naming the field', async (_what, fields, text) => {
    const response = await post('/messages', message(fields), ANTHROPIC);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: text } });
  });

  it.each([
    ['a CR/LF', 'gpt-4o\r\nx-injected: yes'],
    ['a NUL', 'gpt-4o\u0000'],
    ['a space', 'gpt 4o'],
    ['a non-ASCII letter', 'gpt-4ö'],
    ['1 MB', 'm'.repeat(1024 * 1024)],
  ])('refuses a model name with %s before anything is sent or metered, echoing none of it', async (_what, model) => {
    for (const [path, body, headers] of [
      ['/chat/completions', JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }), {}],
      ['/messages', message({ model }), ANTHROPIC],
      ['/embeddings', JSON.stringify({ model, input: 'Hi' }), {}],
    ] as const) {
      const response = await post(path, body, headers);
      expect(response.status, path).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('model');
      expect(response.headers.get('x-spendgate-model')).toBeNull();
      for (const [, value] of response.headers) expect(value.length).toBeLessThan(256);
    }
  });

  it.each([
    ['a content part of the wrong type', { messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }, 'messages.0.content.0.text'],
    ['an image part without its URL', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }, 'messages.0.content.0.image_url.url'],
    ['a tool call without its function', { messages: [{ role: 'assistant', tool_calls: [{ id: 'c1', type: 'function' }] }, { role: 'user', content: 'Hi' }] }, 'messages.0.tool_calls.0.function'],
    ['tools that are an object', { tools: { type: 'function' } }, 'tools'],
    ['a JSON schema format without its schema', { response_format: { type: 'json_schema' } }, 'response_format.json_schema'],
    ['a stop that is a number', { stop: 5 }, 'stop'],
  ])('refuses %s on /v1/chat/completions, naming the field', async (_what, fields, param) => {
    const response = await post('/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], ...fields }));
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('refuses JSON nested past 64 levels (100k deep) with 400 naming the body', async () => {
    const deep = `{"model":"gpt-4o","messages":[{"role":"user","content":"Hi","extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`;
    const response = await post('/chat/completions', deep);
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ param: 'body', message: 'body: JSON may nest at most 64 levels deep' });
  });

  it('refuses a body that is not JSON with 415', async () => {
    const response = await post('/chat/completions', 'model=gpt-4o', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(response.status).toBe(415);
    expect((await response.json()).error.message).toBe('Unsupported Media Type: application/x-www-form-urlencoded (send application/json)');
  });

  it('answers Anthropic callers in Anthropic’s error shape, naming the field', async () => {
    const response = await post('/messages', JSON.stringify({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: 'Hi' }] }), {
      'anthropic-version': '2023-06-01',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens is required' } });
  });

  it('refuses a body over 20 MiB with 413, whether announced by content-length or streamed', async () => {
    const huge = new Uint8Array(new ArrayBuffer(20 * 1024 * 1024 + 1)).fill(0x20);
    const announced = await post('/chat/completions', huge);
    expect(announced.status).toBe(413);
    expect((await announced.json()).error.message).toBe('Request body is too large');

    const chunked = await fetch(`${spendgate.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 21; i++) controller.enqueue(new Uint8Array(1024 * 1024).fill(0x20));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });

  it('answers 404 for a route the data plane does not have, and 401 before reading a body without a key', async () => {
    const unknown = await post('/chat/complete', GOOD_BODY);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.message).toBe('Route POST /v1/chat/complete not found');

    const wrongMethod = await fetch(`${spendgate.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` } });
    expect(wrongMethod.status).toBe(404);

    const anonymous = await fetch(`${spendgate.url}/v1/chat/completions`, { method: 'POST', body: '{"model":' });
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.type).toBe('authentication_error');
  });

  it('sent nothing to the provider and recorded no usage for any of it, and still serves a good request', async () => {
    expect(fake.requests).toHaveLength(0);
    const ok = await post('/chat/completions?ignored=query', GOOD_BODY);
    expect(ok.status).toBe(200);
    expect(fake.requests).toHaveLength(1);
    await usageWritten(spendgate);
    expect(await listUsageEvents(spendgate.app.runtime.stores.sql.db, tenant.teamId)).toHaveLength(1);
  });
  it('keeps a provider’s model name out of its headers unless it is a model id', async () => {
    // A team's own endpoint (BYOM or any base URL) answers whatever it likes.
    const odd = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          id: 'chatcmpl-odd',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o\u0000\r\nx-injected: yes',
          choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    try {
      const oddKey = await issueByokKey(spendgate.url, tenant, {
        provider: 'openai',
        apiKey: 'sk-odd',
        baseUrl: `http://127.0.0.1:${(odd.address() as AddressInfo).port}/v1`,
      });
      const response = await fetch(`${spendgate.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${oddKey}`, 'content-type': 'application/json' },
        body: GOOD_BODY,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-spendgate-model')).toBe('gpt-4o');
      expect(response.headers.get('x-injected')).toBeNull();
    } finally {
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });
});
