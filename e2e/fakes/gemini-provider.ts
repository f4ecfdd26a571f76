/**
 * A local fake of Google's Gemini API (generativelanguage, `v1beta`) for tests, which must never
 * reach the real provider. It speaks Gemini's wire format (GenerateContentResponse JSON, `data:`
 * SSE chunks with CRLF line ends, `{"error": {code, message, status}}` bodies) and answers
 * deterministically so tests can compute costs by hand.
 *
 * Endpoints (under `/v1beta` or `/v1`): POST /models/{model}:generateContent,
 * POST /models/{model}:streamGenerateContent (`?alt=sse` for SSE; without it, a JSON array of
 * the same chunks, as Google answers), POST /models/{model}:countTokens, GET /models,
 * GET /models/{model}. Auth: `x-goog-api-key: <key>` or `?key=<key>`. camelCase and
 * snake_case request fields are both accepted, as the real API accepts both.
 *
 * Deterministic rules, unless a test-control header overrides them:
 * - reply: `echo: <text of the last user content>`; one chunk per word when streamed, the last
 *   chunk carrying finishReason "STOP".
 * - function call: when the request has `tools[].functionDeclarations` and the last user text is
 *   `call <name>`, optionally followed by a JSON object, the reply is one `functionCall` part
 *   with those args (or `{}`), finishReason "STOP"; streamed whole in one chunk.
 * - modelVersion = the model of the path.
 * - promptTokenCount = ceil(characters of systemInstruction + all content texts / 4)
 *   + 3 × contents, + cachedContentTokenCount (Gemini's prompt count INCLUDES the cached part).
 * - candidatesTokenCount = words of the reply, cut to `generationConfig.maxOutputTokens`
 *   (finishReason "MAX_TOKENS"); for a function call, ceil(characters of its JSON args / 4).
 * - totalTokenCount = prompt + candidates + thoughts. cachedContentTokenCount and
 *   thoughtsTokenCount appear only when forced.
 * - streamed: every chunk carries usageMetadata, cumulative: the prompt (and thoughts) numbers
 *   on each, candidatesTokenCount = words sent so far; the last chunk holds the call's totals.
 * - countTokens: totalTokens = the prompt rule above.
 *
 * Test-control request headers (also settable on `fake.controlHeaders`; a request's own wins):
 * - `x-fake-usage: {"promptTokenCount":1000,"candidatesTokenCount":500,"cachedContentTokenCount":200,"thoughtsTokenCount":40}`
 *   forces those numbers (any subset).
 * - `x-fake-status: 400|403|429|500|503` answers that error in Google's shape.
 * - `x-fake-stream-error-after: N` sends N chunks over SSE, then destroys the socket.
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
  startFakeProviderServer,
  throwForcedStatus,
} from './fake-provider-kit.ts';

export type { RecordedRequest } from './fake-provider-kit.ts';

/** `url`: Base URL without a version path, e.g. `http://127.0.0.1:4000`. */
export type FakeGemini = FakeProvider;
export type FakeGeminiOptions = FakeProviderOptions;

const FORCED_USAGE_FIELDS = ['promptTokenCount', 'candidatesTokenCount', 'cachedContentTokenCount', 'thoughtsTokenCount'] as const;
type ForcedUsage = Partial<Record<(typeof FORCED_USAGE_FIELDS)[number], number>>;

export interface UsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  promptTokensDetails: { modality: 'TEXT'; tokenCount: number }[];
  cacheTokensDetails?: { modality: 'TEXT'; tokenCount: number }[];
  thoughtsTokenCount?: number;
}

const LISTED_MODELS = [
  gemini('gemini-2.5-pro', 'Gemini 2.5 Pro', 65536, true),
  gemini('gemini-2.5-flash', 'Gemini 2.5 Flash', 65536, true),
  gemini('gemini-2.5-flash-lite', 'Gemini 2.5 Flash-Lite', 65536, true),
  gemini('gemini-2.0-flash', 'Gemini 2.0 Flash', 8192, false),
];

function gemini(id: string, displayName: string, outputTokenLimit: number, thinking: boolean) {
  return {
    name: `models/${id}`,
    version: '001',
    displayName,
    description: `${displayName} (fake)`,
    inputTokenLimit: 1048576,
    outputTokenLimit,
    supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
    temperature: 1,
    topP: 0.95,
    topK: 64,
    maxTemperature: 2,
    thinking,
  };
}

/** An error in Google's shape: `{"error": {"code", "message", "status", "details"?}}`. */
function googleError(code: number, status: string, message: string, details?: unknown[]): FakeHttpError {
  return new FakeHttpError(code, { error: { code, message, status, ...(details && { details }) } });
}

