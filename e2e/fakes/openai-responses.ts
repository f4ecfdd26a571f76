/**
 * The fake OpenAI's `POST /v1/responses` (Responses API): the JSON `response` object and its
 * typed SSE stream (`event: response.created` … `response.output_text.delta` …
 * `response.completed`, each with a `sequence_number`). Served by openai-provider.ts, whose
 * module header documents the rules; this module gets the shared OpenAI pieces injected.
 */
import type { ServerResponse } from 'node:http';
import type { Response as OpenAIResponse, ResponseStreamEvent, ResponseUsage } from 'openai/resources/responses/responses';
import {
  type ControlErrorFactory,
  echoReply,
  estimatePromptTokens,
  estimateTextTokens,
  type FakeHttpError,
  isJsonObject,
  type RecordedRequest,
  readForcedUsage,
  readStreamErrorAfter,
  requestedToolCall,
  sendEventStream,
  sendJson,
  serverSentEvent,
  splitIntoTokenPieces,
} from './fake-provider-kit.ts';

/** What the Responses endpoint borrows from the OpenAI fake. */
export interface ResponsesContext {
  nextId(prefix: string): string;
  /** The model id OpenAI answers for a requested one, e.g. the dated id. */
  answeredModel(requested: string): string;
  invalidRequest(message: string, param: string | null, code?: string | null): FakeHttpError;
  controlError: ControlErrorFactory;
}

/** The Responses API refuses smaller `max_output_tokens`. */
const MIN_MAX_OUTPUT_TOKENS = 16;
const FORCED_USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cached_tokens', 'reasoning_tokens'] as const;
const STREAM_OBFUSCATION = 'fAkE0bfu5c';

/** The response as sent on the wire: the SDK adds `output_text` itself. */
type WireResponse = Omit<OpenAIResponse, 'output_text'> & { store: boolean; top_logprobs: number; max_tool_calls: null };
type OutputItem = WireResponse['output'][number];
type StreamEventType = ResponseStreamEvent['type'];
interface StreamEvent {
  type: StreamEventType;
  data: Record<string, unknown>;
}

interface ResponsesRequest {
  model: string;
  input: string | unknown[];
  instructions?: string | null;
  max_output_tokens?: number | null;
  tools?: unknown[];
  stream?: boolean;
}

type Reply =
  | { type: 'text'; itemId: string; words: string[]; truncated: boolean }
  | { type: 'function_call'; itemId: string; callId: string; name: string; argumentPieces: string[] };

export function answerResponses(request: RecordedRequest, res: ServerResponse, context: ResponsesContext): void {
  const responses = parseResponsesRequest(request.body, context);
  const forced = readForcedUsage(request.headers, FORCED_USAGE_FIELDS, context.controlError);
  const streamErrorAfter = readStreamErrorAfter(request.headers, context.controlError);
  const items = typeof responses.input === 'string' ? [{ role: 'user', content: responses.input }] : responses.input;
  const lastUserText = textOf(items.findLast((item) => isJsonObject(item) && item.role === 'user')).join(' ');
  const toolNames = (responses.tools ?? []).flatMap((tool) =>
    isJsonObject(tool) && tool.type === 'function' && typeof tool.name === 'string' ? [tool.name] : [],
  );
  const call = requestedToolCall(lastUserText, toolNames);
  const reply: Reply = call
    ? {
        type: 'function_call',
        itemId: context.nextId('fc_fake'),
        callId: context.nextId('call_fake'),
        name: call.name,
        argumentPieces: splitIntoTokenPieces(JSON.stringify(call.input)),
      }
    : { type: 'text', itemId: context.nextId('msg_fake'), ...echoReply(lastUserText, responses.max_output_tokens) };
  const inputTokens = forced.input_tokens ?? estimatePromptTokens([responses.instructions ?? '', ...items.flatMap(textOf)], items.length);
  const outputTokens = forced.output_tokens ?? (reply.type === 'text' ? reply.words.length : estimateTextTokens(reply.argumentPieces.join('')));
  const usage: ResponseUsage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: forced.cached_tokens ?? 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: forced.reasoning_tokens ?? 0 },
    total_tokens: inputTokens + outputTokens,
  };
  const finished = responseObject(responses, context, context.nextId('resp_fake'), reply, usage);
  if (responses.stream) {
    streamResponse(res, finished, reply, streamErrorAfter);
  } else {
    sendJson(res, 200, finished);
  }
}

/** The finished response, fields in the order OpenAI sends them. */
function responseObject(
  responses: ResponsesRequest,
  context: ResponsesContext,
  id: string,
  reply: Reply,
  usage: ResponseUsage,
): WireResponse {
  const createdAt = Math.floor(Date.now() / 1000);
  const incomplete = reply.type === 'text' && reply.truncated;
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status: incomplete ? 'incomplete' : 'completed',
    background: false,
    completed_at: incomplete ? null : createdAt,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: responses.instructions ?? null,
    max_output_tokens: responses.max_output_tokens ?? null,
    max_tool_calls: null,
    model: context.answeredModel(responses.model),
    output: [outputItem(reply, true)],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: true,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_logprobs: 0,
    top_p: 1,
    truncation: 'disabled',
    usage,
    metadata: {},
  };
}

