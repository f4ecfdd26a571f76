import { ValidationError } from '@spendgate/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnthropicMessage } from './anthropic-types.ts';
import { DEFAULT_ANTHROPIC_MAX_TOKENS, openAIToAnthropic } from './openai-to-anthropic.ts';
import type { OpenAIChatRequest } from './openai-types.ts';
import type { StreamEvent } from './types.ts';

const NOW = new Date('2026-01-02T03:04:05Z');
const CREATED = 1767323045;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

const context = { requestedModel: 'claude-via-openai' };

/** An Anthropic usage object as the API reports it, with the fields a test does not care about empty. */
function anthropicUsage(counts: Partial<AnthropicMessage['usage']>): AnthropicMessage['usage'] {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation: null,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: null,
    ...counts,
  };
}

function anthropicMessage(fields: Partial<AnthropicMessage>): AnthropicMessage {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage({ input_tokens: 10, output_tokens: 5 }),
    ...fields,
  };
}

describe('openAIToAnthropic.request', () => {
  it('moves system and developer messages to system and applies the max_tokens default', () => {
    const body: OpenAIChatRequest = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hello' },
      ],
    };
    expect(openAIToAnthropic.request(body)).toStrictEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
      system: [
        { type: 'text', text: 'You are terse.' },
        { type: 'text', text: 'Answer in French.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });
  });

  it('maps sampling, stop, stream, user and max_completion_tokens over max_tokens', () => {
    const body: OpenAIChatRequest = {
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 100,
      max_completion_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      stop: 'END',
      stream: true,
      stream_options: { include_usage: true },
      user: 'user-42',
      frequency_penalty: 0.5,
    };
    expect(openAIToAnthropic.request(body)).toStrictEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stop_sequences: ['END'],
      temperature: 0.2,
      top_p: 0.9,
      metadata: { user_id: 'user-42' },
      stream: true,
    });
  });

  it('takes max_tokens when max_completion_tokens is absent and keeps a stop array', () => {
    const request = openAIToAnthropic.request({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 77,
      stop: ['a', 'b'],
    });
    expect(request.max_tokens).toBe(77);
    expect(request.stop_sequences).toEqual(['a', 'b']);
  });

  it('turns a multi-turn tool conversation into alternating turns with tool_use and tool_result', () => {
    const body: OpenAIChatRequest = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '24°C' }] },
        { role: 'user', content: 'Which is warmer?' },
        { role: 'assistant', content: 'Rome.' },
        { role: 'user', content: 'Thanks' },
      ],
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
      tool_choice: 'auto',
    };
    expect(openAIToAnthropic.request(body)).toStrictEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '18°C' },
            { type: 'tool_result', tool_use_id: 'call_2', content: '24°C' },
            { type: 'text', text: 'Which is warmer?' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Rome.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Current weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      tool_choice: { type: 'auto' },
    });
  });

  it('keeps assistant text before its tool calls and drops empty text', () => {
    const request = openAIToAnthropic.request({
      model: 'm',
      messages: [
        { role: 'user', content: 'Go' },
        {
          role: 'assistant',
          content: [{ type: 'text', text: 'Let me check.' }, { type: 'text', text: '' }],
          tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'lookup', arguments: '' } }],
        },
      ],
    });
    expect(request.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'call_9', name: 'lookup', input: {} },
      ],
    });
  });

  it('maps data-URL images to base64 sources and http images to url sources', () => {
    const request = openAIToAnthropic.request({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
    ]);
  });

  it('maps each tool_choice and parallel_tool_calls: false', () => {
    const base: OpenAIChatRequest = {
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'function', function: { name: 'f' } }],
    };
    const choice = (extra: Partial<OpenAIChatRequest>) => openAIToAnthropic.request({ ...base, ...extra }).tool_choice;
    expect(choice({ tool_choice: 'required' })).toEqual({ type: 'any' });
    expect(choice({ tool_choice: 'none' })).toEqual({ type: 'none' });
    expect(choice({ tool_choice: { type: 'function', function: { name: 'f' } } })).toEqual({ type: 'tool', name: 'f' });
    expect(choice({})).toBeUndefined();
    expect(choice({ parallel_tool_calls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(choice({ tool_choice: 'required', parallel_tool_calls: false })).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    expect(openAIToAnthropic.request({ ...base }).tools).toEqual([{ name: 'f', input_schema: { type: 'object' } }]);
  });

  it('maps a json_schema response_format to output_config.format', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, additionalProperties: false };
    const request = openAIToAnthropic.request({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } },
    });
    expect(request.output_config).toEqual({ format: { type: 'json_schema', schema } });
  });

  it('rejects what Anthropic cannot do, naming the field', () => {
    const reject = (body: Partial<OpenAIChatRequest>, field: string) => {
      const call = () => openAIToAnthropic.request({ model: 'm', messages: [], ...body });
      expect(call).toThrow(ValidationError);
      expect(call).toThrow(expect.objectContaining({ field }));
    };
    reject({ n: 2 }, 'n');
    reject(
      { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }] }] },
      'messages[0].content[0]',
    );
    reject(
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] }] },
      'messages[0].content[0].image_url',
    );
    reject({ messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'messages[0].role');
    reject({ tools: [{ type: 'custom', custom: { name: 'grammar' } }] }, 'tools[0]');
  });
});

