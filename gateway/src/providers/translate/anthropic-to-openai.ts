/**
 * A caller speaking Anthropic Messages, served by an OpenAI Chat Completions model:
 * the request goes Anthropic → OpenAI, the answer, stream and errors come back
 * OpenAI → Anthropic.
 */
import { ValidationError } from '@spendgate/core';
import { anthropicErrorType } from '../formats/anthropic.ts';
import type {
  AnthropicContentBlock,
  AnthropicContentBlockParam,
  AnthropicDeltaUsage,
  AnthropicErrorBody,
  AnthropicMessage,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicRawStreamEvent,
  AnthropicStopReason,
  AnthropicToolChoice,
  AnthropicToolResultBlockParam,
  AnthropicToolUnion,
  AnthropicUsage,
} from './anthropic-types.ts';
import type {
  OpenAIChatChunk,
  OpenAIChatCompletion,
  OpenAIChatRequest,
  OpenAIContentPart,
  OpenAIFinishReason,
  OpenAIMessageParam,
  OpenAITool,
  OpenAIToolCall,
  OpenAIToolChoice,
  OpenAIUsage,
} from './openai-types.ts';
import { compact, parseToolArguments, upstreamErrorMessage } from './shared.ts';
import type { FormatTranslator, StreamEvent, StreamTranslator } from './types.ts';

// ─── request ────────────────────────────────────────────────────────────────

type UserContentBlock = Exclude<AnthropicContentBlockParam, AnthropicToolResultBlockParam>;

function userPart(block: UserContentBlock, field: string): OpenAIContentPart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  if (block.type === 'image' && block.source.type === 'base64') {
    return { type: 'image_url', image_url: { url: `data:${block.source.media_type};base64,${block.source.data}` } };
  }
  if (block.type === 'image' && block.source.type === 'url') return { type: 'image_url', image_url: { url: block.source.url } };
  if (block.type === 'document' && block.source.type === 'base64') {
    return {
      type: 'file',
      file: { file_data: `data:application/pdf;base64,${block.source.data}`, filename: block.title ?? 'document.pdf' },
    };
  }
  if (block.type === 'document' && block.source.type === 'text') return { type: 'text', text: block.source.data };
  throw new ValidationError(field, `Content of type ${block.type} is not supported by this model`);
}

function toolResultText(block: AnthropicToolResultBlockParam, field: string): string {
  if (block.content === undefined || typeof block.content === 'string') return block.content ?? '';
  return block.content
    .map((part, index) => {
      if (part.type !== 'text') {
        throw new ValidationError(`${field}.content[${index}]`, 'Tool results sent to this model may only hold text');
      }
      return part.text;
    })
    .join('');
}

/**
 * One user turn → OpenAI messages: each tool_result becomes a `tool` message (first, as
 * OpenAI wants them right after the assistant's tool calls), the rest one user message.
 */
function userMessages(blocks: AnthropicContentBlockParam[], field: string): OpenAIMessageParam[] {
  const toolMessages: OpenAIMessageParam[] = [];
  const parts: OpenAIContentPart[] = [];
  blocks.forEach((block, index) => {
    const blockField = `${field}[${index}]`;
    if (block.type === 'tool_result') {
      toolMessages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultText(block, blockField) });
    } else {
      parts.push(userPart(block, blockField));
    }
  });
  return parts.length > 0 ? [...toolMessages, { role: 'user', content: parts }] : toolMessages;
}

function assistantMessage(blocks: AnthropicContentBlockParam[], field: string): OpenAIMessageParam {
  const texts: string[] = [];
  const toolCalls: OpenAIToolCall[] = [];
  blocks.forEach((block, index) => {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } });
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      // Thinking is the provider's own and cannot be handed to another model; anything else is refused.
      throw new ValidationError(`${field}[${index}]`, `Content of type ${block.type} is not supported by this model`);
    }
  });
  return compact({
    role: 'assistant' as const,
    content: texts.length > 0 ? texts.join('') : null,
    tool_calls: toolCalls.length > 0 ? toolCalls : undefined,
  });
}

function translateMessage(message: AnthropicMessageParam, field: string): OpenAIMessageParam[] {
  const { role, content } = message;
  if (role === 'system') {
    return [{ role: 'system', content: typeof content === 'string' ? content : content.map(({ text }) => ({ type: 'text', text })) }];
  }
  if (typeof content === 'string') return [{ role, content }];
  return role === 'user' ? userMessages(content, `${field}.content`) : [assistantMessage(content, `${field}.content`)];
}

