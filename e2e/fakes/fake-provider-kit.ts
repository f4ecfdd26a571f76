/**
 * What the provider fakes share: an HTTP server on 127.0.0.1 with a free port that records
 * every request (headers included), merges the fake's control headers into it and answers a
 * thrown `FakeHttpError` in the provider's own error shape; the deterministic rules every fake
 * documents (echo reply, one token per word, prompt tokens from characters, the
 * "call <tool>" rule); and the parsing of the `x-fake-*` test-control headers.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/messages` or `/v1beta/models/m:generateContent?key=k`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; the raw text when it was not JSON; undefined when empty. */
  body: unknown;
  /** The body's text as it arrived ('' when empty). */
  bodyText: string;
}

/** What every `startFake…()` returns. */
export interface FakeProvider {
  /** `http://127.0.0.1:<port>` plus the base path the provider's SDK expects, if any. */
  url: string;
  /** Every request received, in order, rejected ones included. */
  requests: RecordedRequest[];
  /**
   * Test-control headers applied to every following request, e.g. `{ 'x-fake-status': '429' }`,
   * for requests that come through the gateway, which forwards no such header. A request's
   * own header wins. With `'x-fake-status-times': 'N'` beside it, the forced status applies to
   * the next N requests only (then both entries are removed), e.g. to fail once and recover.
   */
  controlHeaders: Record<string, string>;
  close(): Promise<void>;
}

export interface FakeProviderOptions {
  /** The only API key the fake accepts; each fake has its own default. */
  apiKey?: string;
}

/** An answer other than 200, in the body shape of the provider that throws it. */
export class FakeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`fake provider answers ${status}`);
  }
}

export interface FakeProviderHandlers {
  /** Appended to the origin to make the fake's `url`, e.g. `/v1`. */
  basePath?: string;
  /** Headers set on every answer, errors included, e.g. a request id. */
  responseHeaders?(): Record<string, string>;
  /**
   * Answers one request: already recorded, its headers merged with the control headers
   * (the request's own headers win). Throws a `FakeHttpError` to answer an error.
   */
  answer(request: RecordedRequest, res: ServerResponse): void | Promise<void>;
  /** The provider's 500 for anything else thrown, i.e. a bug in the fake. */
  internalError(message: string): FakeHttpError;
  /** Adds per-request fields to an error body, e.g. Anthropic's `request_id`. */
  completeErrorBody?(body: unknown, responseHeaders: Readonly<Record<string, string>>): unknown;
}

/**
 * Starts a fake provider's server on 127.0.0.1 with a free port.
 * @example
 * const fake = await startFakeProviderServer({ answer: (request, res) => sendJson(res, 200, {}), internalError });
 * await fetch(`${fake.url}/anything`); // fake.requests[0].path === '/anything'
 */