describe('openAIToAnthropic.response', () => {
  it('joins text blocks and maps usage with cache reads and writes', () => {
    const answer = anthropicMessage({
      content: [
        { type: 'thinking', thinking: 'Hmm.', signature: 'sig' },
        { type: 'text', text: 'Hello, ', citations: null },
        { type: 'text', text: 'world.', citations: null },
      ],
      stop_reason: 'end_turn',
      usage: anthropicUsage({
        input_tokens: 12,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 250,
        cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 50 },
        output_tokens: 40,
        output_tokens_details: { thinking_tokens: 30 },
      }),
    });
    expect(openAIToAnthropic.response(answer, context)).toStrictEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      created: CREATED,
      model: 'claude-via-openai',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello, world.', refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        // 12 uncached + 1000 read + 250 written
        prompt_tokens: 1262,
        completion_tokens: 40,
        total_tokens: 1302,
        prompt_tokens_details: { cached_tokens: 1000 },
        completion_tokens_details: { reasoning_tokens: 30 },
      },
    });
  });

  it('turns tool_use blocks into tool_calls with JSON-string arguments', () => {
    const answer = anthropicMessage({
      content: [
        { type: 'text', text: 'Checking.', citations: null },
        {
          type: 'tool_use',
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'get_weather',
          input: { city: 'Paris', unit: 'c' },
          caller: { type: 'direct' },
        },
      ],
      stop_reason: 'tool_use',
    });
    const completion = openAIToAnthropic.response(answer, context);
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Checking.',
          refusal: null,
          tool_calls: [
            {
              id: 'toolu_01A09q90qw90lq917835lq9',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"c"}' },
            },
          ],
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ]);
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['model_context_window_exceeded', 'length'],
  ] as const)('maps stop_reason %s to finish_reason %s', (stopReason, finishReason) => {
    const completion = openAIToAnthropic.response(anthropicMessage({ stop_reason: stopReason }), context);
    expect(completion.choices[0]?.finish_reason).toBe(finishReason);
    expect(completion.choices[0]?.message.content).toBeNull();
  });
});

// A recorded Anthropic stream (shape from the Messages streaming reference): text, then a tool call.
const anthropicToolStream: StreamEvent[] = [
  {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 472, cache_read_input_tokens: 2048, cache_creation_input_tokens: 0, output_tokens: 2 },
      },
    },
  },
  { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
  { event: 'ping', data: { type: 'ping' } },
  {
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Okay, let me check' } },
  },
  { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' the weather.' } } },
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
  {
    event: 'content_block_start',
    data: {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', input: {} },
    },
  },
  { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } } },
  {
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"location": "San Fra' } },
  },
  {
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'ncisco, CA"}' } },
  },
  { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
  {
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 89 } },
  },
  { event: 'message_stop', data: { type: 'message_stop' } },
];

function chunk(choices: unknown[], extra: Record<string, unknown> = {}) {
  return {
    data: {
      id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: 'claude-via-openai',
      choices,
      ...extra,
    },
  };
}

