/**
 * A caller speaking OpenAI Chat Completions, served by a Google Gemini model through
 * generateContent / streamGenerateContent?alt=sse. The model and the streaming choice
 * live in the URL, so the translated body carries neither.
 */
import { ValidationError } from '@spendgate/core';
import { anthropicErrorType } from '../formats/anthropic.ts';
import type {
  GeminiCandidate,
  GeminiContent,
  GeminiFinishReason,
  GeminiFunctionCallingMode,
  GeminiPart,
  GeminiRequest,
  GeminiResponse,
  GeminiUsageMetadata,
} from './gemini-types.ts';
import type {
  OpenAIChatChunk,
  OpenAIChatCompletion,
  OpenAIChatRequest,
  OpenAIChunkDelta,
  OpenAIContentPart,
  OpenAIErrorBody,
  OpenAIFinishReason,
  OpenAIFunctionToolCall,
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

// ─── request ────────────────────────────────────────────────────────────────

function userPart(part: OpenAIContentPart, field: string): GeminiPart {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url': {
      const inline = parseBase64DataUrl(part.image_url.url);
      return inline
        ? { inlineData: { mimeType: inline.mediaType, data: inline.data } }
        : { fileData: { fileUri: part.image_url.url } };
    }
    case 'input_audio':
      return { inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data } };
    case 'file': {
      const inline = parseBase64DataUrl(part.file.file_data ?? '');
      if (!inline) throw new ValidationError(field, 'Files must be sent inline as a base64 data URL in file_data for this model');
      return { inlineData: { mimeType: inline.mediaType, data: inline.data } };
    }
  }
}

function functionCallParts(toolCalls: OpenAIToolCall[], field: string): GeminiPart[] {
  return toolCalls.map((call, index) => {
    if (call.type !== 'function') {
      throw new ValidationError(`${field}[${index}]`, 'Custom tool calls are not supported by this model');
    }
    return { functionCall: { name: call.function.name, args: parseToolArguments(call.function.arguments) } };
  });
}

/** Appends a turn, merging it into the previous one when the role repeats (parallel results share a turn). */
function appendContent(contents: GeminiContent[], role: GeminiContent['role'], parts: GeminiPart[]): void {
  const last = contents.at(-1);
  if (last?.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

function translateMessages(messages: OpenAIMessageParam[]): { system: string[]; contents: GeminiContent[] } {
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  // A Gemini function response names its function; an OpenAI tool message names only the call id.
  const functionNameByCallId = new Map<string, string>();
  messages.forEach((message, index) => {
    const field = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textsOf(message.content).filter((text) => text !== ''));
        break;
      case 'user': {
        const parts = typeof message.content === 'string'
          ? [{ text: message.content }]
          : message.content.map((part, partIndex) => userPart(part, `${field}.content[${partIndex}]`));
        appendContent(contents, 'user', parts);
        break;
      }
      case 'assistant': {
        if (message.function_call) {
          throw new ValidationError(`${field}.function_call`, 'Use tool_calls: function_call is not supported by this model');
        }
        for (const call of message.tool_calls ?? []) {
          if (call.type === 'function') functionNameByCallId.set(call.id, call.function.name);
        }
        const texts = textsOf(message.content).filter((text) => text !== '').map((text) => ({ text }));
        appendContent(contents, 'model', [...texts, ...functionCallParts(message.tool_calls ?? [], `${field}.tool_calls`)]);
        break;
      }
      case 'tool': {
        const name = functionNameByCallId.get(message.tool_call_id);
        if (name === undefined) {
          throw new ValidationError(`${field}.tool_call_id`, `No earlier assistant tool call has the id ${message.tool_call_id}`);
        }
        const response = { content: textsOf(message.content).join('') };
        appendContent(contents, 'user', [{ functionResponse: { name, response } }]);
        break;
      }
      case 'function':
        throw new ValidationError(`${field}.role`, 'Use tool messages: the function role is not supported by this model');
    }
  });
  return { system, contents };
}

