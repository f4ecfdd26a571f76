/**
 * A local fake of Anthropic's Messages API for tests, which must never reach the real provider.
 * It speaks Anthropic's wire format (message JSON, the named SSE events of a stream, error
 * bodies, `request-id`) closely enough that `@anthropic-ai/sdk` and our gateway cannot tell it
 * apart, and it answers deterministically so tests can compute costs by hand.
 *
 * Endpoints: POST /v1/messages (JSON or `stream: true`), POST /v1/messages/count_tokens,
 * GET /v1/models, GET /v1/models/{id}. Every request is recorded, headers included.
 * Auth: `x-api-key: <key>` or `Authorization: Bearer <key>` (the SDK 1.12 sends the latter),
 * and an `anthropic-version` header is required (any value).
 *
 * Deterministic rules, unless a test-control header overrides them:
 * - reply: `echo: <text of the last user message>`; one `text_delta` per word when streamed.
 * - tool use: when the request has `tools` and the last user text is `call <toolName>`,
 *   optionally followed by a JSON object, the reply is one `tool_use` block with that input
 *   (or `{}`) and stop_reason "tool_use"; streamed as `input_json_delta` pieces of 4 characters.
 * - model: `claude-haiku-4-5` → `claude-haiku-4-5-20251001`, `claude-opus-4-5` →
 *   `claude-opus-4-5-20251101`, `claude-sonnet-4-5` → `claude-sonnet-4-5-20250929`; others
 *   (e.g. `claude-sonnet-4-6`, which has no dated id) are echoed.
 * - prompt = ceil(characters of system + all message texts / 4) + 3 × messages (text of
 *   array content = its text blocks and the text of tool_result blocks; tool definitions,
 *   images and tool_use blocks count nothing). count_tokens answers this prompt.
 * - input_tokens = prompt − cache_read_input_tokens − cache_creation_input_tokens (never
 *   below 0): as in Anthropic's usage, input_tokens EXCLUDES cached tokens, so the three
 *   add up to the whole prompt. The cache numbers are 0 unless forced.
 * - output_tokens = words of the reply, cut to `max_tokens` (stop_reason "max_tokens"); for a
 *   tool call, ceil(characters of its JSON input / 4), never cut. Forced thinking tokens are
 *   added to it (output_tokens includes thinking) and reported in
 *   `output_tokens_details.thinking_tokens`, a field present only then.
 * - message_start carries the input and cache numbers with output_tokens 1; message_delta
 *   carries the final output_tokens and again the input and cache numbers (cumulative totals,
 *   as the API sends them today).
 *
 * Test-control request headers (also settable on `fake.controlHeaders` for requests that come
 * through the gateway, which forwards no such header; a request's own header wins):
 * - `x-fake-usage: {"input_tokens":1000,"output_tokens":500,"cache_read_input_tokens":200,
 *   "cache_creation":{"ephemeral_5m_input_tokens":300,"ephemeral_1h_input_tokens":100},
 *   "output_tokens_details":{"thinking_tokens":40}}` forces those numbers (any subset, nested
 *   or flat). cache_creation_input_tokens defaults to the sum
 *   of the 5m/1h split; forced alone it is all 5m.
 * - `x-fake-status: 400|401|429|500|529` answers that error in Anthropic's shape.
 * - `x-fake-stream-error-after: N` sends message_start, content_block_start, ping and N
 *   deltas, then destroys the socket; with `x-fake-stream-error-type: overloaded_error` (or
 *   another error type) it sends that `event: error` instead and ends the stream cleanly.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import {
  type ControlErrorFactory,
  echoReply,
  type FakeProvider,
  type FakeProviderOptions,
  estimatePromptTokens,
  estimateTextTokens,
  FakeHttpError,
  isJsonObject,
  type RecordedRequest,
  type RequestedToolCall,
  readForcedUsage,
  readStreamErrorAfter,
  requestedToolCall,
  sendEventStream,
  sendJson,
  sequentialIds,
  serverSentEvent,
  singleHeader,
  splitIntoTokenPieces,
  startFakeProviderServer,
  throwForcedStatus,
} from './fake-provider-kit.ts';

export type { RecordedRequest } from './fake-provider-kit.ts';

/** `url`: Base URL without `/v1`, as `@anthropic-ai/sdk` takes it. */
export type FakeAnthropic = FakeProvider;
export type FakeAnthropicOptions = FakeProviderOptions;

const FORCED_USAGE_FIELDS = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
  'ephemeral_5m_input_tokens',
  'ephemeral_1h_input_tokens',
  'thinking_tokens',
] as const;
type ForcedUsage = Partial<Record<(typeof FORCED_USAGE_FIELDS)[number], number>>;

