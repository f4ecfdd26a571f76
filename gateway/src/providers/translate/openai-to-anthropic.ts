/**
 * A caller speaking OpenAI Chat Completions, served by an Anthropic Messages model:
 * the request goes OpenAI → Anthropic, the answer, stream and errors come back
 * Anthropic → OpenAI.
 */
import { ValidationError } from '@spendgate/core';
import { anthropicErrorType } from '../formats/anthropic.ts';
import type {
  AnthropicContentBlockParam,
  AnthropicImageBlockParam,
  AnthropicMessage,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicStopReason,
  AnthropicStreamEvent,
  AnthropicTextBlockParam,
  AnthropicToolChoice,
  AnthropicUsageReport,
} from './anthropic-types.ts';
import type {
  OpenAIChatChunk,
  OpenAIChatCompletion,
  OpenAIChatRequest,
  OpenAIChunkDelta,
  OpenAIContentPart,
  OpenAIErrorBody,
  OpenAIFinishReason,
  OpenAIMessageParam,
  OpenAIToolCall,
  OpenAIUsage,
} from './openai-types.ts';
import {
  compact,
  isRecord,
  parseBase64DataUrl,
  parseToolArguments,
  textsOf,
  unixSeconds,
  upstreamErrorMessage,
} from './shared.ts';
import type { FormatTranslator, StreamEvent, StreamTranslator } from './types.ts';

/** Anthropic requires max_tokens; OpenAI callers often leave it out. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];
const isImageMediaType = (value: string): value is ImageMediaType =>
  (IMAGE_MEDIA_TYPES as readonly string[]).includes(value);

// ─── request ────────────────────────────────────────────────────────────────

/** Text blocks for the non-empty texts (Anthropic rejects empty text blocks). */
function textBlocks(texts: string[]): AnthropicTextBlockParam[] {
  return texts.filter((text) => text !== '').map((text) => ({ type: 'text', text }));
}

function imageBlock(url: string, field: string): AnthropicImageBlockParam {
  const inline = parseBase64DataUrl(url);
  if (!inline) return { type: 'image', source: { type: 'url', url } };
  if (!isImageMediaType(inline.mediaType)) {
    throw new ValidationError(field, `Image type ${inline.mediaType} is not supported by this model`);
  }
  return { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } };
}

function userBlock(part: OpenAIContentPart, field: string): AnthropicContentBlockParam {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return imageBlock(part.image_url.url, `${field}.image_url`);
    case 'file': {
      const inline = parseBase64DataUrl(part.file.file_data ?? '');
      if (inline?.mediaType !== 'application/pdf') {
        throw new ValidationError(field, 'Only PDF files sent inline as file_data are supported by this model');
      }
      return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: inline.data } };
    }
    case 'input_audio':
      throw new ValidationError(field, 'Audio input is not supported by this model');
  }
}

function userBlocks(content: string | OpenAIContentPart[], field: string): AnthropicContentBlockParam[] {
  if (typeof content === 'string') return textBlocks([content]);
  return content.map((part, index) => userBlock(part, `${field}[${index}]`));
}

function toolUseBlocks(toolCalls: OpenAIToolCall[], field: string): AnthropicContentBlockParam[] {
  return toolCalls.map((call, index) => {
    if (call.type !== 'function') {
      throw new ValidationError(`${field}[${index}]`, 'Custom tool calls are not supported by this model');
    }
    return {
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseToolArguments(call.function.arguments),
    };
  });
}

/** Appends a turn, merging it into the previous one when the role repeats (Anthropic alternates roles). */
function appendTurn(
  turns: AnthropicMessageParam[],
  role: 'user' | 'assistant',
  blocks: AnthropicContentBlockParam[],
): void {
  const last = turns.at(-1);
  if (last?.role === role && Array.isArray(last.content)) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}

function translateMessages(messages: OpenAIMessageParam[]): {
  system: AnthropicTextBlockParam[];
  turns: AnthropicMessageParam[];
} {
  const system: AnthropicTextBlockParam[] = [];
  const turns: AnthropicMessageParam[] = [];
  messages.forEach((message, index) => {
    const field = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocks(textsOf(message.content)));
        break;
      case 'user':
        appendTurn(turns, 'user', userBlocks(message.content, `${field}.content`));
        break;
      case 'assistant': {
        if (message.function_call) {
          throw new ValidationError(`${field}.function_call`, 'Use tool_calls: function_call is not supported by this model');
        }
        const toolUses = toolUseBlocks(message.tool_calls ?? [], `${field}.tool_calls`);
        appendTurn(turns, 'assistant', [...textBlocks(textsOf(message.content)), ...toolUses]);
        break;
      }
      case 'tool': {
        const content = textsOf(message.content).join('');
        appendTurn(turns, 'user', [{ type: 'tool_result', tool_use_id: message.tool_call_id, content }]);
        break;
      }
      case 'function':
        throw new ValidationError(`${field}.role`, 'Use tool messages: the function role is not supported by this model');
    }
  });
  return { system, turns };
}

