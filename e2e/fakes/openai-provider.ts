/**
 * A local fake of OpenAI's HTTP API for tests, which must never reach the real provider.
 * It speaks OpenAI's wire format (JSON bodies, `chat.completion.chunk` SSE streams, error
 * bodies, `x-request-id`) closely enough that the real `openai` SDK and our gateway cannot
 * tell it apart, and it answers deterministically so tests can compute costs by hand.
 *
 * Endpoints: POST /v1/chat/completions (JSON or `stream: true`), POST /v1/responses (JSON or
 * typed SSE events, see openai-responses.ts), POST /v1/embeddings (`encoding_format` float or
 * base64 — the SDK asks for base64 unless told otherwise), GET /v1/models. Every request is
 * recorded, headers included, even rejected ones.
 *
 * Azure mode (`startFakeOpenAI({ azure: {...} })`): `url` is the resource endpoint, as
 * `new AzureOpenAI({ endpoint })` takes it, and the fake serves only
 * POST /openai/deployments/{deployment}/chat/completions and …/embeddings with
 * `?api-version=` and an `api-key` header. As Azure does: a missing (or, with
 * `azure.apiVersion`, another) api-version answers 404 "Resource not found" — not 400; a bad key
 * 401 `{"error":{"code":"401","message"}}`; with `azure.deployments`, an unknown deployment 404
 * `DeploymentNotFound`. `model` answers the deployment's underlying model (dated as above);
 * chat answers carry `prompt_filter_results`/`content_filter_results`, and a stream starts with
 * Azure's chunk of empty `choices`, `id` and `model` holding only the prompt filter results.
 *
 * Deterministic rules, unless a test-control header overrides them:
 * - reply: `echo: <last user message>`; one word per content chunk when streamed.
 * - model: `gpt-4o-mini` → `gpt-4o-mini-2024-07-18`, `gpt-4o` → `gpt-4o-2024-08-06`,
 *   any other model is echoed unchanged.
 * - prompt_tokens = ceil(characters of all message texts / 4) + 3 × number of messages
 *   (text of array content = its text parts; images and tool calls count nothing).
 * - completion_tokens = words in the reply, capped by `max_completion_tokens` or
 *   `max_tokens` (the reply is then cut to that many words, finish_reason "length").
 * - cached_tokens = reasoning_tokens = 0; total_tokens = prompt + completion.
 * - embeddings: prompt_tokens = total_tokens = Σ ceil(characters / 4) over text inputs
 *   (token-array inputs count their length).
 * - responses: input_tokens = ceil(characters of `instructions` + all input item texts / 4)
 *   + 3 × input items (a string input is one item; item text = string content, input_text /
 *   output_text parts, function_call_output output); output_tokens = words of the reply, cut
 *   to `max_output_tokens` (status "incomplete", reason "max_output_tokens"; the API refuses a
 *   limit below 16); cached_tokens = reasoning_tokens = 0; total = input + output. Forced
 *   numbers (`input_tokens`, `output_tokens`, `cached_tokens`, `reasoning_tokens`) are taken
 *   as given: reasoning is not added to output, force both.
 * - tool calls: with function tools offered and a last user text `call <name>` optionally
 *   followed by a JSON object, chat answers one `tool_calls` entry (finish_reason
 *   "tool_calls"; streamed as argument pieces of 4 characters) and responses one
 *   `function_call` item (streamed as `response.function_call_arguments.delta` pieces);
 *   completion / output tokens = ceil(characters of the arguments JSON / 4).
 *
 * Test-control request headers:
 * - `x-fake-usage: {"prompt_tokens":1000,"completion_tokens":500,"cached_tokens":200,"reasoning_tokens":0}`
 *   forces those numbers (any subset; the rest follow the rules; total = prompt + completion);
 *   a forced completion_tokens above the request's `max_completion_tokens` / `max_tokens` is cut
 *   to it, as OpenAI never reports more output than it was allowed.
 * - `x-fake-status: 400|429|500|503` answers that error in OpenAI's shape (after the key check;
 *   Azure's own shape and a `retry-after` for 429 in Azure mode).
 * - `x-fake-stream-interval-ms: N` pauses N ms between chat stream chunks (a slow provider).
 * - `x-fake-stream-error-after: N` sends N content chunks (or N response deltas), then
 *   destroys the socket.
 * The same controls can be set on the fake itself (`fake.controlHeaders`) for requests
 * that reach it through the gateway, which forwards no such header; a request's own
 * header wins.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { Model } from 'openai/resources/models';
import { answerResponses, type ResponsesContext } from './openai-responses.ts';
import {
  echoReply,
  type FakeProvider,
  type FakeProviderOptions,
  estimatePromptTokens,
  estimateTextTokens,
  FakeHttpError,
  isJsonObject,
  type RecordedRequest,
  readForcedUsage,
  readStreamErrorAfter,
  readStreamIntervalMs,
  requestedToolCall,
  sendEventStream,
  serverSentEvent,
  sendJson,
  sequentialIds,
  singleHeader,
  splitIntoTokenPieces,
  startFakeProviderServer,
  throwForcedStatus,
} from './fake-provider-kit.ts';

export type { RecordedRequest } from './fake-provider-kit.ts';

/** `url`: base URL ending in `/v1`, as the `openai` SDK expects; in Azure mode the endpoint. */
export type FakeOpenAI = FakeProvider;