/** The reply's output item, finished or as `response.output_item.added` announces it. */
function outputItem(reply: Reply, finished: boolean): OutputItem {
  if (reply.type === 'function_call') {
    return {
      id: reply.itemId,
      type: 'function_call',
      status: finished ? 'completed' : 'in_progress',
      arguments: finished ? reply.argumentPieces.join('') : '',
      call_id: reply.callId,
      name: reply.name,
    };
  }
  return {
    id: reply.itemId,
    type: 'message',
    status: finished ? (reply.truncated ? 'incomplete' : 'completed') : 'in_progress',
    content: finished ? [outputText(reply.words.join(''))] : [],
    role: 'assistant',
  };
}

function outputText(text: string) {
  return { type: 'output_text' as const, annotations: [], logprobs: [], text };
}

/**
 * created, in_progress, output_item.added, [content_part.added], one delta per word (or
 * argument piece), the matching done events, output_item.done, then completed (or incomplete).
 * With `errorAfter` = N: everything up to and including N deltas, then the socket is destroyed.
 */
function streamResponse(res: ServerResponse, finished: WireResponse, reply: Reply, errorAfter: number | undefined): void {
  const inProgress: Omit<WireResponse, 'usage'> & { usage: null } = {
    ...finished,
    status: 'in_progress',
    completed_at: null,
    incomplete_details: null,
    output: [],
    usage: null,
  };
  const position = { item_id: reply.itemId, output_index: 0 };
  const textPosition = { ...position, content_index: 0 };
  const event = (type: StreamEventType, data: Record<string, unknown>): StreamEvent => ({ type, data });
  let leading: StreamEvent[];
  let deltas: StreamEvent[];
  let itemDone: StreamEvent[];
  if (reply.type === 'text') {
    const text = reply.words.join('');
    leading = [event('response.content_part.added', { ...textPosition, part: outputText('') })];
    deltas = reply.words.map((delta) =>
      event('response.output_text.delta', { ...textPosition, delta, logprobs: [], obfuscation: STREAM_OBFUSCATION }),
    );
    itemDone = [
      event('response.output_text.done', { ...textPosition, text, logprobs: [] }),
      event('response.content_part.done', { ...textPosition, part: outputText(text) }),
    ];
  } else {
    const args = reply.argumentPieces.join('');
    leading = [];
    deltas = reply.argumentPieces.map((delta) =>
      event('response.function_call_arguments.delta', { ...position, delta, obfuscation: STREAM_OBFUSCATION }),
    );
    itemDone = [event('response.function_call_arguments.done', { ...position, name: reply.name, arguments: args })];
  }
  leading = [
    event('response.created', { response: inProgress }),
    event('response.in_progress', { response: inProgress }),
    event('response.output_item.added', { output_index: 0, item: outputItem(reply, false) }),
    ...leading,
  ];
  const closing = [
    ...itemDone,
    event('response.output_item.done', { output_index: 0, item: outputItem(reply, true) }),
    event(finished.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: finished }),
  ];
  const events = [...leading, ...deltas, ...closing].map(({ type, data }, sequence_number) =>
    serverSentEvent({ type, ...data, sequence_number }, { name: type }),
  );
  sendEventStream(res, events, {
    cutAfter: errorAfter === undefined ? undefined : leading.length + Math.min(errorAfter, deltas.length),
  });
}

function parseResponsesRequest(body: unknown, context: ResponsesContext): ResponsesRequest {
  if (!isJsonObject(body)) throw context.invalidRequest('We could not parse the JSON body of your request.', null);
  if (typeof body.model !== 'string') {
    throw context.invalidRequest("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  }
  if (typeof body.input !== 'string' && !Array.isArray(body.input)) {
    throw context.invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  }
  const maxOutputTokens = body.max_output_tokens;
  if (typeof maxOutputTokens === 'number' && maxOutputTokens < MIN_MAX_OUTPUT_TOKENS) {
    throw context.invalidRequest(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_MAX_OUTPUT_TOKENS}, but got ${maxOutputTokens} instead.`,
      'max_output_tokens',
      'integer_below_min_value',
    );
  }
  return body as unknown as ResponsesRequest;
}

/** Text of an input item: string content, its input_text/output_text parts, or a tool output. */
function textOf(item: unknown): string[] {
  if (!isJsonObject(item)) return [];
  if (item.type === 'function_call_output' && typeof item.output === 'string') return [item.output];
  if (typeof item.content === 'string') return [item.content];
  if (!Array.isArray(item.content)) return [];
  return item.content.flatMap((part) =>
    isJsonObject(part) && (part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string' ? [part.text] : [],
  );
}