describe('openAIToAnthropic.stream', () => {
  it('translates a text-then-tool stream into chat.completion.chunk events ending with usage', () => {
    const translator = openAIToAnthropic.stream(context);
    const out = [...anthropicToolStream.flatMap((event) => translator.push(event)), ...translator.end()];
    expect(out).toStrictEqual([
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
      chunk([{ index: 0, delta: { content: 'Okay, let me check' }, finish_reason: null }]),
      chunk([{ index: 0, delta: { content: ' the weather.' }, finish_reason: null }]),
      chunk([
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } },
            ],
          },
          finish_reason: null,
        },
      ]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"location": "San Fra' } }] }, finish_reason: null }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'ncisco, CA"}' } }] }, finish_reason: null }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
      chunk([], {
        usage: {
          // 472 uncached + 2048 cache reads
          prompt_tokens: 2520,
          completion_tokens: 89,
          total_tokens: 2609,
          prompt_tokens_details: { cached_tokens: 2048 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      }),
    ]);
  });

  it('numbers parallel tool calls from 0 and ignores thinking blocks', () => {
    const translator = openAIToAnthropic.stream(context);
    const events: StreamEvent[] = [
      anthropicToolStream[0]!,
      { data: { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } } },
      { data: { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Two cities.' } } },
      { data: { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQB' } } },
      { data: { type: 'content_block_stop', index: 0 } },
      { data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_a', name: 'f', input: {} } } },
      { data: { type: 'content_block_stop', index: 1 } },
      { data: { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_b', name: 'g', input: {} } } },
      { data: { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } } },
    ];
    const out = events.flatMap((event) => translator.push(event)).slice(1);
    expect(out).toStrictEqual([
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'f', arguments: '' } }] }, finish_reason: null }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'g', arguments: '' } }] }, finish_reason: null }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '{}' } }] }, finish_reason: null }]),
    ]);
  });

  it('takes cumulative input counts from message_delta when present and reports usage once', () => {
    const translator = openAIToAnthropic.stream(context);
    translator.push(anthropicToolStream[0]!);
    const delta = translator.push({
      data: {
        type: 'message_delta',
        delta: { stop_reason: 'max_tokens', stop_sequence: null },
        usage: { output_tokens: 4096, input_tokens: 500, cache_read_input_tokens: null, output_tokens_details: { thinking_tokens: 1000 } },
      },
    });
    expect(delta).toStrictEqual([chunk([{ index: 0, delta: {}, finish_reason: 'length' }])]);
    // A second message_delta updates the counts but sends no second finish chunk.
    const repeated = translator.push({
      data: { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 4096 } },
    });
    expect(repeated).toStrictEqual([]);
    const usage = chunk([], {
      usage: {
        // input 500 (replaced) + 2048 cache reads (kept from message_start)
        prompt_tokens: 2548,
        completion_tokens: 4096,
        total_tokens: 6644,
        prompt_tokens_details: { cached_tokens: 2048 },
        completion_tokens_details: { reasoning_tokens: 1000 },
      },
    });
    expect(translator.push({ data: { type: 'message_stop' } })).toStrictEqual([usage]);
    expect(translator.end()).toStrictEqual([]);
  });

  it('still reports usage at end() when message_stop never came', () => {
    const translator = openAIToAnthropic.stream(context);
    translator.push(anthropicToolStream[0]!);
    expect(translator.end()).toHaveLength(1);
    expect(openAIToAnthropic.stream(context).end()).toStrictEqual([]);
  });

  it('turns an error event into an OpenAI error payload', () => {
    const translator = openAIToAnthropic.stream(context);
    const out = translator.push({
      event: 'error',
      data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    expect(out).toStrictEqual([{ data: { error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: null } } }]);
  });
});

describe('openAIToAnthropic.error', () => {
  it('keeps the Anthropic error type and message', () => {
    const body = { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } };
    expect(openAIToAnthropic.error(429, body)).toStrictEqual({
      error: {
        message: 'Number of request tokens has exceeded your per-minute rate limit',
        type: 'rate_limit_error',
        param: null,
        code: null,
      },
    });
  });

  it('falls back to the status for bodies of another shape', () => {
    expect(openAIToAnthropic.error(529, 'upstream overloaded')).toStrictEqual({
      error: { message: 'upstream overloaded', type: 'overloaded_error', param: null, code: null },
    });
    expect(openAIToAnthropic.error(502, undefined)).toStrictEqual({
      error: { message: 'The provider answered with HTTP status 502', type: 'api_error', param: null, code: null },
    });
  });
});