function translateToolChoice(body: OpenAIChatRequest): AnthropicToolChoice | undefined {
  const serial = body.parallel_tool_calls === false;
  const choice = body.tool_choice ?? (serial && body.tools?.length ? 'auto' : undefined);
  if (choice === undefined) return undefined;
  if (choice === 'none') return { type: 'none' };
  const parallelism = serial ? { disable_parallel_tool_use: true } : {};
  if (choice === 'auto') return { type: 'auto', ...parallelism };
  if (choice === 'required') return { type: 'any', ...parallelism };
  if (choice.type === 'function') return { type: 'tool', name: choice.function.name, ...parallelism };
  throw new ValidationError('tool_choice', `tool_choice of type ${choice.type} is not supported by this model`);
}

function translateRequest(body: OpenAIChatRequest): AnthropicMessagesRequest {
  if (body.n != null && body.n > 1) {
    throw new ValidationError('n', 'This model returns one choice per request: n must be 1');
  }
  const { system, turns } = translateMessages(body.messages);
  const tools = body.tools?.map((tool, index) => {
    if (tool.type !== 'function') {
      throw new ValidationError(`tools[${index}]`, 'Custom tools are not supported by this model');
    }
    const { name, description, parameters } = tool.function;
    return compact({ name, description, input_schema: { ...parameters, type: 'object' as const } });
  });
  const stop = typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined);
  const format = body.response_format?.type === 'json_schema'
    ? { type: 'json_schema' as const, schema: body.response_format.json_schema.schema ?? {} }
    : undefined;
  const userId = body.safety_identifier ?? body.user;
  return compact({
    model: body.model,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    system: system.length > 0 ? system : undefined,
    messages: turns,
    tools,
    tool_choice: translateToolChoice(body),
    stop_sequences: stop,
    temperature: body.temperature ?? undefined,
    top_p: body.top_p ?? undefined,
    metadata: userId ? { user_id: userId } : undefined,
    output_config: format ? { format } : undefined,
    stream: body.stream ? true : undefined,
  });
}

// ─── answer ─────────────────────────────────────────────────────────────────

const FINISH_REASONS: Record<AnthropicStopReason, OpenAIFinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

const finishReason = (stopReason: AnthropicStopReason | null): OpenAIFinishReason =>
  stopReason ? FINISH_REASONS[stopReason] : 'stop';

/**
 * Anthropic usage → OpenAI usage. Anthropic's input_tokens excludes cache reads and
 * writes; OpenAI's prompt_tokens includes everything, with cache reads repeated in
 * prompt_tokens_details.cached_tokens.
 */
function openAIUsageFromAnthropic(usage: AnthropicUsageReport): OpenAIUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const promptTokens = (usage.input_tokens ?? 0) + cacheRead + (usage.cache_creation_input_tokens ?? 0);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.output_tokens,
    total_tokens: promptTokens + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: cacheRead },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.thinking_tokens ?? 0 },
  };
}

function translateResponse(answer: AnthropicMessage, context: { requestedModel: string }): OpenAIChatCompletion {
  const texts = answer.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  const toolCalls = answer.content.flatMap((block) =>
    block.type === 'tool_use'
      ? [{ id: block.id, type: 'function' as const, function: { name: block.name, arguments: JSON.stringify(block.input) } }]
      : [],
  );
  return {
    id: answer.id,
    object: 'chat.completion',
    created: unixSeconds(),
    model: context.requestedModel,
    choices: [
      {
        index: 0,
        message: compact({
          role: 'assistant' as const,
          content: texts.length > 0 ? texts.join('') : null,
          refusal: null,
          tool_calls: toolCalls.length > 0 ? toolCalls : undefined,
        }),
        finish_reason: finishReason(answer.stop_reason),
        logprobs: null,
      },
    ],
    usage: openAIUsageFromAnthropic(answer.usage),
  };
}