const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
] as const;
export type AnthropicErrorType = (typeof ERROR_TYPES)[number];

const DATED_MODEL_IDS = new Map([
  ['claude-haiku-4-5', 'claude-haiku-4-5-20251001'],
  ['claude-opus-4-5', 'claude-opus-4-5-20251101'],
  ['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929'],
]);

/** Newest first, as Anthropic lists them. */
const LISTED_MODELS = [
  { type: 'model', id: 'claude-sonnet-4-6', display_name: 'Claude Sonnet 4.6', created_at: '2026-02-17T00:00:00Z' },
  { type: 'model', id: 'claude-opus-4-5-20251101', display_name: 'Claude Opus 4.5', created_at: '2025-11-24T00:00:00Z' },
  { type: 'model', id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z' },
  { type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
] as const;

/** An error in Anthropic's shape; the server adds the body's `request_id`. */
function anthropicError(
  status: number,
  type: AnthropicErrorType,
  message: string,
  headers: Record<string, string> = {},
): FakeHttpError {
  return new FakeHttpError(status, { type: 'error', error: { type, message } }, headers);
}

const FORCED_ERRORS = new Map<string, () => FakeHttpError>([
  ['400', () => anthropicError(400, 'invalid_request_error', 'Invalid request (forced by x-fake-status).')],
  ['401', () => anthropicError(401, 'authentication_error', 'invalid x-api-key (forced by x-fake-status)')],
  [
    '429',
    () =>
      anthropicError(
        429,
        'rate_limit_error',
        'This request would exceed the rate limit for your organization of 50 requests per minute. (forced by x-fake-status)',
        { 'retry-after': '1' },
      ),
  ],
  ['500', () => anthropicError(500, 'api_error', 'Internal server error (forced by x-fake-status)')],
  ['529', () => anthropicError(529, 'overloaded_error', 'Overloaded (forced by x-fake-status)')],
]);

const testControlError: ControlErrorFactory = (header, requirement) =>
  anthropicError(400, 'invalid_request_error', `Fake Anthropic: header ${header} ${requirement}.`);

interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: { role: string; content: unknown }[];
  system?: unknown;
  tools?: unknown[];
  stream?: boolean;
}

type ReplyBlock =
  | { type: 'text'; words: string[] }
  | { type: 'tool_use'; id: string; call: RequestedToolCall; jsonPieces: string[] };

interface MessageAnswer {
  id: string;
  model: string;
  block: ReplyBlock;
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use';
  usage: AnthropicUsage;
}

interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
  output_tokens_details?: { thinking_tokens: number };
  service_tier: 'standard';
  inference_geo: string;
}

/**
 * Starts the fake on 127.0.0.1 with a free port.
 * @example
 * const fake = await startFakeAnthropic();
 * const client = new Anthropic({ baseURL: fake.url, apiKey: 'sk-ant-fake-upstream', maxRetries: 0 });
 * await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
 * await fake.close();
 */
export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const apiKey = options.apiKey ?? 'sk-ant-fake-upstream';
  const nextId = sequentialIds();
  return startFakeProviderServer({
    responseHeaders: () => ({ 'request-id': nextId('req_fake') }),
    internalError: (message) => anthropicError(500, 'api_error', message),
    completeErrorBody: (body, headers) => (isJsonObject(body) ? { ...body, request_id: headers['request-id'] } : body),
    answer(request, res) {
      checkAuthentication(request.headers, apiKey);
      throwForcedStatus(request.headers, FORCED_ERRORS, testControlError);
      const { pathname } = new URL(request.path, 'http://fake');
      const route = `${request.method} ${pathname}`;
      const modelId = /^GET \/v1\/models\/([^/]+)$/.exec(route)?.[1];
      if (route === 'POST /v1/messages') {
        answerMessage(request, res, nextId);
      } else if (route === 'POST /v1/messages/count_tokens') {
        const { input_tokens: forcedInputTokens } = readForcedUsage(request.headers, FORCED_USAGE_FIELDS, testControlError);
        sendJson(res, 200, { input_tokens: forcedInputTokens ?? countPromptTokens(parseMessagesRequest(request.body, false)) });
      } else if (route === 'GET /v1/models') {
        sendJson(res, 200, {
          data: LISTED_MODELS,
          has_more: false,
          first_id: LISTED_MODELS[0].id,
          last_id: LISTED_MODELS.at(-1)?.id,
        });
      } else if (modelId !== undefined) {
        const model = LISTED_MODELS.find((listed) => listed.id === modelId);
        if (!model) throw anthropicError(404, 'not_found_error', `model: ${modelId}`);
        sendJson(res, 200, model);
      } else {
        throw anthropicError(404, 'not_found_error', 'Not Found');
      }
    },
  });
}

