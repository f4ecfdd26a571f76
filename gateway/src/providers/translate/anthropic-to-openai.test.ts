import { ValidationError } from '@spendgate/core';
import { describe, expect, it } from 'vitest';
import { anthropicToOpenAI } from './anthropic-to-openai.ts';
import type { AnthropicMessagesRequest } from './anthropic-types.ts';
import type { OpenAIChatCompletion } from './openai-types.ts';
import { finalMessageFromAnthropicSdk } from './testing.ts';
import type { StreamEvent } from './types.ts';

const context = { requestedModel: 'gpt-via-anthropic' };

describe('anthropicToOpenAI.request', () => {
  it('puts system first, maps sampling and asks for usage when streaming', () => {
    const body: AnthropicMessagesRequest = {
      model: 'gpt-4.1',
      max_tokens: 1024,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 0.3,
      top_p: 0.8,
      top_k: 40,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-42' },
      stream: true,
    };
    expect(anthropicToOpenAI.request(body)).toStrictEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello' },
      ],
      max_completion_tokens: 1024,
      stop: ['END'],
      temperature: 0.3,
      top_p: 0.8,
      user: 'user-42',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('keeps system blocks as text parts', () => {
    const request = anthropicToOpenAI.request({
      model: 'gpt-4.1',
      max_tokens: 10,
      system: [
        { type: 'text', text: 'Rules.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'More rules.' },
      ],
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(request.messages[0]).toEqual({
      role: 'system',
      content: [
        { type: 'text', text: 'Rules.' },
        { type: 'text', text: 'More rules.' },
      ],
    });
    expect(request.stream).toBeUndefined();
    expect(request.stream_options).toBeUndefined();
  });

  it('keeps a system-role entry of messages in its place', () => {
    const request = anthropicToOpenAI.request({
      model: 'gpt-4.1',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: [{ type: 'text', text: 'From now on, answer in French.' }] },
        { role: 'user', content: 'Hello again' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'system', content: [{ type: 'text', text: 'From now on, answer in French.' }] },
      { role: 'user', content: 'Hello again' },
    ]);
  });

  it('round-trips a tool conversation: tool_use → tool_calls, tool_result → tool messages first', () => {
    const body: AnthropicMessagesRequest = {
      model: 'gpt-4.1',
      max_tokens: 500,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Two calls.', signature: 'sig' },
            { type: 'text', text: 'Checking both.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '24°C' }] },
            { type: 'text', text: 'Which is warmer?' },
          ],
        },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    };
    expect(anthropicToOpenAI.request(body)).toStrictEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '18°C' },
        { role: 'tool', tool_call_id: 'toolu_2', content: '24°C' },
        { role: 'user', content: [{ type: 'text', text: 'Which is warmer?' }] },
      ],
      max_completion_tokens: 500,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
  });

  it('maps images and PDF documents to image_url and file parts', () => {
    const request = anthropicToOpenAI.request({
      model: 'gpt-4.1',
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
            { type: 'text', text: 'Describe.' },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'document.pdf' } },
          { type: 'text', text: 'Describe.' },
        ],
      },
    ]);
  });

  it('maps every tool_choice and structured output', () => {
    const base: AnthropicMessagesRequest = {
      model: 'gpt-4.1',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
    };
    const choice = (toolChoice: AnthropicMessagesRequest['tool_choice']) =>
      anthropicToOpenAI.request({ ...base, tool_choice: toolChoice });
    expect(choice({ type: 'auto' }).tool_choice).toBe('auto');
    expect(choice({ type: 'none' }).tool_choice).toBe('none');
    expect(choice({ type: 'tool', name: 'f' }).tool_choice).toEqual({ type: 'function', function: { name: 'f' } });
    expect(choice({ type: 'auto' }).parallel_tool_calls).toBeUndefined();
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    const structured = anthropicToOpenAI.request({ ...base, output_config: { format: { type: 'json_schema', schema } } });
    expect(structured.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
  });

  it('refuses server tools, file images and non-text tool results, naming the field', () => {
    const reject = (body: Partial<AnthropicMessagesRequest>, field: string) => {
      const call = () => anthropicToOpenAI.request({ model: 'm', max_tokens: 1, messages: [], ...body });
      expect(call).toThrow(ValidationError);
      expect(call).toThrow(expect.objectContaining({ field }));
    };
    reject({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools[0]');
    reject({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }] }, 'messages[0].content[0]');
    reject(
      {
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't',
                content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } }],
              },
            ],
          },
        ],
      },
      'messages[0].content[0].content[0]',
    );
  });
});