export interface FakeOpenAIOptions extends FakeProviderOptions {
  /** Serve Azure OpenAI's routes instead of OpenAI's. */
  azure?: FakeAzureOptions;
}

export interface FakeAzureOptions {
  /** The only api-version accepted; any when unset (but one is always required). */
  apiVersion?: string;
  /** Deployment name → underlying model; when given, other deployments answer 404 DeploymentNotFound. */
  deployments?: Record<string, string>;
}

/** Exact usage numbers a test can force with the `x-fake-usage` header. */
export interface ForcedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
}

const DATED_MODEL_IDS = new Map([
  ['gpt-4o-mini', 'gpt-4o-mini-2024-07-18'],
  ['gpt-4o', 'gpt-4o-2024-08-06'],
]);

const LISTED_MODELS: readonly Model[] = [
  { id: 'gpt-4o', object: 'model', created: 1715367049, owned_by: 'system' },
  { id: 'gpt-4o-2024-08-06', object: 'model', created: 1722814719, owned_by: 'system' },
  { id: 'gpt-4o-mini', object: 'model', created: 1721172741, owned_by: 'system' },
  { id: 'gpt-4o-mini-2024-07-18', object: 'model', created: 1721172717, owned_by: 'system' },
  { id: 'text-embedding-3-small', object: 'model', created: 1705948997, owned_by: 'system' },
  { id: 'text-embedding-3-large', object: 'model', created: 1705953180, owned_by: 'system' },
];

const EMBEDDING_DIMENSIONS = new Map([
  ['text-embedding-3-small', 1536],
  ['text-embedding-3-large', 3072],
  ['text-embedding-ada-002', 1536],
]);
const DEFAULT_EMBEDDING_DIMENSIONS = 1536;

const SYSTEM_FINGERPRINT = 'fp_fake0000001';
/** OpenAI pads stream chunks with random `obfuscation` text; the fake pads with a fixed one. */
const STREAM_OBFUSCATION = 'fAkE0bfu5c';
const FORCED_USAGE_FIELDS = ['prompt_tokens', 'completion_tokens', 'cached_tokens', 'reasoning_tokens'] as const;

/** An error in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`. */
function openAIError(
  status: number,
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null,
): FakeHttpError {
  return new FakeHttpError(status, { error: { message, type, param, code } });
}

/** What OpenAI answers for each status a test can force with `x-fake-status`. */
const FORCED_ERRORS = new Map<string, () => FakeHttpError>([
  ['400', () => openAIError(400, 'Invalid request (forced by x-fake-status).', 'invalid_request_error')],
  [
    '429',
    () =>
      openAIError(
        429,
        'Rate limit reached for requests in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. (forced by x-fake-status)',
        'requests',
        null,
        'rate_limit_exceeded',
      ),
  ],
  [
    '500',
    () =>
      openAIError(
        500,
        'The server had an error while processing your request. Sorry about that! (forced by x-fake-status)',
        'server_error',
      ),
  ],
  ['503', () => openAIError(503, 'The engine is currently overloaded, please try again later (forced by x-fake-status)', 'server_error')],
]);