export async function startFakeProviderServer(handlers: FakeProviderHandlers): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const controlHeaders: Record<string, string> = {};

  const server = createServer(async (incoming, res) => {
    const responseHeaders = handlers.responseHeaders?.() ?? {};
    for (const [name, value] of Object.entries(responseHeaders)) res.setHeader(name, value);
    try {
      const recorded = await recordRequest(incoming);
      requests.push(recorded);
      const headers = { ...controlHeaders, ...recorded.headers };
      countDownForcedStatus(controlHeaders);
      await handlers.answer({ ...recorded, headers }, res);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const httpError =
        error instanceof FakeHttpError
          ? error
          : handlers.internalError(`Fake provider failed: ${error instanceof Error ? error.message : String(error)}`);
      for (const [name, value] of Object.entries(httpError.headers)) res.setHeader(name, value);
      const body = handlers.completeErrorBody?.(httpError.body, responseHeaders) ?? httpError.body;
      sendJson(res, httpError.status, body);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${handlers.basePath ?? ''}`,
    requests,
    controlHeaders,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** `x-fake-status-times` on the fake's control headers: one request fewer to force the status on. */
function countDownForcedStatus(controlHeaders: Record<string, string>): void {
  const times = controlHeaders['x-fake-status-times'];
  if (times === undefined) return;
  const left = Number(times) - 1;
  if (left > 0) {
    controlHeaders['x-fake-status-times'] = String(left);
    return;
  }
  delete controlHeaders['x-fake-status'];
  delete controlHeaders['x-fake-status-times'];
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
    bodyText: text,
  };
}

/** Ids `<prefix><12-digit sequence>`, unique within one fake. */
export function sequentialIds(): (prefix: string) => string {
  let sequence = 0;
  return (prefix) => `${prefix}${String(++sequence).padStart(12, '0')}`;
}

// ---- Deterministic rules shared by every fake ----

const CHARACTERS_PER_TOKEN = 4;
const PROMPT_TOKENS_PER_MESSAGE = 3;

/** ceil(characters of all texts / 4) + 3 × messages: the prompt-token rule of every fake. */
export function estimatePromptTokens(texts: readonly string[], messageCount: number): number {
  const characters = texts.reduce((sum, text) => sum + text.length, 0);
  return Math.ceil(characters / CHARACTERS_PER_TOKEN) + PROMPT_TOKENS_PER_MESSAGE * messageCount;
}

/** ceil(characters / 4), for texts counted without a per-message overhead (embeddings, tool input). */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}

export interface EchoReply {
  /** The reply split into words, each with its leading whitespace: joined they give the text. */
  words: string[];
  /** True when the reply was cut to the output-token limit. */
  truncated: boolean;
}

/** `echo: <text>`, one token per word, cut to `limit` words when a limit is given. */
export function echoReply(text: string, limit: number | null | undefined): EchoReply {
  const words = splitIntoWords(`echo: ${text}`.trimEnd());
  if (typeof limit === 'number' && limit < words.length) return { words: words.slice(0, limit), truncated: true };
  return { words, truncated: false };
}

/** Words with their leading whitespace, so that `words.join('') === text` (less leading space). */
export function splitIntoWords(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

/** Splits text into pieces of at most 4 characters: one piece per token of `estimateTextTokens`. */
export function splitIntoTokenPieces(text: string): string[] {
  return text.match(new RegExp(`.{1,${CHARACTERS_PER_TOKEN}}`, 'gs')) ?? [];
}

export interface RequestedToolCall {
  name: string;
  input: Record<string, unknown>;
}

/**
 * The tool rule of every fake: when the request offers tools and the last user text reads
 * `call <toolName>` optionally followed by a JSON object, the model calls that tool with that
 * object (or `{}`). Any other text, or a name not offered, gets the echo reply.
 * @example requestedToolCall('call get_weather {"city":"Paris"}', ['get_weather'])
 * // → { name: 'get_weather', input: { city: 'Paris' } }
 */
export function requestedToolCall(text: string, offeredToolNames: readonly string[]): RequestedToolCall | undefined {
  const match = /^call (\S+)(?:\s+(.*))?$/s.exec(text.trim());
  if (!match?.[1] || !offeredToolNames.includes(match[1])) return undefined;
  const argument = match[2] === undefined ? undefined : parseJsonOrKeepText(match[2]);
  return { name: match[1], input: isJsonObject(argument) ? argument : {} };
}

// ---- Test-control headers ----

/** Builds the provider's 400 for a malformed test-control header. */
export type ControlErrorFactory = (header: string, requirement: string) => FakeHttpError;

/**
 * Reads `x-fake-usage`: a JSON object of non-negative integers among `fields`. One level of
 * nesting is flattened, so a test may write a provider's own usage shape, e.g.
 * `{"cache_creation":{"ephemeral_1h_input_tokens":5}}` reads as `{ephemeral_1h_input_tokens: 5}`.
 */
export function readForcedUsage<Field extends string>(
  headers: IncomingHttpHeaders,
  fields: readonly Field[],
  controlError: ControlErrorFactory,
): Partial<Record<Field, number>> {
  const header = singleHeader(headers, 'x-fake-usage');
  if (header === undefined) return {};
  const forced = parseJsonOrKeepText(header);
  const flattened = isJsonObject(forced)
    ? Object.entries(forced).flatMap(([field, value]) => (isJsonObject(value) ? Object.entries(value) : [[field, value]]))
    : [];
  const valid =
    isJsonObject(forced) &&
    flattened.every(
      ([field, value]) => fields.includes(field as Field) && Number.isInteger(value) && (value as number) >= 0,
    );
  if (!valid) {
    throw controlError('x-fake-usage', `must be a JSON object of non-negative integers among ${fields.join(', ')}`);
  }
  return Object.fromEntries(flattened) as Partial<Record<Field, number>>;
}

/** Reads `x-fake-stream-error-after`: how many content events to send before the stream breaks. */
export function readStreamErrorAfter(headers: IncomingHttpHeaders, controlError: ControlErrorFactory): number | undefined {
  const header = singleHeader(headers, 'x-fake-stream-error-after');
  if (header === undefined) return undefined;
  const eventCount = Number(header);
  if (!Number.isInteger(eventCount) || eventCount < 0) {
    throw controlError('x-fake-stream-error-after', 'must be a non-negative integer');
  }
  return eventCount;
}

/** Reads `x-fake-stream-interval-ms`: a pause between stream events (a slow provider). */
export function readStreamIntervalMs(headers: IncomingHttpHeaders, controlError: ControlErrorFactory): number | undefined {
  const header = singleHeader(headers, 'x-fake-stream-interval-ms');
  if (header === undefined) return undefined;
  const interval = Number(header);
  if (!Number.isInteger(interval) || interval < 0 || interval > 5000) {
    throw controlError('x-fake-stream-interval-ms', 'must be an integer from 0 to 5000');
  }
  return interval;
}

/** Throws the provider's error for the status asked by `x-fake-status`, if any. */
export function throwForcedStatus(
  headers: IncomingHttpHeaders,
  forcedErrors: ReadonlyMap<string, () => FakeHttpError>,
  controlError: ControlErrorFactory,
): void {
  const status = singleHeader(headers, 'x-fake-status');
  if (status === undefined) return;
  const forcedError = forcedErrors.get(status);
  if (!forcedError) throw controlError('x-fake-status', `must be one of ${[...forcedErrors.keys()].join(', ')}`);
  throw forcedError();
}

// ---- HTTP helpers ----

export function singleHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function parseJsonOrKeepText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * One server-sent event: `event: <name>` when named, `data: <json>`, then a blank line.
 * Lines end in `\n` unless told otherwise (Google ends them in `\r\n`).
 */
export function serverSentEvent(data: unknown, { name, lineEnd = '\n' }: { name?: string; lineEnd?: string } = {}): string {
  const eventLine = name === undefined ? '' : `event: ${name}${lineEnd}`;
  return `${eventLine}data: ${typeof data === 'string' ? data : JSON.stringify(data)}${lineEnd}${lineEnd}`;
}

/**
 * Sends a whole event stream. With `cutAfter` = N, only the first N events are sent and then
 * the socket is destroyed, as when a connection to the provider breaks mid-stream. With
 * `intervalMs`, events go one at a time with that pause, and sending stops if the reader leaves.
 */
export function sendEventStream(
  res: ServerResponse,
  events: readonly string[],
  {
    contentType = 'text/event-stream; charset=utf-8',
    cutAfter,
    intervalMs,
  }: { contentType?: string; cutAfter?: number | undefined; intervalMs?: number | undefined } = {},
): void {
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  if (intervalMs !== undefined && cutAfter === undefined) {
    const remaining = [...events];
    const sendNext = () => {
      if (res.destroyed) return;
      const event = remaining.shift();
      if (event === undefined) {
        res.end();
        return;
      }
      res.write(event);
      setTimeout(sendNext, intervalMs);
    };
    sendNext();
    return;
  }
  if (cutAfter === undefined) {
    res.end(events.join(''));
    return;
  }
  res.write(events.slice(0, cutAfter).join(''), () => res.socket?.destroy());
}