function completion(fields: Partial<OpenAIChatCompletion>): OpenAIChatCompletion {
  return {
    id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
    object: 'chat.completion',
    created: 1741570283,
    model: 'gpt-4.1-2025-04-14',
    choices: [],
    ...fields,
  };
}

describe('anthropicToOpenAI.response', () => {
  it('maps text, usage with cached and reasoning tokens, and the stop reason', () => {
    const answer = completion({
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hello there.', refusal: null }, finish_reason: 'stop', logprobs: null },
      ],
      usage: {
        prompt_tokens: 2006,
        completion_tokens: 300,
        total_tokens: 2306,
        prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 192, audio_tokens: 0 },
      },
    });
    expect(anthropicToOpenAI.response(answer, context)).toStrictEqual({
      id: 'chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG',
      type: 'message',
      role: 'assistant',
      model: 'gpt-via-anthropic',
      content: [{ type: 'text', text: 'Hello there.', citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: {
        // 2006 prompt − 1920 cached
        input_tokens: 86,
        cache_read_input_tokens: 1920,
        cache_creation_input_tokens: 0,
        cache_creation: null,
        output_tokens: 300,
        output_tokens_details: { thinking_tokens: 192 },
        inference_geo: null,
        server_tool_use: null,
        service_tier: null,
        speed: null,
      },
    });
  });

  it('turns tool_calls into tool_use blocks with parsed input', () => {
    const answer = completion({
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              { id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_def', type: 'function', function: { name: 'get_time', arguments: '{"tz": "Europe/Pa' } },
            ],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
    });
    const message = anthropicToOpenAI.response(answer, context);
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' } },
      // Broken JSON (cut short) has no place in an object input.
      { type: 'tool_use', id: 'call_def', name: 'get_time', input: {}, caller: { type: 'direct' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.input_tokens).toBe(0);
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['content_filter', 'refusal'],
  ] as const)('maps finish_reason %s to stop_reason %s', (finishReason, stopReason) => {
    const answer = completion({
      choices: [{ index: 0, message: { role: 'assistant', content: 'x', refusal: null }, finish_reason: finishReason, logprobs: null }],
    });
    expect(anthropicToOpenAI.response(answer, context).stop_reason).toBe(stopReason);
  });

  it('carries a refusal as text', () => {
    const answer = completion({
      choices: [
        { index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help.' }, finish_reason: 'stop', logprobs: null },
      ],
    });
    expect(anthropicToOpenAI.response(answer, context).content).toEqual([{ type: 'text', text: 'I cannot help.', citations: null }]);
  });
});

const chunkBase = { id: 'chatcmpl-7a1B2c3D', object: 'chat.completion.chunk', created: 1741570283, model: 'gpt-4.1-2025-04-14', system_fingerprint: 'fp_44709d6fcb' };

// A recorded OpenAI stream (shape from the chat.completion.chunk reference): text, two tool calls, usage.
const openAIToolStream: StreamEvent[] = [
  { data: { ...chunkBase, choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }], usage: null } },
  { data: { ...chunkBase, choices: [{ index: 0, delta: { content: 'Let me' }, logprobs: null, finish_reason: null }], usage: null } },
  { data: { ...chunkBase, choices: [{ index: 0, delta: { content: ' check.' }, logprobs: null, finish_reason: null }], usage: null } },
  {
    data: {
      ...chunkBase,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
          logprobs: null,
          finish_reason: null,
        },
      ],
      usage: null,
    },
  },
  { data: { ...chunkBase, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }, logprobs: null, finish_reason: null }], usage: null } },
  { data: { ...chunkBase, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ' "Paris"}' } }] }, logprobs: null, finish_reason: null }], usage: null } },
  {
    data: {
      ...chunkBase,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 1, id: 'call_2nd', type: 'function', function: { name: 'get_time', arguments: '{"tz":"CET"}' } }] },
          logprobs: null,
          finish_reason: null,
        },
      ],
      usage: null,
    },
  },
  { data: { ...chunkBase, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }], usage: null } },
  {
    data: {
      ...chunkBase,
      choices: [],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 57,
        total_tokens: 1257,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
    },
  },
  { data: '[DONE]' },
];