// ─── stream ─────────────────────────────────────────────────────────────────

/**
 * Anthropic events → chat.completion.chunk events: a role chunk at message_start, text
 * and tool-call deltas as they come, the finish chunk at the first message_delta with a
 * stop reason, and at message_stop one last chunk with `choices: []` carrying usage
 * (sent by OpenAI only when stream_options.include_usage is set; the gateway decides).
 */
function translateStream(context: { requestedModel: string }): StreamTranslator {
  const created = unixSeconds();
  let id = '';
  let started = false;
  let finished = false;
  let usageSent = false;
  let usage: AnthropicUsageReport = { output_tokens: 0 };
  const toolIndexByBlock = new Map<number, number>();

  const chunk = (choices: OpenAIChatChunk['choices'], extra: Partial<OpenAIChatChunk> = {}): StreamEvent => {
    const data: OpenAIChatChunk = { id, object: 'chat.completion.chunk', created, model: context.requestedModel, choices, ...extra };
    return { data };
  };
  const deltaChunk = (delta: OpenAIChunkDelta): StreamEvent[] => [chunk([{ index: 0, delta, finish_reason: null }])];
  const usageChunk = (): StreamEvent[] => {
    if (!started || usageSent) return [];
    usageSent = true;
    return [chunk([], { usage: openAIUsageFromAnthropic(usage) })];
  };

  return {
    push({ data }) {
      const event = data as AnthropicStreamEvent;
      switch (event.type) {
        case 'message_start':
          started = true;
          id = event.message.id;
          usage = event.message.usage;
          return deltaChunk({ role: 'assistant', content: '' });
        case 'content_block_start': {
          const block = event.content_block;
          if (block.type === 'text' && block.text !== '') return deltaChunk({ content: block.text });
          if (block.type !== 'tool_use') return [];
          const toolIndex = toolIndexByBlock.size;
          toolIndexByBlock.set(event.index, toolIndex);
          return deltaChunk({
            tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }],
          });
        }
        case 'content_block_delta': {
          const delta = event.delta;
          if (delta.type === 'text_delta') return deltaChunk({ content: delta.text });
          const toolIndex = toolIndexByBlock.get(event.index);
          if (delta.type !== 'input_json_delta' || delta.partial_json === '' || toolIndex === undefined) return [];
          return deltaChunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] });
        }
        case 'message_delta': {
          // Counts here are cumulative totals; the input counts only when present (as the SDK does).
          usage = {
            ...usage,
            output_tokens: event.usage.output_tokens,
            ...(event.usage.input_tokens != null && { input_tokens: event.usage.input_tokens }),
            ...(event.usage.cache_read_input_tokens != null && { cache_read_input_tokens: event.usage.cache_read_input_tokens }),
            ...(event.usage.cache_creation_input_tokens != null && {
              cache_creation_input_tokens: event.usage.cache_creation_input_tokens,
            }),
            ...(event.usage.output_tokens_details != null && { output_tokens_details: event.usage.output_tokens_details }),
          };
          if (finished || event.delta.stop_reason === null) return [];
          finished = true;
          return [chunk([{ index: 0, delta: {}, finish_reason: finishReason(event.delta.stop_reason) }])];
        }
        case 'message_stop':
          return usageChunk();
        case 'error':
          return [{ data: openAIErrorBody(event.error.message, event.error.type) }];
        default:
          // ping, content_block_stop, thinking and signature deltas have no OpenAI counterpart.
          return [];
      }
    },
    end: usageChunk,
  };
}

// ─── errors ─────────────────────────────────────────────────────────────────

function openAIErrorBody(message: string, type: string): OpenAIErrorBody {
  return { error: { message, type, param: null, code: null } };
}

/** Anthropic's `{type:'error', error:{type, message}}` → OpenAI's error body, keeping Anthropic's error type. */
function translateError(status: number, body: unknown): OpenAIErrorBody {
  const error = isRecord(body) ? body.error : undefined;
  const type = isRecord(error) && typeof error.type === 'string' ? error.type : anthropicErrorType(status);
  return openAIErrorBody(upstreamErrorMessage(status, body), type);
}

export const openAIToAnthropic: FormatTranslator<
  OpenAIChatRequest,
  AnthropicMessagesRequest,
  OpenAIChatCompletion,
  AnthropicMessage
> = {
  request: translateRequest,
  response: translateResponse,
  stream: translateStream,
  error: translateError,
};