function checkAuthentication(headers: IncomingHttpHeaders, apiKey: string): void {
  const authorization = singleHeader(headers, 'authorization');
  const presentedKeys = [
    singleHeader(headers, 'x-api-key'),
    authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined,
  ].filter((key) => key !== undefined && key !== '');
  if (presentedKeys.length === 0) throw anthropicError(401, 'authentication_error', 'x-api-key header is required');
  if (!presentedKeys.includes(apiKey)) throw anthropicError(401, 'authentication_error', 'invalid x-api-key');
  if (singleHeader(headers, 'anthropic-version') === undefined) {
    throw anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
  }
}

function answerMessage(request: RecordedRequest, res: ServerResponse, nextId: (prefix: string) => string): void {
  const messages = parseMessagesRequest(request.body, true);
  const forcedUsage = readForcedUsage(request.headers, FORCED_USAGE_FIELDS, testControlError);
  const streamErrorAfter = readStreamErrorAfter(request.headers, testControlError);
  const streamErrorType = readStreamErrorType(request.headers);

  const lastUserText = textOf(messages.messages.findLast((message) => message.role === 'user')?.content).join(' ');
  const toolNames = (messages.tools ?? []).flatMap((tool) => (isJsonObject(tool) && typeof tool.name === 'string' ? [tool.name] : []));
  const toolCall = requestedToolCall(lastUserText, toolNames);
  let block: ReplyBlock;
  let stopReason: MessageAnswer['stopReason'];
  if (toolCall) {
    block = { type: 'tool_use', id: nextId('toolu_fake'), call: toolCall, jsonPieces: splitIntoTokenPieces(JSON.stringify(toolCall.input)) };
    stopReason = 'tool_use';
  } else {
    const reply = echoReply(lastUserText, messages.max_tokens);
    block = { type: 'text', words: reply.words };
    stopReason = reply.truncated ? 'max_tokens' : 'end_turn';
  }
  const replyTokens = block.type === 'text' ? block.words.length : estimateTextTokens(JSON.stringify(block.call.input));
  const answer: MessageAnswer = {
    id: nextId('msg_fake'),
    model: DATED_MODEL_IDS.get(messages.model) ?? messages.model,
    block,
    stopReason,
    usage: buildUsage(countPromptTokens(messages), replyTokens, forcedUsage),
  };
  if (messages.stream) {
    streamMessage(res, answer, streamErrorAfter, streamErrorType);
  } else {
    sendJson(res, 200, message(answer, contentBlock(block, true), stopReason, answer.usage));
  }
}

function buildUsage(promptTokens: number, replyTokens: number, forced: ForcedUsage): AnthropicUsage {
  const splitForced = forced.ephemeral_5m_input_tokens !== undefined || forced.ephemeral_1h_input_tokens !== undefined;
  const fiveMinute = splitForced ? (forced.ephemeral_5m_input_tokens ?? 0) : (forced.cache_creation_input_tokens ?? 0);
  const oneHour = forced.ephemeral_1h_input_tokens ?? 0;
  const cacheCreation = forced.cache_creation_input_tokens ?? fiveMinute + oneHour;
  if (cacheCreation !== fiveMinute + oneHour) {
    throw testControlError('x-fake-usage', 'must have cache_creation_input_tokens equal to the 5m + 1h split');
  }
  const cacheRead = forced.cache_read_input_tokens ?? 0;
  const thinking = forced.thinking_tokens;
  return {
    input_tokens: forced.input_tokens ?? Math.max(0, promptTokens - cacheRead - cacheCreation),
    cache_creation_input_tokens: cacheCreation,
    cache_read_input_tokens: cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: fiveMinute, ephemeral_1h_input_tokens: oneHour },
    output_tokens: forced.output_tokens ?? replyTokens + (thinking ?? 0),
    ...(thinking !== undefined && { output_tokens_details: { thinking_tokens: thinking } }),
    service_tier: 'standard',
    inference_geo: 'not_available',
  };
}

/** The message object, fields in the order Anthropic sends them. */
function message(
  answer: MessageAnswer,
  content: Record<string, unknown>[],
  stopReason: MessageAnswer['stopReason'] | null,
  usage: AnthropicUsage,
) {
  return {
    model: answer.model,
    id: answer.id,
    type: 'message',
    role: 'assistant',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    usage,
  };
}

