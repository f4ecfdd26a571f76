// Recorded answers and streams of each wire format (shapes from the providers' API
// references) → the usage, model and text the data plane reads from them.
import { describe, expect, it } from 'vitest';
import { anthropicToOpenAI } from '../translate/anthropic-to-openai.ts';
import type { StreamEvent } from '../translate/types.ts';
import { anthropicFormat } from './anthropic.ts';
import { geminiFormat } from './gemini.ts';
import { isUsageOnlyChunk, openAIFormat } from './openai.ts';
import { stringField } from './raw-event.ts';
import type { Operation, WireFormat } from './types.ts';

function observe(format: WireFormat, operation: Operation, events: StreamEvent[]) {
  const observer = format.observeStream(operation);
  for (const event of events) observer.observe(event);
  return { usage: observer.usage(), model: observer.model(), text: observer.generatedText(), completed: observer.completed() };
}

/** The same events fed unparsed, as the data plane does when it passes a stream through. */
function observeRaw(format: WireFormat, operation: Operation, events: StreamEvent[]) {
  const observer = format.observeStream(operation);
  const parsed = events.map((event) => {
    const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
    return observer.observeRaw(event.event === undefined ? { data } : { event: event.event, data });
  });
  const seen = { usage: observer.usage(), model: observer.model(), text: observer.generatedText(), completed: observer.completed() };
  return { seen, parsedCount: parsed.filter(Boolean).length };
}

describe('OpenAI format', () => {
  const answer = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'o3-mini-2025-01-31',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: 1200,
      completion_tokens: 800,
      total_tokens: 2000,
      prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 640, audio_tokens: 0 },
    },
  };

  it('reads chat usage: cached tokens out of the prompt, reasoning inside the output', () => {
    expect(openAIFormat.usageFromAnswer('chat', answer)).toEqual({
      inputTokens: 176, // 1200 − 1024 cached
      cachedReadTokens: 1024,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 800,
      reasoningTokens: 640,
    });
    expect(openAIFormat.modelFromAnswer(answer)).toBe('o3-mini-2025-01-31');
  });

  it('reads the usage chunk of a chat stream and its text', () => {
    const chunk = (delta: object, usage: object | null = null) => ({
      object: 'chat.completion.chunk',
      model: 'gpt-4o-2024-08-06',
      choices: [{ index: 0, delta, finish_reason: null }],
      usage,
    });
    const usageChunk = { object: 'chat.completion.chunk', model: 'gpt-4o-2024-08-06', choices: [], usage: answer.usage };
    const seen = observe(openAIFormat, 'chat', [
      { data: chunk({ role: 'assistant', content: '' }) },
      { data: chunk({ content: 'Hel' }) },
      { data: chunk({ content: 'lo' }) },
      { data: usageChunk },
      { data: '[DONE]' },
    ]);
    expect(seen).toMatchObject({ model: 'gpt-4o-2024-08-06', text: 'Hello', completed: true });
    expect(seen.usage?.cachedReadTokens).toBe(1024);
    expect(isUsageOnlyChunk(usageChunk)).toBe(true);
    expect(isUsageOnlyChunk(chunk({ content: 'x' }, answer.usage))).toBe(false);
  });

  it('keeps from a chat stream the usage chunk its caller did not ask for', () => {
    const usageChunk = { object: 'chat.completion.chunk', choices: [], usage: answer.usage };
    const textChunk = { object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }], usage: null };
    const notAskedFor = openAIFormat.eventsNotAskedFor?.('chat', { model: 'x', stream: true });
    expect(notAskedFor?.(usageChunk)).toBe(true);
    expect(notAskedFor?.(textChunk)).toBe(false);
    expect(openAIFormat.eventsNotAskedFor?.('chat', { model: 'x', stream: true, stream_options: { include_usage: true } })).toBeUndefined();
    expect(openAIFormat.eventsNotAskedFor?.('responses', { model: 'x', stream: true })).toBeUndefined();
  });

  it('reads Responses API usage from the answer and from response.completed', () => {
    const usage = {
      input_tokens: 300,
      input_tokens_details: { cached_tokens: 100 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 20 },
      total_tokens: 350,
    };
    const expected = { inputTokens: 200, cachedReadTokens: 100, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens: 50, reasoningTokens: 20 };
    expect(openAIFormat.usageFromAnswer('responses', { object: 'response', model: 'gpt-4.1', usage })).toEqual(expected);
    const seen = observe(openAIFormat, 'responses', [
      { event: 'response.created', data: { type: 'response.created', response: { model: 'gpt-4.1', usage: null } } },
      { event: 'response.output_text.delta', data: { type: 'response.output_text.delta', delta: 'Hi' } },
      { event: 'response.completed', data: { type: 'response.completed', response: { model: 'gpt-4.1', usage } } },
    ]);
    expect(seen).toEqual({ usage: expected, model: 'gpt-4.1', text: 'Hi', completed: true });
  });

  it('reads embeddings usage as input tokens', () => {
    const usage = openAIFormat.usageFromAnswer('embeddings', { object: 'list', usage: { prompt_tokens: 8, total_tokens: 8 } });
    expect(usage).toMatchObject({ inputTokens: 8, outputTokens: 0 });
  });
});

