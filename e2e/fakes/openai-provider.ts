/**
 * A local fake of OpenAI's HTTP API for tests, which must never reach the real provider.
 * It speaks OpenAI's wire format (JSON bodies, `chat.completion.chunk` SSE streams, error
 * bodies, `x-request-id`) closely enough that the real `openai` SDK and our gateway cannot
 * tell it apart, and it answers deterministically so tests can compute costs by hand.
 *
 * Endpoints: POST /v1/chat/completions (JSON or `stream: true`), POST /v1/embeddings
 * (`encoding_format` float or base64 — the SDK asks for base64 unless told otherwise),
 * GET /v1/models. Every request is recorded, headers included, even rejected ones.
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
 *
 * Test-control request headers:
 * - `x-fake-usage: {"prompt_tokens":1000,"completion_tokens":500,"cached_tokens":200,"reasoning_tokens":0}`
 *   forces those numbers (any subset; the rest follow the rules; total = prompt + completion).
 * - `x-fake-status: 400|429|500` answers that error in OpenAI's shape (after the key check).
 * - `x-fake-stream-error-after: N` sends N content chunks, then destroys the socket.
 * The same controls can be set on the fake itself (`fake.controlHeaders`) for requests
 * that reach it through the gateway, which forwards no such header; a request's own
 * header wins.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { Model } from 'openai/resources/models';

export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; the raw text when it was not JSON; undefined when empty. */
  body: unknown;
}

