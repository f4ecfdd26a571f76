import { ValidationError } from '@spendgate/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GeminiResponse } from './gemini-types.ts';
import { openAIToGemini } from './openai-to-gemini.ts';
import type { OpenAIChatRequest } from './openai-types.ts';
import type { StreamEvent } from './types.ts';

const CREATED = 1767323045;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-01-02T03:04:05Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

const context = { requestedModel: 'gemini-via-openai' };

describe('openAIToGemini.request', () => {
  it('drops model and stream, moves system to systemInstruction and maps generation settings', () => {
    const body: OpenAIChatRequest = {
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Bonjour.' },
        { role: 'user', content: 'Capital of Italy?' },
      ],
      max_tokens: 100,
      max_completion_tokens: 256,
      temperature: 0.4,
      top_p: 0.95,
      stop: 'END',
      n: 2,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      seed: 7,
      stream: true,
      stream_options: { include_usage: true },
    };
    expect(openAIToGemini.request(body)).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hello' }] },
        { role: 'model', parts: [{ text: 'Bonjour.' }] },
        { role: 'user', parts: [{ text: 'Capital of Italy?' }] },
      ],
      systemInstruction: { parts: [{ text: 'You are terse.' }, { text: 'Answer in French.' }] },
      generationConfig: {
        maxOutputTokens: 256,
        temperature: 0.4,
        topP: 0.95,
        stopSequences: ['END'],
        candidateCount: 2,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        seed: 7,
      },
    });
  });

  it('leaves generationConfig out when nothing was set', () => {
    expect(openAIToGemini.request({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] })).toStrictEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    });
  });

  it('round-trips tools: declarations, functionCall parts, functionResponse named from the call id', () => {
    const body: OpenAIChatRequest = {
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'get_forecast', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '18°C' },
        { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'Sunny' }] },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
          },
        },
        { type: 'function', function: { name: 'get_forecast' } },
      ],
      tool_choice: 'required',
    };
    expect(openAIToGemini.request(body)).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'get_forecast', args: { city: 'Rome' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { content: '18°C' } } },
            { functionResponse: { name: 'get_forecast', response: { content: 'Sunny' } } },
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather',
              parametersJsonSchema: {
                type: 'object',
                properties: { city: { type: 'string' } },
                required: ['city'],
                additionalProperties: false,
              },
            },
            { name: 'get_forecast' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
  });

  it('maps every tool_choice', () => {
    const base: OpenAIChatRequest = { model: 'm', messages: [], tools: [{ type: 'function', function: { name: 'f' } }] };
    const config = (toolChoice: OpenAIChatRequest['tool_choice']) => openAIToGemini.request({ ...base, tool_choice: toolChoice }).toolConfig;
    expect(config('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(config('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(config({ type: 'function', function: { name: 'f' } })).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] },
    });
    expect(config(undefined)).toBeUndefined();
  });

  it('maps images, audio and files to inlineData and http images to fileData', () => {
    const request = openAIToGemini.request({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } },
          ],
        },
      ],
    });
    expect(request.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is this?' },
          { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
          { fileData: { fileUri: 'https://example.com/cat.png' } },
          { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
    ]);
  });

  it('asks for JSON for json_object and json_schema response formats', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };
    const config = (format: OpenAIChatRequest['response_format']) =>
      openAIToGemini.request({ model: 'm', messages: [], response_format: format }).generationConfig;
    expect(config({ type: 'json_object' })).toEqual({ responseMimeType: 'application/json' });
    expect(config({ type: 'json_schema', json_schema: { name: 'reply', schema } })).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
    expect(config({ type: 'text' })).toBeUndefined();
  });

  it('rejects a tool result for an unknown call, naming the field', () => {
    const call = () => openAIToGemini.request({ model: 'm', messages: [{ role: 'tool', tool_call_id: 'call_x', content: 'r' }] });
    expect(call).toThrow(ValidationError);
    expect(call).toThrow(expect.objectContaining({ field: 'messages[0].tool_call_id' }));
    const file = () =>
      openAIToGemini.request({ model: 'm', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] });
    expect(file).toThrow(expect.objectContaining({ field: 'messages[0].content[0]' }));
  });
});