describe('Anthropic format', () => {
  it('keeps cache reads and the 5m / 1h cache writes apart from input', () => {
    const answer = {
      type: 'message',
      model: 'claude-sonnet-4-5-20250929',
      usage: {
        input_tokens: 50,
        cache_read_input_tokens: 2000,
        cache_creation_input_tokens: 300,
        cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
        output_tokens: 400,
      },
    };
    expect(anthropicFormat.usageFromAnswer('chat', answer)).toEqual({
      inputTokens: 50,
      cachedReadTokens: 2000,
      cacheWrite5mTokens: 100,
      cacheWrite1hTokens: 200,
      outputTokens: 400,
      reasoningTokens: 0,
    });
    const unsplit = { usage: { input_tokens: 5, cache_creation_input_tokens: 70, output_tokens: 1 } };
    expect(anthropicFormat.usageFromAnswer('chat', unsplit)).toMatchObject({ cacheWrite5mTokens: 70, cacheWrite1hTokens: 0 });
  });

  it('follows a stream: input in message_start, cumulative output in message_delta', () => {
    const seen = observe(anthropicFormat, 'chat', [
      {
        event: 'message_start',
        data: { type: 'message_start', message: { model: 'claude-haiku-4-5', usage: { input_tokens: 25, cache_read_input_tokens: 10, output_tokens: 1 } } },
      },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      { event: 'ping', data: { type: 'ping' } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 15 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
    expect(seen).toEqual({
      usage: { inputTokens: 25, cachedReadTokens: 10, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens: 15, reasoningTokens: 0 },
      model: 'claude-haiku-4-5',
      text: 'Hello',
      completed: true,
    });
  });

  it('is not completed when the stream stops before message_stop', () => {
    const seen = observe(anthropicFormat, 'chat', [
      { event: 'message_start', data: { type: 'message_start', message: { usage: { input_tokens: 25, output_tokens: 1 } } } },
    ]);
    expect(seen.completed).toBe(false);
  });
});

describe('Gemini format', () => {
  it('counts thinking tokens as output and cached content apart from the prompt', () => {
    const answer = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 1000, cachedContentTokenCount: 600, candidatesTokenCount: 50, thoughtsTokenCount: 150, totalTokenCount: 1200 },
      modelVersion: 'gemini-2.5-flash',
    };
    expect(geminiFormat.usageFromAnswer('chat', answer)).toEqual({
      inputTokens: 400,
      cachedReadTokens: 600,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 200, // 50 candidates + 150 thoughts
      reasoningTokens: 150,
    });
    expect(geminiFormat.modelFromAnswer(answer)).toBe('gemini-2.5-flash');
  });

  it('takes the last usage of a stream and completes on a finish reason', () => {
    const part = (text: string, finishReason?: string, candidatesTokenCount = 1) => ({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, ...(finishReason ? { finishReason } : {}) }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount, totalTokenCount: 12 + candidatesTokenCount },
      modelVersion: 'gemini-2.5-flash',
    });
    const seen = observe(geminiFormat, 'chat', [{ data: part('Hel') }, { data: part('lo', 'STOP', 3) }]);
    expect(seen).toMatchObject({ text: 'Hello', completed: true, usage: { inputTokens: 12, outputTokens: 3 } });
  });
});