function translateToolConfig(body: OpenAIChatRequest): GeminiRequest['toolConfig'] {
  const choice = body.tool_choice;
  if (choice === undefined || choice === null) return undefined;
  const modes: Record<'auto' | 'required' | 'none', GeminiFunctionCallingMode> = { auto: 'AUTO', required: 'ANY', none: 'NONE' };
  if (typeof choice === 'string') return { functionCallingConfig: { mode: modes[choice] } };
  if (choice.type === 'function') {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  }
  throw new ValidationError('tool_choice', `tool_choice of type ${choice.type} is not supported by this model`);
}

function translateRequest(body: OpenAIChatRequest): GeminiRequest {
  const { system, contents } = translateMessages(body.messages);
  const declarations = body.tools?.map((tool, index) => {
    if (tool.type !== 'function') {
      throw new ValidationError(`tools[${index}]`, 'Custom tools are not supported by this model');
    }
    const { name, description, parameters } = tool.function;
    return compact({ name, description, parametersJsonSchema: parameters });
  });
  const format = body.response_format;
  const generationConfig = compact({
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    stopSequences: typeof body.stop === 'string' ? [body.stop] : (body.stop ?? undefined),
    candidateCount: body.n ?? undefined,
    presencePenalty: body.presence_penalty ?? undefined,
    frequencyPenalty: body.frequency_penalty ?? undefined,
    seed: body.seed ?? undefined,
    responseMimeType: format && format.type !== 'text' ? 'application/json' : undefined,
    responseJsonSchema: format?.type === 'json_schema' ? format.json_schema.schema : undefined,
  });
  return compact({
    contents,
    systemInstruction: system.length > 0 ? { parts: system.map((text) => ({ text })) } : undefined,
    tools: declarations?.length ? [{ functionDeclarations: declarations }] : undefined,
    toolConfig: translateToolConfig(body),
    generationConfig: Object.keys(generationConfig).length > 0 ? generationConfig : undefined,
  });
}

// ─── answer ─────────────────────────────────────────────────────────────────

const FILTERED: ReadonlySet<GeminiFinishReason> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
]);

/** Gemini says STOP after function calls too; OpenAI says tool_calls. */
function finishReason(reason: GeminiFinishReason, calledTools: boolean): OpenAIFinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/** The candidates, or for a prompt Gemini blocked outright (no candidates), one filtered candidate. */
function candidatesOf(response: GeminiResponse): GeminiCandidate[] {
  if (response.candidates?.length) return response.candidates;
  return response.promptFeedback?.blockReason ? [{ finishReason: 'SAFETY' }] : [];
}

/** Gemini's function calls may carry no id; OpenAI's must, so one is made from the response id. */
function toolCallId(callId: string | undefined, responseId: string | undefined, position: number): string {
  return callId ?? (responseId ? `call_${responseId}_${position}` : `call_${position}`);
}

/** The visible text and the function calls of a candidate's parts (thought summaries left out). */
function splitParts(parts: GeminiPart[], responseId: string | undefined, firstCall: number) {
  const texts: string[] = [];
  const toolCalls: OpenAIFunctionToolCall[] = [];
  for (const part of parts) {
    if ('text' in part && !part.thought) texts.push(part.text);
    if ('functionCall' in part) {
      const { id, name, args } = part.functionCall;
      toolCalls.push({
        id: toolCallId(id, responseId, firstCall + toolCalls.length),
        type: 'function',
        function: { name, arguments: JSON.stringify(args ?? {}) },
      });
    }
  }
  return { text: texts.join(''), toolCalls };
}

/**
 * Gemini usage → OpenAI usage. promptTokenCount already includes the cached content;
 * thinking tokens are counted apart by Gemini and inside completion_tokens by OpenAI.
 */