const expectedToolEvents = [
  {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: 'chatcmpl-7a1B2c3D',
        type: 'message',
        role: 'assistant',
        model: 'gpt-via-anthropic',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        diagnostics: null,
        usage: {
          input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_creation: null,
          output_tokens: 0,
          output_tokens_details: null,
          inference_geo: null,
          server_tool_use: null,
          service_tier: null,
          speed: null,
        },
      },
    },
  },
  { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } } },
  { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me' } } },
  { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' check.' } } },
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
  {
    event: 'content_block_start',
    data: {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: {}, caller: { type: 'direct' } },
    },
  },
  { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"location":' } } },
  { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' "Paris"}' } } },
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
  {
    event: 'content_block_start',
    data: { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_2nd', name: 'get_time', input: {}, caller: { type: 'direct' } } },
  },
  { event: 'content_block_delta', data: { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"tz":"CET"}' } } },
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 2 } },
  {
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
      usage: {
        // 1200 prompt − 1024 cached
        input_tokens: 176,
        cache_read_input_tokens: 1024,
        cache_creation_input_tokens: 0,
        output_tokens: 57,
        output_tokens_details: { thinking_tokens: 0 },
        server_tool_use: null,
      },
    },
  },
  { event: 'message_stop', data: { type: 'message_stop' } },
];

function translateAll(events: StreamEvent[]): StreamEvent[] {
  const translator = anthropicToOpenAI.stream(context);
  return [...events.flatMap((event) => translator.push(event)), ...translator.end()];
}

describe('anthropicToOpenAI.stream', () => {
  it('translates a text-and-tools stream into the full Anthropic event sequence', () => {
    expect(translateAll(openAIToolStream)).toStrictEqual(expectedToolEvents);
  });

  it('emits message_delta and message_stop as soon as the usage chunk arrives, and nothing at end()', () => {
    const translator = anthropicToOpenAI.stream(context);
    const beforeUsage = openAIToolStream.slice(0, -2).flatMap((event) => translator.push(event));
    expect(beforeUsage.at(-1)?.event).toBe('content_block_stop');
    const atUsage = translator.push(openAIToolStream.at(-2)!);
    expect(atUsage.map((event) => event.event)).toEqual(['message_delta', 'message_stop']);
    expect(translator.push({ data: '[DONE]' })).toEqual([]);
    expect(translator.end()).toEqual([]);
  });

  it('finishes at end() when the provider sent no usage', () => {
    const translator = anthropicToOpenAI.stream(context);
    translator.push({ data: { ...chunkBase, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] } });
    expect(translator.end()).toStrictEqual([
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null, container: null },
          usage: {
            input_tokens: 0,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
            output_tokens: 0,
            output_tokens_details: null,
            server_tool_use: null,
          },
        },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  });

  it('turns a mid-stream error payload into an Anthropic error event', () => {
    const translator = anthropicToOpenAI.stream(context);
    expect(translator.push({ data: { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } } })).toStrictEqual([
      { event: 'error', data: { type: 'error', error: { type: 'api_error', message: 'The server had an error' } } },
    ]);
  });

  it('produces a stream the Anthropic SDK accumulates into the expected final message', async () => {
    const message = await finalMessageFromAnthropicSdk(translateAll(openAIToolStream));
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check.', citations: null },
      { type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' }, caller: { type: 'direct' } },
      { type: 'tool_use', id: 'call_2nd', name: 'get_time', input: { tz: 'CET' }, caller: { type: 'direct' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 176, cache_read_input_tokens: 1024, output_tokens: 57 });
  });
});

describe('anthropicToOpenAI.error', () => {
  it('names the Anthropic error type from the status and keeps the message', () => {
    const body = { error: { message: 'Incorrect API key provided: sk-abc.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } };
    expect(anthropicToOpenAI.error(401, body)).toStrictEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'Incorrect API key provided: sk-abc.' },
    });
    expect(anthropicToOpenAI.error(429, { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } })).toStrictEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Rate limit reached' },
    });
    expect(anthropicToOpenAI.error(500, '<html>Bad gateway</html>')).toStrictEqual({
      type: 'error',
      error: { type: 'api_error', message: '<html>Bad gateway</html>' },
    });
  });
});