export interface FakeOpenAI {
  /** Base URL ending in `/v1`, as the `openai` SDK expects. */
  url: string;
  requests: RecordedRequest[];
  /** Test-control headers applied to every following request, e.g. `{ 'x-fake-status': '429' }`. */
  controlHeaders: Record<string, string>;
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  /** The only key accepted in `Authorization: Bearer <key>`. Default `sk-fake-upstream`. */
  apiKey?: string;
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
const PROMPT_TOKENS_PER_MESSAGE = 3;
const CHARACTERS_PER_TOKEN = 4;

/** An error answered in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`. */
class OpenAIError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** What OpenAI answers for each status a test can force with `x-fake-status`. */
const FORCED_ERRORS = new Map<string, { message: string; type: string; code: string | null }>([
  ['400', { message: 'Invalid request (forced by x-fake-status).', type: 'invalid_request_error', code: null }],
  [
    '429',
    {
      message:
        'Rate limit reached for requests in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. (forced by x-fake-status)',
      type: 'requests',
      code: 'rate_limit_exceeded',
    },
  ],
  [
    '500',
    {
      message: 'The server had an error while processing your request. Sorry about that! (forced by x-fake-status)',
      type: 'server_error',
      code: null,
    },
  ],
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
  finishReason: 'stop' | 'length';
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
  const requests: RecordedRequest[] = [];
  const controlHeaders: Record<string, string> = {};
  let sequence = 0;
  const nextId = (prefix: string) => `${prefix}${String(++sequence).padStart(12, '0')}`;

  const server = createServer(async (incoming, res) => {
    res.setHeader('x-request-id', nextId('req_fake'));
    try {
      const recorded = await recordRequest(incoming);
      requests.push(recorded);
      const request = { ...recorded, headers: { ...controlHeaders, ...recorded.headers } };
      checkApiKey(request.headers, apiKey);
      throwForcedError(request.headers);
      const route = `${request.method} ${new URL(request.path, 'http://fake').pathname}`;
      if (route === 'POST /v1/chat/completions') {
        answerChatCompletion(request, res, nextId('chatcmpl-fake'));
      } else if (route === 'POST /v1/embeddings') {
        sendJson(res, 200, embeddingsResponse(request));
      } else if (route === 'GET /v1/models') {
        sendJson(res, 200, { object: 'list', data: LISTED_MODELS });
      } else {
        throw new OpenAIError(404, `Invalid URL (${route})`, 'invalid_request_error');
      }
    } catch (error) {
      sendError(res, error);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    controlHeaders,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function recordRequest(incoming: IncomingMessage): Promise<RecordedRequest> {
  const parts: Buffer[] = [];
  for await (const part of incoming) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  return {
    method: incoming.method ?? 'GET',
    path: incoming.url ?? '/',
    headers: incoming.headers,
    body: text === '' ? undefined : parseJsonOrKeepText(text),
  };
}

function parseJsonOrKeepText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function checkApiKey(headers: IncomingHttpHeaders, apiKey: string): void {
  const authorization = headers.authorization ?? '';
  if (!authorization.startsWith('Bearer ') || authorization === 'Bearer ') {
    throw new OpenAIError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      'invalid_request_error',
    );
  }
  const presentedKey = authorization.slice('Bearer '.length);
  if (presentedKey !== apiKey) {
    throw new OpenAIError(
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

function throwForcedError(headers: IncomingHttpHeaders): void {
  const status = singleHeader(headers, 'x-fake-status');
  if (status === undefined) return;
  const forcedError = FORCED_ERRORS.get(status);
  if (!forcedError) {
    throw testControlError('x-fake-status', `must be one of ${[...FORCED_ERRORS.keys()].join(', ')}`);
  }
  throw new OpenAIError(Number(status), forcedError.message, forcedError.type, null, forcedError.code);
}

function answerChatCompletion(request: RecordedRequest, res: ServerResponse, id: string): void {
  const chat = parseChatRequest(request.body);
  const forcedUsage = parseForcedUsage(request.headers);
  const streamErrorAfter = parseStreamErrorAfter(request.headers);
  const reply = composeReply(chat);
  const answer: ChatAnswer = {
    id,
    created: Math.floor(Date.now() / 1000),
    model: DATED_MODEL_IDS.get(chat.model) ?? chat.model,
    reply,
    usage: buildUsage({
      prompt_tokens: countPromptTokens(chat.messages),
      completion_tokens: reply.words.length,
      cached_tokens: 0,
      reasoning_tokens: 0,
      ...forcedUsage,
    }),
  };
  if (chat.stream) {
    streamChatCompletion(res, answer, chat.stream_options ?? {}, streamErrorAfter);
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
        message: { role: 'assistant', content: reply.words.join(''), refusal: null, annotations: [] },
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
 * A role chunk, one chunk per word, a finish chunk, the usage chunk when asked, `[DONE]`.
 * With `errorAfter` = N: the role chunk and N word chunks, then the socket is destroyed.
 */
function streamChatCompletion(
  res: ServerResponse,
  { id, created, model, reply, usage }: ChatAnswer,
  streamOptions: NonNullable<ChatRequest['stream_options']>,
  errorAfter: number | undefined,
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
  const events = [
    chunk([choice({ role: 'assistant', content: '', refusal: null })]),
    ...reply.words.map((word) => chunk([choice({ content: word })])),
    chunk([choice({}, reply.finishReason)]),
    ...(includeUsage ? [chunk([], usage)] : []),
  ].map((data) => `data: ${JSON.stringify(data)}\n\n`);

  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  if (errorAfter === undefined) {
    for (const event of events) res.write(event);
    res.end('data: [DONE]\n\n');
    return;
  }
  const eventsBeforeError = events.slice(0, 1 + Math.min(errorAfter, reply.words.length));
  res.write(eventsBeforeError.join(''), () => res.socket?.destroy());
}

function parseChatRequest(body: unknown): ChatRequest {
  const chat = requireJsonObject(body);
  if (typeof chat.model !== 'string') {
    throw new OpenAIError(400, 'you must provide a model parameter', 'invalid_request_error');
  }
  if (chat.messages === undefined) {
    throw new OpenAIError(
      400,
      "Missing required parameter: 'messages'.",
      'invalid_request_error',
      'messages',
      'missing_required_parameter',
    );
  }
  if (!Array.isArray(chat.messages) || !chat.messages.every(isChatMessage)) {
    throw new OpenAIError(400, "Invalid type for 'messages': expected an array of objects.", 'invalid_request_error', 'messages', 'invalid_type');
  }
  if (chat.messages.length === 0) {
    throw new OpenAIError(
      400,
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'invalid_request_error',
      'messages',
      'empty_array',
    );
  }
  if (chat.stream_options != null && chat.stream !== true) {
    throw new OpenAIError(
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

/** The reply echoes the last user message, cut to the token limit if one is set. */
function composeReply(chat: ChatRequest): Reply {
  const lastUserMessage = chat.messages.findLast((message) => message.role === 'user');
  const text = `echo: ${textParts(lastUserMessage?.content).join(' ')}`.trimEnd();
  const words = text.match(/\s*\S+/g) ?? [];
  const limit = chat.max_completion_tokens ?? chat.max_tokens;
  if (typeof limit === 'number' && limit < words.length) {
    return { words: words.slice(0, limit), finishReason: 'length' };
  }
  return { words, finishReason: 'stop' };
}

/** Text of a message's content: the string itself, or the text parts of an array. */
function textParts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isJsonObject(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : []));
}

function countPromptTokens(messages: ChatMessage[]): number {
  const characters = messages.reduce(
    (sum, message) => sum + textParts(message.content).reduce((partSum, part) => partSum + part.length, 0),
    0,
  );
  return Math.ceil(characters / CHARACTERS_PER_TOKEN) + PROMPT_TOKENS_PER_MESSAGE * messages.length;
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
    parseForcedUsage(request.headers).prompt_tokens ??
    inputs.reduce(
      (sum, input) => sum + (typeof input === 'string' ? Math.ceil(input.length / CHARACTERS_PER_TOKEN) : input.length),
      0,
    );
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
    throw new OpenAIError(400, 'you must provide a model parameter', 'invalid_request_error');
  }
  const { input } = embedding;
  const isTextOrTokens = (item: unknown) =>
    typeof item === 'string' || (Array.isArray(item) && item.every((token) => typeof token === 'number'));
  const validInput =
    typeof input === 'string' ||
    (Array.isArray(input) && input.length > 0 && (input.every((item) => typeof item === 'number') || input.every(isTextOrTokens)));
  if (!validInput) {
    throw new OpenAIError(
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

function parseForcedUsage(headers: IncomingHttpHeaders): Partial<ForcedUsage> {
  const header = singleHeader(headers, 'x-fake-usage');
  if (header === undefined) return {};
  const forced = parseJsonOrKeepText(header);
  const fields: (keyof ForcedUsage)[] = ['prompt_tokens', 'completion_tokens', 'cached_tokens', 'reasoning_tokens'];
  const valid =
    isJsonObject(forced) &&
    Object.entries(forced).every(
      ([field, value]) => fields.includes(field as keyof ForcedUsage) && Number.isInteger(value) && (value as number) >= 0,
    );
  if (!valid) {
    throw testControlError('x-fake-usage', `must be a JSON object of non-negative integers among ${fields.join(', ')}`);
  }
  return forced as Partial<ForcedUsage>;
}

function parseStreamErrorAfter(headers: IncomingHttpHeaders): number | undefined {
  const header = singleHeader(headers, 'x-fake-stream-error-after');
  if (header === undefined) return undefined;
  const chunkCount = Number(header);
  if (!Number.isInteger(chunkCount) || chunkCount < 0) {
    throw testControlError('x-fake-stream-error-after', 'must be a non-negative integer');
  }
  return chunkCount;
}

function testControlError(header: string, requirement: string): OpenAIError {
  return new OpenAIError(400, `Fake OpenAI: header ${header} ${requirement}.`, 'invalid_request_error', header);
}

function singleHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function requireJsonObject(body: unknown): Record<string, unknown> {
  if (!isJsonObject(body)) {
    throw new OpenAIError(
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
      'invalid_request_error',
    );
  }
  return body;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const openAIError =
    error instanceof OpenAIError
      ? error
      : new OpenAIError(500, `Fake OpenAI failed: ${error instanceof Error ? error.message : String(error)}`, 'server_error');
  sendJson(res, openAIError.status, {
    error: { message: openAIError.message, type: openAIError.type, param: openAIError.param, code: openAIError.code },
  });
}
