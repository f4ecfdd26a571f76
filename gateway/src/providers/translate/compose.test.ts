import { describe, expect, it } from 'vitest';
import { composeTranslators } from './compose.ts';
import { anthropicToGemini } from './index.ts';
import { finalMessageFromAnthropicSdk } from './testing.ts';
import type { FormatTranslator, StreamEvent } from './types.ts';

/** A translator that tags what passes through it, so the order of composition shows. */
function tagging(tag: string): FormatTranslator<string, string, string, string> {
  return {
    request: (body) => `${body}>${tag}`,
    response: (answer, context) => `${answer}<${tag}(${context.requestedModel})`,
    stream: () => {
      let seen = 0;
      return {
        push: (event) => {
          seen += 1;
          return [{ data: `${String(event.data)}<${tag}` }];
        },
        end: () => [{ data: `end<${tag}:${seen}` }],
      };
    },
    error: (status, body) => `${String(body)}<${tag}${status}`,
  };
}

describe('composeTranslators', () => {
  const composed = composeTranslators(tagging('outer'), tagging('inner'));

  it('sends requests through outer then inner, and answers and errors back through inner then outer', () => {
    expect(composed.request('req')).toBe('req>outer>inner');
    expect(composed.response('ans', { requestedModel: 'm' })).toBe('ans<inner(m)<outer(m)');
    expect(composed.error(429, 'err')).toBe('err<inner429<outer429');
  });

  it('feeds the inner stream into the outer one and flushes inner.end() through outer before outer.end()', () => {
    const stream = composed.stream({ requestedModel: 'm' });
    expect(stream.push({ data: 'e1' })).toEqual([{ data: 'e1<inner<outer' }]);
    expect(stream.end()).toEqual([{ data: 'end<inner:1<outer' }, { data: 'end<outer:2' }]);
  });
});

describe('anthropicToGemini', () => {
  const context = { requestedModel: 'gemini-via-anthropic' };

  it('translates an Anthropic tool conversation into a Gemini request', () => {
    const request = anthropicToGemini.request({
      model: 'gemini-2.5-flash',
      max_tokens: 512,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_r_0', name: 'get_weather', input: { city: 'Paris' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_r_0', content: '18°C' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
      tools: [{ name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      tool_choice: { type: 'tool', name: 'get_weather' },
      stop_sequences: ['END'],
      temperature: 0.5,
      stream: true,
    });
    expect(request).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { content: '18°C' } } },
            { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [
        {
          functionDeclarations: [
            { name: 'get_weather', description: 'Current weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
      generationConfig: { maxOutputTokens: 512, temperature: 0.5, stopSequences: ['END'] },
    });
  });

  it('translates a Gemini answer into an Anthropic message with cache and thinking usage', () => {
    const message = anthropicToGemini.response(
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ text: 'It is 18°C.' }, { functionCall: { name: 'log', args: { ok: true } } }] },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 5000, cachedContentTokenCount: 4000, candidatesTokenCount: 200, thoughtsTokenCount: 300 },
        responseId: 'resp7',
      },
      context,
    );
    expect(message).toStrictEqual({
      id: 'chatcmpl-resp7',
      type: 'message',
      role: 'assistant',
      model: 'gemini-via-anthropic',
      content: [
        { type: 'text', text: 'It is 18°C.', citations: null },
        { type: 'tool_use', id: 'call_resp7_0', name: 'log', input: { ok: true }, caller: { type: 'direct' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: {
        // 5000 prompt − 4000 cached
        input_tokens: 1000,
        cache_read_input_tokens: 4000,
        cache_creation_input_tokens: 0,
        cache_creation: null,
        // 200 candidates + 300 thoughts
        output_tokens: 500,
        output_tokens_details: { thinking_tokens: 300 },
        inference_geo: null,
        server_tool_use: null,
        service_tier: null,
        speed: null,
      },
    });
  });

  const geminiStream: StreamEvent[] = [
    {
      data: {
        candidates: [{ content: { parts: [{ text: 'Checking' }], role: 'model' }, index: 0 }],
        usageMetadata: { promptTokenCount: 40, totalTokenCount: 40 },
        responseId: 'g1',
      },
    },
    {
      data: {
        candidates: [
          {
            content: { parts: [{ text: ' now.' }, { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }], role: 'model' },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 40, cachedContentTokenCount: 32, candidatesTokenCount: 12, thoughtsTokenCount: 20, totalTokenCount: 72 },
        responseId: 'g1',
      },
    },
  ];

  function translateAll(events: StreamEvent[]): StreamEvent[] {
    const translator = anthropicToGemini.stream(context);
    return [...events.flatMap((event) => translator.push(event)), ...translator.end()];
  }

  it('translates a Gemini stream into the Anthropic event sequence, usage in message_delta at the end', () => {
    const events = translateAll(geminiStream);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events.at(-2)).toStrictEqual({
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
        usage: {
          input_tokens: 8,
          cache_read_input_tokens: 32,
          cache_creation_input_tokens: 0,
          output_tokens: 32,
          output_tokens_details: { thinking_tokens: 20 },
          server_tool_use: null,
        },
      },
    });
  });

  it('produces a stream the Anthropic SDK accumulates into the expected final message', async () => {
    const message = await finalMessageFromAnthropicSdk(translateAll(geminiStream));
    expect(message).toMatchObject({
      id: 'chatcmpl-g1',
      model: 'gemini-via-anthropic',
      content: [
        { type: 'text', text: 'Checking now.' },
        { type: 'tool_use', id: 'call_g1_0', name: 'get_weather', input: { city: 'Oslo' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 8, cache_read_input_tokens: 32, output_tokens: 32 },
    });
  });

  it('translates a Gemini error into an Anthropic error body', () => {
    const body = { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } };
    expect(anthropicToGemini.error(429, body)).toStrictEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Resource has been exhausted (e.g. check quota).' },
    });
  });
});