const FORCED_ERRORS = new Map<string, () => FakeHttpError>([
  ['400', () => googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument. (forced by x-fake-status)')],
  ['403', () => googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission (forced by x-fake-status)')],
  [
    '429',
    () =>
      googleError(
        429,
        'RESOURCE_EXHAUSTED',
        'You exceeded your current quota, please check your plan and billing details. (forced by x-fake-status)',
        [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }],
      ),
  ],
  ['500', () => googleError(500, 'INTERNAL', 'An internal error has occurred. Please retry. (forced by x-fake-status)')],
  ['503', () => googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later. (forced by x-fake-status)')],
]);

const testControlError: ControlErrorFactory = (header, requirement) =>
  googleError(400, 'INVALID_ARGUMENT', `Fake Gemini: header ${header} ${requirement}.`);

interface Content {
  role?: string;
  parts: unknown[];
}

interface GenerateContentRequest {
  contents: Content[];
  systemInstruction?: Content;
  toolNames: string[];
  maxOutputTokens?: number;
}

type Reply =
  | { type: 'text'; words: string[]; truncated: boolean }
  | { type: 'functionCall'; functionCall: { name: string; args: RequestedToolCall['input'] } };

interface GenerateAnswer {
  model: string;
  responseId: string;
  reply: Reply;
  promptTokens: number;
  replyTokens: number;
  forced: ForcedUsage;
}

/**
 * Starts the fake on 127.0.0.1 with a free port.
 * @example
 * const fake = await startFakeGemini();
 * await fetch(`${fake.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
 *   method: 'POST', headers: { 'x-goog-api-key': 'fake-gemini-upstream-key' },
 *   body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
 * });
 */
export async function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
  const apiKey = options.apiKey ?? 'fake-gemini-upstream-key';
  const nextId = sequentialIds();
  return startFakeProviderServer({
    internalError: (message) => googleError(500, 'INTERNAL', message),
    answer(request, res) {
      const url = new URL(request.path, 'http://fake');
      checkApiKey(request.headers, url, apiKey);
      throwForcedStatus(request.headers, FORCED_ERRORS, testControlError);
      const method = /^\/v1(?:beta)?\/models\/([^/:]+):(\w+)$/.exec(url.pathname);
      const modelPath = /^\/v1(?:beta)?\/models(?:\/([^/:]+))?$/.exec(url.pathname);
      if (request.method === 'POST' && method?.[1] && method[2]) {
        answerModelMethod(request, res, method[1], method[2], url, nextId('fake-response-'));
      } else if (request.method === 'GET' && modelPath) {
        const modelId = modelPath[1];
        if (modelId === undefined) {
          sendJson(res, 200, { models: LISTED_MODELS });
          return;
        }
        const model = LISTED_MODELS.find((listed) => listed.name === `models/${modelId}`);
        if (!model) throw googleError(404, 'NOT_FOUND', `models/${modelId} is not found for API version v1beta.`);
        sendJson(res, 200, model);
      } else {
        throw googleError(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
      }
    },
  });
}

/** Google answers a missing key with 403 and a wrong key with 400, never 401. */
function checkApiKey(headers: IncomingHttpHeaders, url: URL, apiKey: string): void {
  const presentedKey = singleHeader(headers, 'x-goog-api-key') ?? url.searchParams.get('key') ?? '';
  if (presentedKey === '') {
    throw googleError(
      403,
      'PERMISSION_DENIED',
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (presentedKey !== apiKey) {
    throw googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
    ]);
  }
}

function answerModelMethod(
  request: RecordedRequest,
  res: ServerResponse,
  model: string,
  method: string,
  url: URL,
  responseId: string,
): void {
  const forced = readForcedUsage(request.headers, FORCED_USAGE_FIELDS, testControlError);
  if (method === 'countTokens') {
    const body = isJsonObject(request.body) ? request.body : {};
    const generateRequest = parseGenerateContentRequest(field(body, 'generateContentRequest', 'generate_content_request') ?? body);
    const totalTokens = forced.promptTokenCount ?? countPromptTokens(generateRequest);
    sendJson(res, 200, { totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalTokens }] });
    return;
  }
  if (method !== 'generateContent' && method !== 'streamGenerateContent') {
    throw googleError(404, 'NOT_FOUND', `Method ${method} is not found.`);
  }
  const generateRequest = parseGenerateContentRequest(request.body);
  const lastUserText = textOf(generateRequest.contents.findLast((content) => (content.role ?? 'user') === 'user')?.parts).join(' ');
  const call = requestedToolCall(lastUserText, generateRequest.toolNames);
  const reply: Reply = call
    ? { type: 'functionCall', functionCall: { name: call.name, args: call.input } }
    : { type: 'text', ...echoReply(lastUserText, generateRequest.maxOutputTokens) };
  const answer: GenerateAnswer = {
    model,
    responseId,
    reply,
    promptTokens: countPromptTokens(generateRequest),
    replyTokens: reply.type === 'text' ? reply.words.length : estimateTextTokens(JSON.stringify(reply.functionCall.args)),
    forced,
  };
  if (method === 'generateContent') {
    const parts = reply.type === 'text' ? [{ text: reply.words.join('') }] : [{ functionCall: reply.functionCall }];
    sendJson(res, 200, generateContentResponse(answer, parts, true, answer.replyTokens));
  } else {
    streamGenerateContent(res, answer, url.searchParams.get('alt') === 'sse', readStreamErrorAfter(request.headers, testControlError));
  }
}