describe('unparsed stream events', () => {
  const chatChunk = (delta: object, usage: object | null = null) => ({
    object: 'chat.completion.chunk',
    model: 'gpt-4o-2024-08-06',
    choices: [{ index: 0, delta, finish_reason: null }],
    usage,
  });
  const usage = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 };

  it('parse only the chat chunks that can carry usage or the end; text is read when asked for', () => {
    const events: StreamEvent[] = [
      { data: chatChunk({ role: 'assistant', content: '' }) },
      { data: chatChunk({ content: 'Say "hi"\n' }) },
      { data: chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"content":"not text"}' } }] }) },
      { data: chatChunk({ content: 'é ✓' }) },
      { data: { object: 'chat.completion.chunk', model: 'gpt-4o-2024-08-06', choices: [], usage } },
      { data: '[DONE]' },
    ];
    const { seen, parsedCount } = observeRaw(openAIFormat, 'chat', events);
    expect(seen).toEqual(observe(openAIFormat, 'chat', events));
    expect(seen).toMatchObject({ text: 'Say "hi"\né ✓', completed: true, usage: { inputTokens: 12, outputTokens: 3 } });
    expect(parsedCount).toBe(2); // the usage chunk, [DONE]
  });

  it('read the model of a chat stream cut short from its first chunk, and its text in order', () => {
    const observer = openAIFormat.observeStream('chat');
    observer.observeRaw({ data: JSON.stringify({ ...chatChunk({ content: 'a' }), model: 'gpt-4o-first' }) });
    observer.observeRaw({ data: JSON.stringify({ ...chatChunk({ content: 'b' }), model: 'gpt-4o-later' }) });
    // A chunk with text and a usage object is parsed at once; its text stays in its place.
    expect(observer.observeRaw({ data: JSON.stringify(chatChunk({ content: 'c' }, { prompt_tokens: 2, completion_tokens: 1 })) })).toBeDefined();
    observer.observeRaw({ data: JSON.stringify(chatChunk({ content: 'd' })) });
    expect(observer.model()).toBe('gpt-4o-2024-08-06'); // named by the parsed chunk
    expect(observer.generatedText()).toBe('abcd');

    const cut = openAIFormat.observeStream('chat');
    cut.observeRaw({ data: JSON.stringify({ ...chatChunk({ role: 'assistant', content: '' }), model: 'gpt-4o-first' }) });
    cut.observeRaw({ data: JSON.stringify(chatChunk({ content: 'Hel' })) });
    expect(cut.model()).toBe('gpt-4o-first');
    expect(cut.generatedText()).toBe('Hel');
    expect(cut.usage()).toBeUndefined();
    expect(cut.completed()).toBe(false);
  });

  it('read the kept events of a long stream as it goes, keeping every piece of text in order', () => {
    const observer = openAIFormat.observeStream('chat');
    const words = Array.from({ length: 300 }, (_, index) => `w${index} `);
    for (const word of words) observer.observeRaw({ data: JSON.stringify(chatChunk({ content: word })) });
    expect(observer.model()).toBe('gpt-4o-2024-08-06');
    expect(observer.generatedText()).toBe(words.join(''));
  });

  it('parse a spaced usage object and a chunk whose content is not a plain string', () => {
    const observer = openAIFormat.observeStream('chat');
    observer.observeRaw({ data: JSON.stringify(chatChunk({ content: '' })) });
    expect(observer.observeRaw({ data: '{"model": "gpt-4o", "choices": [{"delta": {"content": "a"}}], "usage": {"prompt_tokens": 2, "completion_tokens": 1}}' })).toBeDefined();
    expect(observer.generatedText()).toBe('a');
    expect(observer.usage()).toMatchObject({ inputTokens: 2, outputTokens: 1 });
  });

  it('follow Anthropic and Responses streams as their parsed events do', () => {
    const anthropic: StreamEvent[] = [
      { event: 'message_start', data: { type: 'message_start', message: { model: 'claude-haiku-4-5', usage: { input_tokens: 25, output_tokens: 1 } } } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      { event: 'ping', data: { type: 'ping' } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 15 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ];
    expect(observeRaw(anthropicFormat, 'chat', anthropic)).toEqual({ seen: observe(anthropicFormat, 'chat', anthropic), parsedCount: 3 });
    const responses: StreamEvent[] = [
      { event: 'response.created', data: { type: 'response.created', response: { model: 'gpt-4.1', usage: null } } },
      { event: 'response.output_text.delta', data: { type: 'response.output_text.delta', delta: 'Hi' } },
      { event: 'response.completed', data: { type: 'response.completed', response: { model: 'gpt-4.1', usage: { input_tokens: 3, output_tokens: 1 } } } },
    ];
    expect(observeRaw(openAIFormat, 'responses', responses)).toEqual({ seen: observe(openAIFormat, 'responses', responses), parsedCount: 2 });
  });

  it('read one string field without parsing, or say when they must parse', () => {
    expect(stringField('{"delta":{"content":"Hi"}}', 'content')).toBe('Hi');
    expect(stringField('{"delta":{"content":"a\\"b\\u00e9"}}', 'content')).toBe('a"bé');
    expect(stringField('{"delta":{}}', 'content')).toBe('');
    expect(stringField('{"delta":{"content":null}}', 'content')).toBeUndefined();
    expect(stringField('{"delta":{"content": "spaced"}}', 'content')).toBeUndefined();
  });
});

describe('gateway errors in each format', () => {
  it('speak the caller’s shape', () => {
    expect(openAIFormat.errorBody(401, 'Invalid API key', 'unauthorized')).toEqual({
      error: { message: 'Invalid API key', type: 'authentication_error', param: null, code: 'unauthorized' },
    });
    expect(anthropicFormat.errorBody(429, 'Slow down', 'rate_limited')).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Slow down' },
    });
    expect(geminiFormat.errorBody(400, 'Bad', 'invalid_request')).toEqual({ error: { code: 400, message: 'Bad', status: 'INVALID_ARGUMENT' } });
  });
});