describe('openAIToGemini.response', () => {
  it('maps text and usage with cached and thinking tokens, leaving thought summaries out', () => {
    const answer: GeminiResponse = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ text: 'Planning the answer.', thought: true }, { text: 'Rome is the capital ' }, { text: 'of Italy.' }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 5000,
        cachedContentTokenCount: 4000,
        candidatesTokenCount: 200,
        thoughtsTokenCount: 300,
        totalTokenCount: 5500,
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'mAitaLmkHPPlz7IPvtfUqQ4',
    };
    expect(openAIToGemini.response(answer, context)).toStrictEqual({
      id: 'chatcmpl-mAitaLmkHPPlz7IPvtfUqQ4',
      object: 'chat.completion',
      created: CREATED,
      model: 'gemini-via-openai',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Rome is the capital of Italy.', refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 5000,
        // 200 candidates + 300 thoughts
        completion_tokens: 500,
        total_tokens: 5500,
        prompt_tokens_details: { cached_tokens: 4000 },
        completion_tokens_details: { reasoning_tokens: 300 },
      },
    });
  });

  it('turns functionCall parts into tool_calls, with Gemini ids or ids made from the response id', () => {
    const answer: GeminiResponse = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
              { functionCall: { name: 'get_time', args: { tz: 'CET' }, id: 'fc-7' } },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      responseId: 'resp1',
    };
    expect(openAIToGemini.response(answer, context).choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [
            { id: 'call_resp1_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'fc-7', type: 'function', function: { name: 'get_time', arguments: '{"tz":"CET"}' } },
          ],
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ]);
  });

  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
    ['OTHER', 'stop'],
  ] as const)('maps finishReason %s to %s', (reason, expected) => {
    const answer: GeminiResponse = { candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: reason }] };
    expect(openAIToGemini.response(answer, context).choices[0]?.finish_reason).toBe(expected);
  });

  it('answers a blocked prompt with one content_filter choice', () => {
    const answer: GeminiResponse = {
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
      responseId: 'blocked1',
    };
    const completion = openAIToGemini.response(answer, context);
    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', logprobs: null },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 8,
      completion_tokens: 0,
      total_tokens: 8,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('maps several candidates to several choices', () => {
    const answer: GeminiResponse = {
      candidates: [
        { content: { role: 'model', parts: [{ text: 'A' }] }, finishReason: 'STOP', index: 0 },
        { content: { role: 'model', parts: [{ text: 'B' }] }, finishReason: 'MAX_TOKENS', index: 1 },
      ],
    };
    const choices = openAIToGemini.response(answer, context).choices;
    expect(choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason])).toEqual([
      [0, 'A', 'stop'],
      [1, 'B', 'length'],
    ]);
  });
});

// Recorded streamGenerateContent?alt=sse events (shape from the Gemini reference): cumulative usage on each.
const geminiTextStream: StreamEvent[] = [
  {
    data: {
      candidates: [{ content: { parts: [{ text: 'The capital' }], role: 'model' }, index: 0 }],
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 117, thoughtsTokenCount: 108 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'Zx9kaOSmNqbVz7IP8cHe4Q0',
    },
  },
  {
    data: {
      candidates: [
        {
          content: { parts: [{ text: ' of France is Paris.' }], role: 'model' },
          finishReason: 'STOP',
          index: 0,
          safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' }],
        },
      ],
      usageMetadata: {
        promptTokenCount: 9,
        cachedContentTokenCount: 4,
        candidatesTokenCount: 7,
        totalTokenCount: 124,
        thoughtsTokenCount: 108,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 9 }],
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'Zx9kaOSmNqbVz7IP8cHe4Q0',
    },
  },
];