interface ChatMessage {
  role: string;
  content?: unknown;
}

interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean; include_obfuscation?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  tools?: { type?: string; function?: { name?: string } }[];
}

interface EmbeddingRequest {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
}

/** Everything a chat answer says, shared by the JSON and the streamed form. */
interface ChatAnswer {
  id: string;
  created: number;
  model: string;
  reply: Reply;
  usage: CompletionUsage;
}

interface Reply {
  /** Content split into words, each with its leading whitespace: joined they give the text. */
  words: string[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  /** The tool the model calls instead of answering (see the tool rule). */
  toolCall?: { id: string; name: string; arguments: string };
}

/**
 * Starts the fake on 127.0.0.1 with a free port.
 * @example
 * const fake = await startFakeOpenAI();
 * const client = new OpenAI({ baseURL: fake.url, apiKey: 'sk-fake-upstream' });
 * // ... fake.requests[0].headers.authorization === 'Bearer sk-fake-upstream'
 * await fake.close();
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const apiKey = options.apiKey ?? 'sk-fake-upstream';
  const nextId = sequentialIds();
  const { azure } = options;
  const responsesContext: ResponsesContext = {
    nextId,
    answeredModel: (requested) => DATED_MODEL_IDS.get(requested) ?? requested,
    invalidRequest: (message, param, code = null) => openAIError(400, message, 'invalid_request_error', param, code),
    controlError: testControlError,
  };
  return startFakeProviderServer({
    basePath: azure ? '' : '/v1',
    responseHeaders: () => ({
      'x-request-id': nextId('req_fake'),
      ...(azure && { 'apim-request-id': nextId('apim-fake-'), 'x-ms-region': 'Fake Region' }),
    }),
    internalError: (message) => openAIError(500, message, 'server_error'),
    answer(request, res) {
      if (azure) {
        answerAzure(request, res, azure, apiKey, nextId);
        return;
      }
      checkApiKey(request.headers, apiKey);
      throwForcedStatus(request.headers, FORCED_ERRORS, testControlError);
      const route = `${request.method} ${new URL(request.path, 'http://fake').pathname}`;
      if (route === 'POST /v1/chat/completions') {
        answerChatCompletion(request, res, nextId('chatcmpl-fake'));
      } else if (route === 'POST /v1/responses') {
        answerResponses(request, res, responsesContext);
      } else if (route === 'POST /v1/embeddings') {
        sendJson(res, 200, embeddingsResponse(request));
      } else if (route === 'GET /v1/models') {
        sendJson(res, 200, { object: 'list', data: LISTED_MODELS });
      } else {
        throw openAIError(404, `Invalid URL (${route})`, 'invalid_request_error');
      }
    },
  });
}

/** Azure's error shape: `{"error": {"code", "message"}}`, code a string. */
function azureError(status: number, code: string, message: string, headers: Record<string, string> = {}): FakeHttpError {
  return new FakeHttpError(status, { error: { code, message } }, headers);
}

/** Azure answers 429 in its own shape with `retry-after`; other forced errors as OpenAI does. */
const AZURE_FORCED_ERRORS = new Map<string, () => FakeHttpError>([
  ...FORCED_ERRORS,
  [
    '429',
    () =>
      azureError(
        429,
        '429',
        'Requests to the ChatCompletions_Create Operation under Azure OpenAI API have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second. (forced by x-fake-status)',
        { 'retry-after': '1' },
      ),
  ],
]);

const AZURE_DEPLOYMENT_ROUTE = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/;

function answerAzure(
  request: RecordedRequest,
  res: ServerResponse,
  azure: FakeAzureOptions,
  apiKey: string,
  nextId: (prefix: string) => string,
): void {
  const url = new URL(request.path, 'http://fake');
  const route = AZURE_DEPLOYMENT_ROUTE.exec(url.pathname);
  const apiVersion = url.searchParams.get('api-version');
  if (request.method !== 'POST' || !route?.[1] || !apiVersion || (azure.apiVersion !== undefined && apiVersion !== azure.apiVersion)) {
    throw azureError(404, '404', 'Resource not found');
  }
  if (singleHeader(request.headers, 'api-key') !== apiKey) {
    throw azureError(
      401,
      '401',
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    );
  }
  throwForcedStatus(request.headers, AZURE_FORCED_ERRORS, testControlError);
  const deployment = decodeURIComponent(route[1]);
  const deployedModel = azure.deployments?.[deployment];
  if (azure.deployments && deployedModel === undefined) {
    throw azureError(
      404,
      'DeploymentNotFound',
      'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
    );
  }
  const body = isJsonObject(request.body) ? { ...request.body, model: deployedModel ?? request.body.model ?? deployment } : request.body;
  const deploymentRequest = { ...request, body };
  if (route[2] === 'embeddings') {
    sendJson(res, 200, embeddingsResponse(deploymentRequest));
  } else {
    answerChatCompletion(deploymentRequest, res, nextId('chatcmpl-fake'), true);
  }
}

function checkApiKey(headers: IncomingHttpHeaders, apiKey: string): void {
  const authorization = headers.authorization ?? '';
  if (!authorization.startsWith('Bearer ') || authorization === 'Bearer ') {
    throw openAIError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      'invalid_request_error',
    );
  }
  const presentedKey = authorization.slice('Bearer '.length);
  if (presentedKey !== apiKey) {
    throw openAIError(
      401,
      `Incorrect API key provided: ${maskKey(presentedKey)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      'invalid_request_error',
      null,
      'invalid_api_key',
    );
  }
}

function maskKey(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 3)}***${key.slice(-4)}`;
}

/** Azure's content-filter verdicts, all "safe". */
const SAFE_CONTENT_FILTER_RESULTS = Object.fromEntries(
  ['hate', 'self_harm', 'sexual', 'violence'].map((category) => [category, { filtered: false, severity: 'safe' }]),
);
const AZURE_PROMPT_FILTER_RESULTS = [{ prompt_index: 0, content_filter_results: SAFE_CONTENT_FILTER_RESULTS }];

/** A forced completion_tokens cut to the request's output limit: OpenAI never reports more output than it was allowed. */
function withinLimit(forced: number | undefined, limit: number | null | undefined): { completion_tokens?: number } {
  return forced !== undefined && typeof limit === 'number' && forced > limit ? { completion_tokens: limit } : {};
}

/** With `azureContentFilters`, answers as Azure does: content-filter results, a leading filter chunk. */
function answerChatCompletion(request: RecordedRequest, res: ServerResponse, id: string, azureContentFilters = false): void {
  const chat = parseChatRequest(request.body);
  const forcedUsage = readForcedUsage(request.headers, FORCED_USAGE_FIELDS, testControlError);
  const streamErrorAfter = readStreamErrorAfter(request.headers, testControlError);
  const streamIntervalMs = readStreamIntervalMs(request.headers, testControlError);
  const reply = composeReply(chat, id);
  const answer: ChatAnswer = {
    id,
    created: Math.floor(Date.now() / 1000),
    model: DATED_MODEL_IDS.get(chat.model) ?? chat.model,
    reply,
    usage: buildUsage({
      prompt_tokens: countPromptTokens(chat.messages),
      completion_tokens: reply.toolCall ? estimateTextTokens(reply.toolCall.arguments) : reply.words.length,
      cached_tokens: 0,
      reasoning_tokens: 0,
      ...forcedUsage,
      ...withinLimit(forcedUsage.completion_tokens, chat.max_completion_tokens ?? chat.max_tokens),
    }),
  };
  if (chat.stream) {
    streamChatCompletion(res, answer, chat.stream_options ?? {}, { errorAfter: streamErrorAfter, intervalMs: streamIntervalMs }, azureContentFilters);
  } else if (azureContentFilters) {
    const completion = chatCompletion(answer);
    sendJson(res, 200, {
      ...completion,
      choices: completion.choices.map((choice) => ({ ...choice, content_filter_results: SAFE_CONTENT_FILTER_RESULTS })),
      prompt_filter_results: AZURE_PROMPT_FILTER_RESULTS,
    });
  } else {
    sendJson(res, 200, chatCompletion(answer));
  }
}

/** Fields in the order OpenAI sends them. */
function chatCompletion({ id, created, model, reply, usage }: ChatAnswer): ChatCompletion {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: reply.toolCall
          ? {
              role: 'assistant',
              content: null,
              refusal: null,
              annotations: [],
              tool_calls: [
                { id: reply.toolCall.id, type: 'function', function: { name: reply.toolCall.name, arguments: reply.toolCall.arguments } },
              ],
            }
          : { role: 'assistant', content: reply.words.join(''), refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

/**
 * A role chunk, one chunk per word, a finish chunk, the usage chunk when asked, `[DONE]`;
 * Azure's prompt-filter chunk first when `azureContentFilters`.
 * With `errorAfter` = N: the leading chunks and N word chunks, then the socket is destroyed.
 */
function streamChatCompletion(
  res: ServerResponse,
  { id, created, model, reply, usage }: ChatAnswer,
  streamOptions: NonNullable<ChatRequest['stream_options']>,
  { errorAfter, intervalMs }: { errorAfter: number | undefined; intervalMs: number | undefined },
  azureContentFilters: boolean,
): void {
  const includeUsage = streamOptions.include_usage === true;
  const includeObfuscation = streamOptions.include_obfuscation !== false;
  const chunk = (
    choices: ChatCompletionChunk['choices'],
    chunkUsage: CompletionUsage | null = null,
  ): ChatCompletionChunk & { obfuscation?: string } => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices,
    ...(includeUsage && { usage: chunkUsage }),
    ...(includeObfuscation && { obfuscation: STREAM_OBFUSCATION }),
  });
  const choice = (
    delta: ChatCompletionChunk.Choice['delta'],
    finishReason: Reply['finishReason'] | null = null,
  ): ChatCompletionChunk.Choice => ({ index: 0, delta, logprobs: null, finish_reason: finishReason });
  const leadingChunks = [
    ...(azureContentFilters
      ? [{ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: AZURE_PROMPT_FILTER_RESULTS }]
      : []),
    chunk([choice({ role: 'assistant', content: '', refusal: null })]),
  ];
  const toolCallChunks = reply.toolCall
    ? [
        chunk([choice({ tool_calls: [{ index: 0, id: reply.toolCall.id, type: 'function', function: { name: reply.toolCall.name, arguments: '' } }] })]),
        ...splitIntoTokenPieces(reply.toolCall.arguments).map((piece) =>
          chunk([choice({ tool_calls: [{ index: 0, function: { arguments: piece } }] })]),
        ),
      ]
    : [];
  const events = [
    ...leadingChunks,
    ...reply.words.map((word) => chunk([choice({ content: word })])),
    ...toolCallChunks,
    chunk([choice({}, reply.finishReason)]),
    ...(includeUsage ? [chunk([], usage)] : []),
    '[DONE]',
  ].map((data) => serverSentEvent(data));
  sendEventStream(res, events, {
    cutAfter: errorAfter === undefined ? undefined : leadingChunks.length + Math.min(errorAfter, reply.words.length),
    intervalMs,
  });
}

function parseChatRequest(body: unknown): ChatRequest {
  const chat = requireJsonObject(body);
  if (typeof chat.model !== 'string') {
    throw openAIError(400, 'you must provide a model parameter', 'invalid_request_error');
  }
  if (chat.messages === undefined) {
    throw openAIError(
      400,
      "Missing required parameter: 'messages'.",
      'invalid_request_error',
      'messages',
      'missing_required_parameter',
    );
  }
  if (!Array.isArray(chat.messages) || !chat.messages.every(isChatMessage)) {
    throw openAIError(400, "Invalid type for 'messages': expected an array of objects.", 'invalid_request_error', 'messages', 'invalid_type');
  }
  if (chat.messages.length === 0) {
    throw openAIError(
      400,
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'invalid_request_error',
      'messages',
      'empty_array',
    );
  }
  if (chat.stream_options != null && chat.stream !== true) {
    throw openAIError(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'invalid_request_error',
      'stream_options',
    );
  }
  return chat as unknown as ChatRequest;
}

function isChatMessage(message: unknown): message is ChatMessage {
  return isJsonObject(message) && typeof message.role === 'string';
}

/**
 * The reply echoes the last user message, cut to the token limit if one is set — or,
 * by the tool rule, calls the tool that message names.
 */
function composeReply(chat: ChatRequest, id: string): Reply {
  const lastUserText = textParts(chat.messages.findLast((message) => message.role === 'user')?.content).join(' ');
  const toolNames = (chat.tools ?? []).flatMap((tool) => (typeof tool.function?.name === 'string' ? [tool.function.name] : []));
  const call = requestedToolCall(lastUserText, toolNames);
  if (call) {
    return { words: [], finishReason: 'tool_calls', toolCall: { id: `call_${id}`, name: call.name, arguments: JSON.stringify(call.input) } };
  }
  const { words, truncated } = echoReply(lastUserText, chat.max_completion_tokens ?? chat.max_tokens);
  return { words, finishReason: truncated ? 'length' : 'stop' };
}

/** Text of a message's content: the string itself, or the text parts of an array. */
function textParts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isJsonObject(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : []));
}