describe('Anthropic error types', () => {
  it('name each status as Anthropic’s errors reference does, in gateway errors and translated provider errors alike', () => {
    const typeOf = (status: number) => (anthropicFormat.errorBody(status, 'message', 'code') as { error: { type: string } }).error.type;
    const translatedTypeOf = (status: number) => (anthropicToOpenAI.error(status, undefined) as { error: { type: string } }).error.type;
    const documented = {
      400: 'invalid_request_error',
      401: 'authentication_error',
      402: 'billing_error',
      403: 'permission_error',
      404: 'not_found_error',
      413: 'request_too_large',
      429: 'rate_limit_error',
      500: 'api_error',
      504: 'timeout_error',
      529: 'overloaded_error',
    };
    for (const [status, type] of Object.entries(documented)) {
      expect(typeOf(Number(status))).toBe(type);
      expect(translatedTypeOf(Number(status))).toBe(type);
    }
    for (const status of [503, 409, 502]) expect(translatedTypeOf(status)).toBe(typeOf(status));
    expect(typeOf(503)).toBe('overloaded_error');
    expect(typeOf(409)).toBe('invalid_request_error');
    expect(typeOf(502)).toBe('api_error');
  });
});

describe('what a request asks of the model (routing needs)', () => {
  const none = { tools: false, images: false, jsonMode: false };

  it('reads tools, images and JSON mode from OpenAI chat and Responses requests', () => {
    const text = [{ role: 'user', content: 'Hi' }];
    expect(openAIFormat.requestFeatures('chat', { messages: text, tools: [] })).toEqual(none);
    expect(
      openAIFormat.requestFeatures('chat', {
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://x/a.png' } }] }],
        tools: [{ type: 'function', function: { name: 'look' } }],
        response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: {} } },
      }),
    ).toEqual({ tools: true, images: true, jsonMode: true });
    expect(openAIFormat.requestFeatures('chat', { messages: text, response_format: { type: 'text' } })).toEqual(none);
    expect(
      openAIFormat.requestFeatures('responses', {
        input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/a.png' }] }],
        text: { format: { type: 'json_object' } },
      }),
    ).toEqual({ tools: false, images: true, jsonMode: true });
  });

  it('reads them from Anthropic and Gemini requests', () => {
    expect(
      anthropicFormat.requestFeatures('chat', {
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x/a.png' } }] }],
        tools: [{ name: 'look', input_schema: { type: 'object' } }],
      }),
    ).toEqual({ tools: true, images: true, jsonMode: false });
    expect(anthropicFormat.requestFeatures('chat', { messages: [{ role: 'user', content: 'Hi' }] })).toEqual(none);
    expect(
      geminiFormat.requestFeatures('chat', {
        contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] }],
        generationConfig: { responseMimeType: 'application/json' },
      }),
    ).toEqual({ tools: false, images: true, jsonMode: true });
  });
});