/** One GenerateContentResponse; `final` adds the finish reason, `candidatesSoFar` the cumulative count. */
function generateContentResponse(answer: GenerateAnswer, parts: unknown[], final: boolean, candidatesSoFar: number) {
  const finishReason = answer.reply.type === 'text' && answer.reply.truncated ? 'MAX_TOKENS' : 'STOP';
  return {
    candidates: [{ content: { parts, role: 'model' }, ...(final && { finishReason }), index: 0 }],
    usageMetadata: usageMetadata(answer, final ? undefined : candidatesSoFar),
    modelVersion: answer.model,
    responseId: answer.responseId,
  };
}

/** The call's usage, or with `candidatesSoFar` the cumulative usage of an intermediate chunk. */
function usageMetadata({ promptTokens, replyTokens, forced }: GenerateAnswer, candidatesSoFar?: number): UsageMetadata {
  const cached = forced.cachedContentTokenCount;
  const prompt = forced.promptTokenCount ?? promptTokens + (cached ?? 0);
  if (cached !== undefined && cached > prompt) {
    throw testControlError('x-fake-usage', 'must not have cachedContentTokenCount above promptTokenCount');
  }
  const finalCandidates = forced.candidatesTokenCount ?? replyTokens;
  const candidates = candidatesSoFar === undefined ? finalCandidates : Math.min(candidatesSoFar, finalCandidates);
  const thoughts = forced.thoughtsTokenCount;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates + (thoughts ?? 0),
    ...(cached !== undefined && { cachedContentTokenCount: cached }),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }],
    ...(cached !== undefined && { cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cached }] }),
    ...(thoughts !== undefined && { thoughtsTokenCount: thoughts }),
  };
}

/** One chunk per word (or one functionCall chunk): over SSE with CRLF, or as a JSON array. */
function streamGenerateContent(res: ServerResponse, answer: GenerateAnswer, overSse: boolean, errorAfter: number | undefined): void {
  const { reply } = answer;
  const chunks =
    reply.type === 'text'
      ? reply.words.map((word, index) =>
          generateContentResponse(answer, [{ text: word }], index === reply.words.length - 1, index + 1),
        )
      : [generateContentResponse(answer, [{ functionCall: reply.functionCall }], true, answer.replyTokens)];
  if (!overSse) {
    sendJson(res, 200, chunks);
    return;
  }
  sendEventStream(
    res,
    chunks.map((chunk) => serverSentEvent(chunk, { lineEnd: '\r\n' })),
    { contentType: 'text/event-stream', cutAfter: errorAfter },
  );
}

function parseGenerateContentRequest(body: unknown): GenerateContentRequest {
  if (!isJsonObject(body)) throw googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) {
    throw googleError(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified\n');
  }
  contents.forEach((content, index) => {
    if (!isJsonObject(content) || !Array.isArray(content.parts) || content.parts.length === 0) {
      throw googleError(400, 'INVALID_ARGUMENT', `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`);
    }
  });
  const systemInstruction = field(body, 'systemInstruction', 'system_instruction');
  const tools = field(body, 'tools', 'tools');
  const toolNames = (Array.isArray(tools) ? tools : []).flatMap((tool) => {
    const declarations = isJsonObject(tool) ? field(tool, 'functionDeclarations', 'function_declarations') : undefined;
    return (Array.isArray(declarations) ? declarations : []).flatMap((declaration) =>
      isJsonObject(declaration) && typeof declaration.name === 'string' ? [declaration.name] : [],
    );
  });
  const generationConfig = field(body, 'generationConfig', 'generation_config');
  const maxOutputTokens = isJsonObject(generationConfig) ? field(generationConfig, 'maxOutputTokens', 'max_output_tokens') : undefined;
  return {
    contents: contents as Content[],
    ...(isJsonObject(systemInstruction) && { systemInstruction: systemInstruction as unknown as Content }),
    toolNames,
    ...(typeof maxOutputTokens === 'number' && { maxOutputTokens }),
  };
}

/** A request field by its camelCase or snake_case name. */
function field(object: Record<string, unknown>, camelCase: string, snakeCase: string): unknown {
  return object[camelCase] ?? object[snakeCase];
}

function countPromptTokens(request: GenerateContentRequest): number {
  return estimatePromptTokens(
    [...textOf(request.systemInstruction?.parts), ...request.contents.flatMap((content) => textOf(content.parts))],
    request.contents.length,
  );
}

function textOf(parts: unknown[] | undefined): string[] {
  return (parts ?? []).flatMap((part) => (isJsonObject(part) && typeof part.text === 'string' ? [part.text] : []));
}