function openAIUsageFromGemini(usage: GeminiUsageMetadata): OpenAIUsage {
  const promptTokens = usage.promptTokenCount ?? 0;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const completionTokens = (usage.candidatesTokenCount ?? 0) + thoughts;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

const completionId = (response: GeminiResponse): string => `chatcmpl-${response.responseId ?? 'gemini'}`;

function translateResponse(answer: GeminiResponse, context: { requestedModel: string }): OpenAIChatCompletion {
  return compact({
    id: completionId(answer),
    object: 'chat.completion' as const,
    created: unixSeconds(),
    model: context.requestedModel,
    choices: candidatesOf(answer).map((candidate, position) => {
      const { text, toolCalls } = splitParts(candidate.content?.parts ?? [], answer.responseId, 0);
      return {
        index: candidate.index ?? position,
        message: compact({
          role: 'assistant' as const,
          content: text === '' ? null : text,
          refusal: null,
          tool_calls: toolCalls.length > 0 ? toolCalls : undefined,
        }),
        finish_reason: finishReason(candidate.finishReason ?? 'STOP', toolCalls.length > 0),
        logprobs: null,
      };
    }),
    usage: answer.usageMetadata && openAIUsageFromGemini(answer.usageMetadata),
  });
}

// ─── stream ─────────────────────────────────────────────────────────────────

/**
 * streamGenerateContent events (whole responses with incremental parts) → chunks: a
 * role chunk when a candidate first speaks, its text, each function call as one
 * complete tool-call delta, its finish chunk; and, since Gemini reports cumulative
 * usage on every event, one usage chunk (`choices: []`) at end().
 */
function translateStream(context: { requestedModel: string }): StreamTranslator {
  const created = unixSeconds();
  let id = '';
  let usage: GeminiUsageMetadata | undefined;
  const toolCallsByCandidate = new Map<number, number>();

  const chunk = (choices: OpenAIChatChunk['choices'], extra: Partial<OpenAIChatChunk> = {}): StreamEvent => {
    const data: OpenAIChatChunk = { id, object: 'chat.completion.chunk', created, model: context.requestedModel, choices, ...extra };
    return { data };
  };
  const deltaChunk = (index: number, delta: OpenAIChunkDelta): StreamEvent => chunk([{ index, delta, finish_reason: null }]);

  const candidateChunks = (candidate: GeminiCandidate, position: number, responseId: string | undefined): StreamEvent[] => {
    const index = candidate.index ?? position;
    const out: StreamEvent[] = [];
    const callsSoFar = toolCallsByCandidate.get(index);
    if (callsSoFar === undefined) out.push(deltaChunk(index, { role: 'assistant', content: '' }));
    const { text, toolCalls } = splitParts(candidate.content?.parts ?? [], responseId, callsSoFar ?? 0);
    const calls = (callsSoFar ?? 0) + toolCalls.length;
    toolCallsByCandidate.set(index, calls);
    if (text !== '') out.push(deltaChunk(index, { content: text }));
    if (toolCalls.length > 0) {
      out.push(deltaChunk(index, { tool_calls: toolCalls.map((call, offset) => ({ index: (callsSoFar ?? 0) + offset, ...call })) }));
    }
    if (candidate.finishReason) {
      out.push(chunk([{ index, delta: {}, finish_reason: finishReason(candidate.finishReason, calls > 0) }]));
    }
    return out;
  };

  return {
    push({ data }) {
      if (isRecord(data) && isRecord(data.error)) {
        const status = typeof data.error.code === 'number' ? data.error.code : 500;
        return [{ data: translateError(status, data) }];
      }
      const response = data as GeminiResponse;
      if (id === '') id = completionId(response);
      if (response.usageMetadata) usage = response.usageMetadata;
      return candidatesOf(response).flatMap((candidate, position) => candidateChunks(candidate, position, response.responseId));
    },
    end() {
      return usage ? [chunk([], { usage: openAIUsageFromGemini(usage) })] : [];
    },
  };
}

// ─── errors ─────────────────────────────────────────────────────────────────

/** Google's `{error:{code, message, status}}` → OpenAI's error body, Google's status as the code. */
function translateError(status: number, body: unknown): OpenAIErrorBody {
  const error = isRecord(body) ? body.error : undefined;
  const code = isRecord(error) && typeof error.status === 'string' ? error.status : null;
  return { error: { message: upstreamErrorMessage(status, body), type: anthropicErrorType(status), param: null, code } };
}

export const openAIToGemini: FormatTranslator<OpenAIChatRequest, GeminiRequest, OpenAIChatCompletion, GeminiResponse> = {
  request: translateRequest,
  response: translateResponse,
  stream: translateStream,
  error: translateError,
};