const geminiToolStream: StreamEvent[] = [
  {
    data: {
      candidates: [
        {
          content: {
            parts: [
              { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQB0e2Kb' },
              { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 60, candidatesTokenCount: 30, totalTokenCount: 90 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'tool9',
    },
  },
];

function chunk(id: string, choices: unknown[], extra: Record<string, unknown> = {}) {
  return { data: { id, object: 'chat.completion.chunk', created: CREATED, model: 'gemini-via-openai', choices, ...extra } };
}

function translateAll(events: StreamEvent[]): StreamEvent[] {
  const translator = openAIToGemini.stream(context);
  return [...events.flatMap((event) => translator.push(event)), ...translator.end()];
}

describe('openAIToGemini.stream', () => {
  it('translates a text stream and sends the final cumulative usage once, at end()', () => {
    const id = 'chatcmpl-Zx9kaOSmNqbVz7IP8cHe4Q0';
    expect(translateAll(geminiTextStream)).toStrictEqual([
      chunk(id, [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
      chunk(id, [{ index: 0, delta: { content: 'The capital' }, finish_reason: null }]),
      chunk(id, [{ index: 0, delta: { content: ' of France is Paris.' }, finish_reason: null }]),
      chunk(id, [{ index: 0, delta: {}, finish_reason: 'stop' }]),
      chunk(id, [], {
        usage: {
          prompt_tokens: 9,
          // 7 candidates + 108 thoughts
          completion_tokens: 115,
          total_tokens: 124,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: { reasoning_tokens: 108 },
        },
      }),
    ]);
  });

  it('sends each function call as one complete tool-call delta and finishes with tool_calls', () => {
    const id = 'chatcmpl-tool9';
    expect(translateAll(geminiToolStream).slice(0, -1)).toStrictEqual([
      chunk(id, [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
      chunk(id, [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: 'call_tool9_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { index: 1, id: 'call_tool9_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          finish_reason: null,
        },
      ]),
      chunk(id, [{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
    ]);
  });

  it('keeps numbering tool calls across events', () => {
    const translator = openAIToGemini.stream(context);
    const call = (name: string, finishReason?: string) => ({
      data: { candidates: [{ content: { parts: [{ functionCall: { name, args: {} } }], role: 'model' }, index: 0, finishReason }], responseId: 'r' },
    });
    translator.push(call('a'));
    const second = translator.push(call('b', 'STOP'));
    expect(second).toStrictEqual([
      chunk('chatcmpl-r', [
        { index: 0, delta: { tool_calls: [{ index: 1, id: 'call_r_1', type: 'function', function: { name: 'b', arguments: '{}' } }] }, finish_reason: null },
      ]),
      chunk('chatcmpl-r', [{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
    ]);
    expect(translator.end()).toStrictEqual([]);
  });

  it('turns an error event into an OpenAI error payload', () => {
    const translator = openAIToGemini.stream(context);
    expect(translator.push({ data: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } } })).toStrictEqual([
      { data: { error: { message: 'The model is overloaded.', type: 'overloaded_error', param: null, code: 'UNAVAILABLE' } } },
    ]);
  });
});

describe('openAIToGemini.error', () => {
  it('keeps the message, names the type from the status and the Google status as the code', () => {
    const body = {
      error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' },
    };
    expect(openAIToGemini.error(400, body)).toStrictEqual({
      error: { message: 'API key not valid. Please pass a valid API key.', type: 'invalid_request_error', param: null, code: 'INVALID_ARGUMENT' },
    });
    expect(openAIToGemini.error(429, { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } })).toStrictEqual({
      error: { message: 'Resource has been exhausted', type: 'rate_limit_error', param: null, code: 'RESOURCE_EXHAUSTED' },
    });
    expect(openAIToGemini.error(500, null)).toStrictEqual({
      error: { message: 'The provider answered with HTTP status 500', type: 'api_error', param: null, code: null },
    });
  });
});