function countPromptTokens(messages: ChatMessage[]): number {
  return estimatePromptTokens(
    messages.flatMap((message) => textParts(message.content)),
    messages.length,
  );
}

function buildUsage(tokens: ForcedUsage): CompletionUsage {
  return {
    prompt_tokens: tokens.prompt_tokens,
    completion_tokens: tokens.completion_tokens,
    total_tokens: tokens.prompt_tokens + tokens.completion_tokens,
    prompt_tokens_details: { cached_tokens: tokens.cached_tokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: tokens.reasoning_tokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function embeddingsResponse(request: RecordedRequest) {
  const embedding = parseEmbeddingRequest(request.body);
  const inputs: (string | number[])[] =
    typeof embedding.input === 'string' || typeof embedding.input[0] === 'number'
      ? [embedding.input as string | number[]]
      : (embedding.input as string[] | number[][]);
  const dimensions = embedding.dimensions ?? EMBEDDING_DIMENSIONS.get(embedding.model) ?? DEFAULT_EMBEDDING_DIMENSIONS;
  const promptTokens =
    readForcedUsage(request.headers, FORCED_USAGE_FIELDS, testControlError).prompt_tokens ??
    inputs.reduce((sum, input) => sum + (typeof input === 'string' ? estimateTextTokens(input) : input.length), 0);
  return {
    object: 'list',
    data: inputs.map((input, index) => {
      const vector = deterministicEmbedding(typeof input === 'string' ? input : input.join(','), dimensions);
      return {
        object: 'embedding',
        index,
        embedding: embedding.encoding_format === 'base64' ? toBase64Float32(vector) : vector,
      };
    }),
    model: embedding.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

function parseEmbeddingRequest(body: unknown): EmbeddingRequest {
  const embedding = requireJsonObject(body);
  if (typeof embedding.model !== 'string') {
    throw openAIError(400, 'you must provide a model parameter', 'invalid_request_error');
  }
  const { input } = embedding;
  const isTextOrTokens = (item: unknown) =>
    typeof item === 'string' || (Array.isArray(item) && item.every((token) => typeof token === 'number'));
  const validInput =
    typeof input === 'string' ||
    (Array.isArray(input) && input.length > 0 && (input.every((item) => typeof item === 'number') || input.every(isTextOrTokens)));
  if (!validInput) {
    throw openAIError(
      400,
      "Invalid 'input': expected a string, an array of strings, or an array of token arrays.",
      'invalid_request_error',
      'input',
    );
  }
  return embedding as unknown as EmbeddingRequest;
}

/** A unit-length vector that depends only on the text, rounded to float32 as OpenAI's are. */
function deterministicEmbedding(text: string, dimensions: number): number[] {
  const seed = [...text].reduce((sum, character) => sum + (character.codePointAt(0) ?? 0), text.length);
  const raw = Array.from({ length: dimensions }, (_, index) => Math.sin(seed + index));
  const norm = Math.hypot(...raw);
  return raw.map((value) => Math.fround(value / norm));
}

function toBase64Float32(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}



function testControlError(header: string, requirement: string): FakeHttpError {
  return openAIError(400, `Fake OpenAI: header ${header} ${requirement}.`, 'invalid_request_error', header);
}


function requireJsonObject(body: unknown): Record<string, unknown> {
  if (!isJsonObject(body)) {
    throw openAIError(
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      'invalid_request_error',
    );
  }
  return body;
}