function translateTool(tool: AnthropicToolUnion, index: number): OpenAITool {
  if (!('input_schema' in tool)) {
    throw new ValidationError(`tools[${index}]`, `Server tools (${tool.type}) are not available with this model`);
  }
  return {
    type: 'function',
    function: compact({ name: tool.name, description: tool.description, parameters: tool.input_schema, strict: tool.strict }),
  };
}

function translateToolChoice(choice: AnthropicToolChoice): OpenAIToolChoice {
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: choice.name } };
  }
}

function translateRequest(body: AnthropicMessagesRequest): OpenAIChatRequest {
  const system: OpenAIMessageParam[] = body.system
    ? [{ role: 'system', content: typeof body.system === 'string' ? body.system : body.system.map(({ text }) => ({ type: 'text', text })) }]
    : [];
  const messages = body.messages.flatMap((message, index) => translateMessage(message, `messages[${index}]`));
  const format = body.output_config?.format;
  const choice = body.tool_choice;
  const serial = choice !== undefined && 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true;
  return compact({
    model: body.model,
    messages: [...system, ...messages],
    max_completion_tokens: body.max_tokens,
    stop: body.stop_sequences,
    temperature: body.temperature,
    top_p: body.top_p,
    tools: body.tools?.map(translateTool),
    tool_choice: choice && translateToolChoice(choice),
    parallel_tool_calls: serial && body.tools?.length ? false : undefined,
    response_format: format
      ? { type: 'json_schema' as const, json_schema: { name: 'output', schema: format.schema, strict: true } }
      : undefined,
    user: body.metadata?.user_id ?? undefined,
    stream: body.stream ? true : undefined,
    stream_options: body.stream ? { include_usage: true } : undefined,
  });
}

// ─── answer ─────────────────────────────────────────────────────────────────

const STOP_REASONS: Record<NonNullable<OpenAIFinishReason>, AnthropicStopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/**
 * OpenAI usage → Anthropic usage. OpenAI's prompt_tokens includes cached tokens;
 * Anthropic's input_tokens excludes cache reads, which it reports apart. OpenAI does
 * not report cache writes.
 */
function anthropicUsageFromOpenAI(usage: OpenAIUsage | null | undefined): AnthropicUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
    cache_creation: null,
    output_tokens: usage?.completion_tokens ?? 0,
    output_tokens_details: reasoning === undefined ? null : { thinking_tokens: reasoning },
    inference_geo: null,
    server_tool_use: null,
    service_tier: null,
    speed: null,
  };
}

function translateResponse(answer: OpenAIChatCompletion, context: { requestedModel: string }): AnthropicMessage {
  const choice = answer.choices[0];
  const text = choice?.message.content ?? choice?.message.refusal ?? '';
  const content: AnthropicContentBlock[] = text === '' ? [] : [{ type: 'text', text, citations: null }];
  for (const call of choice?.message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseToolArguments(call.function.arguments),
      caller: { type: 'direct' },
    });
  }
  return {
    id: answer.id,
    type: 'message',
    role: 'assistant',
    model: context.requestedModel,
    content,
    stop_reason: choice ? STOP_REASONS[choice.finish_reason] : 'end_turn',
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: anthropicUsageFromOpenAI(answer.usage),
  };
}

// ─── stream ─────────────────────────────────────────────────────────────────

const streamEvent = (data: AnthropicRawStreamEvent): StreamEvent => ({ event: data.type, data });

function deltaUsage(usage: OpenAIUsage | undefined): AnthropicDeltaUsage {
  const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens, output_tokens, output_tokens_details } =
    anthropicUsageFromOpenAI(usage);
  return { input_tokens, cache_read_input_tokens, cache_creation_input_tokens, output_tokens, output_tokens_details, server_tool_use: null };
}

/**
 * chat.completion.chunk events → the Anthropic event sequence: message_start (usage 0:
 * OpenAI reports it only at the end), a content block per text run and per tool call,
 * then message_delta with the stop reason and the real usage, and message_stop. Those
 * two wait for the usage chunk the request asked for (or for the end of the stream).
 */