/** A content block, complete or as `content_block_start` announces it (empty text or input). */
function contentBlock(block: ReplyBlock, complete: boolean): Record<string, unknown>[] {
  if (block.type === 'text') return [{ type: 'text', text: complete ? block.words.join('') : '' }];
  return [{ type: 'tool_use', id: block.id, name: block.call.name, input: complete ? block.call.input : {} }];
}

/**
 * message_start, content_block_start, ping, one delta per word (or JSON piece),
 * content_block_stop, message_delta, message_stop — the order of Anthropic's own streams.
 */
function streamMessage(
  res: ServerResponse,
  answer: MessageAnswer,
  errorAfter: number | undefined,
  errorType: AnthropicErrorType | undefined,
): void {
  const { block, usage } = answer;
  const named = (name: string, data: Record<string, unknown>) => serverSentEvent({ type: name, ...data }, { name });
  const deltas =
    block.type === 'text'
      ? block.words.map((text) => ({ type: 'text_delta', text }))
      : block.jsonPieces.map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  const leadingEvents = [
    named('message_start', { message: message(answer, [], null, { ...usage, output_tokens: 1 }) }),
    named('content_block_start', { index: 0, content_block: contentBlock(block, false)[0] }),
    named('ping', {}),
  ];
  const deltaEvents = deltas.map((delta) => named('content_block_delta', { index: 0, delta }));
  const closingEvents = [
    named('content_block_stop', { index: 0 }),
    named('message_delta', {
      delta: { stop_reason: answer.stopReason, stop_sequence: null, stop_details: null },
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
        ...(usage.output_tokens_details && { output_tokens_details: usage.output_tokens_details }),
      },
    }),
    named('message_stop', {}),
  ];
  if (errorAfter === undefined) {
    sendEventStream(res, [...leadingEvents, ...deltaEvents, ...closingEvents]);
  } else if (errorType === undefined) {
    sendEventStream(res, [...leadingEvents, ...deltaEvents], { cutAfter: leadingEvents.length + errorAfter });
  } else {
    const errorEvent = serverSentEvent(
      { type: 'error', error: { type: errorType, message: `Stream error (forced by x-fake-stream-error-type).` } },
      { name: 'error' },
    );
    sendEventStream(res, [...leadingEvents, ...deltaEvents.slice(0, errorAfter), errorEvent]);
  }
}

function readStreamErrorType(headers: IncomingHttpHeaders): AnthropicErrorType | undefined {
  const header = singleHeader(headers, 'x-fake-stream-error-type');
  if (header === undefined) return undefined;
  const errorType = ERROR_TYPES.find((type) => type === header);
  if (!errorType) throw testControlError('x-fake-stream-error-type', `must be one of ${ERROR_TYPES.join(', ')}`);
  return errorType;
}

function parseMessagesRequest(body: unknown, requireMaxTokens: boolean): MessagesRequest {
  if (!isJsonObject(body)) {
    throw anthropicError(400, 'invalid_request_error', 'The request body is not valid JSON.');
  }
  if (typeof body.model !== 'string') throw anthropicError(400, 'invalid_request_error', 'model: Field required');
  if (requireMaxTokens && body.max_tokens === undefined) {
    throw anthropicError(400, 'invalid_request_error', 'max_tokens: Field required');
  }
  if (requireMaxTokens && !(Number.isInteger(body.max_tokens) && (body.max_tokens as number) >= 1)) {
    throw anthropicError(400, 'invalid_request_error', 'max_tokens: Input should be greater than or equal to 1');
  }
  if (body.messages === undefined) throw anthropicError(400, 'invalid_request_error', 'messages: Field required');
  const messages = body.messages;
  if (!Array.isArray(messages) || !messages.every((entry) => isJsonObject(entry) && typeof entry.role === 'string')) {
    throw anthropicError(400, 'invalid_request_error', 'messages: Input should be a valid list of messages');
  }
  if (messages.length === 0) {
    throw anthropicError(400, 'invalid_request_error', 'messages: at least one message is required');
  }
  if (body.tools !== undefined && !Array.isArray(body.tools)) {
    throw anthropicError(400, 'invalid_request_error', 'tools: Input should be a valid list');
  }
  return body as unknown as MessagesRequest;
}

function countPromptTokens(request: MessagesRequest): number {
  return estimatePromptTokens(
    [...textOf(request.system), ...request.messages.flatMap((entry) => textOf(entry.content))],
    request.messages.length,
  );
}

/** Text of a system prompt or message content: the string, or its text and tool_result blocks. */
function textOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block) => {
    if (!isJsonObject(block)) return [];
    if (block.type === 'text' && typeof block.text === 'string') return [block.text];
    if (block.type === 'tool_result') return textOf(block.content);
    return [];
  });
}