function translateStream(context: { requestedModel: string }): StreamTranslator {
  let started = false;
  let finished = false;
  let openBlock: { index: number; type: 'text' | 'tool_use' } | undefined;
  let blockCount = 0;
  const blockByToolCall = new Map<number, number>();
  let stopReason: AnthropicStopReason | undefined;
  let usage: OpenAIUsage | undefined;

  const closeOpenBlock = (): StreamEvent[] => {
    if (!openBlock) return [];
    const stop = streamEvent({ type: 'content_block_stop', index: openBlock.index });
    openBlock = undefined;
    return [stop];
  };
  const openNewBlock = (type: 'text' | 'tool_use'): number => {
    openBlock = { index: blockCount++, type };
    return openBlock.index;
  };
  const finish = (): StreamEvent[] => {
    finished = true;
    return [
      ...closeOpenBlock(),
      streamEvent({
        type: 'message_delta',
        delta: { stop_reason: stopReason ?? 'end_turn', stop_sequence: null, stop_details: null, container: null },
        usage: deltaUsage(usage),
      }),
      streamEvent({ type: 'message_stop' }),
    ];
  };

  const messageStart = (id: string): StreamEvent =>
    streamEvent({
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: context.requestedModel,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        diagnostics: null,
        usage: anthropicUsageFromOpenAI(undefined),
      },
    });

  const textEvents = (text: string): StreamEvent[] => {
    const out = openBlock?.type === 'text' ? [] : closeOpenBlock();
    if (!openBlock) {
      const index = openNewBlock('text');
      out.push(streamEvent({ type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: null } }));
    }
    out.push(streamEvent({ type: 'content_block_delta', index: openBlock!.index, delta: { type: 'text_delta', text } }));
    return out;
  };

  const toolCallEvents = (call: NonNullable<OpenAIChatChunk['choices'][number]['delta']['tool_calls']>[number]): StreamEvent[] => {
    const out: StreamEvent[] = [];
    let index = blockByToolCall.get(call.index);
    if (index === undefined) {
      out.push(...closeOpenBlock());
      index = openNewBlock('tool_use');
      blockByToolCall.set(call.index, index);
      const block = { type: 'tool_use' as const, id: call.id ?? '', name: call.function?.name ?? '', input: {}, caller: { type: 'direct' as const } };
      out.push(streamEvent({ type: 'content_block_start', index, content_block: block }));
    }
    const partialJson = call.function?.arguments;
    if (partialJson) {
      out.push(streamEvent({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partialJson } }));
    }
    return out;
  };

  return {
    push({ data }) {
      if (data === '[DONE]' || finished) return [];
      if (typeof data === 'object' && data !== null && 'error' in data) {
        const message = upstreamErrorMessage(200, data);
        return [{ event: 'error', data: { type: 'error', error: { type: 'api_error', message } } satisfies AnthropicErrorBody }];
      }
      const chunk = data as OpenAIChatChunk;
      const out: StreamEvent[] = [];
      if (!started) {
        started = true;
        out.push(messageStart(chunk.id));
      }
      for (const choice of chunk.choices) {
        const text = choice.delta.content || choice.delta.refusal;
        if (text) out.push(...textEvents(text));
        for (const call of choice.delta.tool_calls ?? []) out.push(...toolCallEvents(call));
        if (choice.finish_reason) {
          stopReason = STOP_REASONS[choice.finish_reason];
          out.push(...closeOpenBlock());
        }
      }
      if (chunk.usage) {
        usage = chunk.usage;
        if (stopReason) out.push(...finish());
      }
      return out;
    },
    end() {
      return started && !finished ? finish() : [];
    },
  };
}

// ─── errors ─────────────────────────────────────────────────────────────────

/** OpenAI's error body → Anthropic's, its type named from the HTTP status as Anthropic would. */
function translateError(status: number, body: unknown): AnthropicErrorBody {
  return { type: 'error', error: { type: anthropicErrorType(status), message: upstreamErrorMessage(status, body) } };
}

export const anthropicToOpenAI: FormatTranslator<
  AnthropicMessagesRequest,
  OpenAIChatRequest,
  AnthropicMessage,
  OpenAIChatCompletion
> = {
  request: translateRequest,
  response: translateResponse,
  stream: translateStream,
  error: translateError,
};
