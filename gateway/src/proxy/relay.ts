/**
 * The data plane's one request path, whatever the surface: admit the request on the
 * spend ledger, translate it when the caller's format is not the provider's, send it,
 * pass the answer (or the stream, event by event) back in the caller's format, and
 * record exactly one usage event whatever happens — provider usage when reported, a
 * tiktoken estimate (marked estimated) when a stream is cut short.
 */
import { randomUUID } from 'node:crypto';
import { emptyUsage, microsToDecimalString } from '@spendgate/core';
import type { FastifyReply } from 'fastify';
import { AppError } from '../errors.ts';
import { isUsageOnlyChunk, type Operation, parseStreamEvent, wireFormats, type WireFormat, type WireFormatId } from '../providers/formats/index.ts';
import { type AnyTranslator, translatorFor } from '../providers/translation.ts';
import type { UpstreamTarget } from '../providers/types.ts';
import type { MeteredRequest, Metering } from '../services/metering.ts';
import type { Principal } from '../services/principals.ts';
import type { UpstreamResolver } from '../services/upstreams.ts';
import { readSseEvent, SseSplitter } from './sse.ts';
import { countTokens } from './token-estimate.ts';
import { sendUpstream, type UpstreamResponse } from './upstream.ts';

export interface RelayCall {
  /** The wire format the caller speaks (and is answered in). */
  caller: WireFormatId;
  operation: Operation;
  /** Name of the surface in usage events, e.g. 'chat.completions', 'messages'. */
  endpoint: string;
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  promptTokens: number;
  maxOutputTokens: number | undefined;
}

export interface RelayDeps {
  metering: Metering;
  upstreams: UpstreamResolver;
  upstreamTimeoutMs: number;
}

export async function relay(principal: Principal, reply: FastifyReply, call: RelayCall, deps: RelayDeps) {
  const startedAt = new Date();
  const connection = deps.upstreams.resolve(principal, call.model, startedAt);
  const { adapter } = connection;
  const caller = wireFormats[call.caller];
  const native = wireFormats[adapter.format];
  const translator = adapter.format === call.caller ? undefined : translatorFor(call.caller, adapter.format, call.operation);
  const target: UpstreamTarget = {
    baseUrl: connection.baseUrl,
    model: call.model,
    stream: call.stream,
    options: connection.options,
  };
  const url = adapter.format === call.caller || translator ? adapter.url(call.operation, target) : undefined;
  if (!url) {
    throw new AppError(400, 'unsupported_operation', `${adapter.name} does not offer ${call.endpoint} through this API`);
  }

  const metered: MeteredRequest = {
    requestId: randomUUID(),
    principal,
    connectionId: connection.connectionId,
    provider: adapter.catalogProvider,
    endpoint: call.endpoint,
    startedAt,
  };
  const { remainingMicros, rateLimitHeaders } = await deps.metering.admit(metered, {
    model: call.model,
    promptTokens: call.promptTokens,
    maxOutputTokens: call.maxOutputTokens,
  });

  const nativeBody = adapter.prepareBody(
    call.operation,
    (translator ? translator.request(call.body) : call.body) as Record<string, unknown>,
    target,
  );
  const abort = new AbortController();
  let upstream: UpstreamResponse;
  try {
    upstream = await sendUpstream(url, {
      headers: {
        'content-type': 'application/json',
        accept: call.stream ? 'text/event-stream' : 'application/json',
        ...adapter.authHeaders(connection.secret),
      },
      body: JSON.stringify(nativeBody),
      timeoutMs: deps.upstreamTimeoutMs,
      signal: abort.signal,
    });
  } catch (error) {
    await deps.metering.record(metered, {
      model: call.model,
      usage: emptyUsage(),
      estimated: false,
      statusCode: error instanceof AppError ? error.statusCode : 502,
      streamed: call.stream,
    });
    throw error;
  }

  const headers: Record<string, string> = { ...rateLimitHeaders, 'x-spendgate-request-id': metered.requestId };
  headers['x-spendgate-budget-remaining'] = remainingMicros === undefined ? 'unlimited' : microsToDecimalString(remainingMicros);
  const context: ExchangeContext = { call, caller, native, translator, metered, metering: deps.metering, headers };
  if (call.stream && upstream.statusCode === 200) return relayStream(reply, upstream, abort, context);
  return relayAnswer(reply, upstream, context);
}

interface ExchangeContext {
  call: RelayCall;
  caller: WireFormat;
  native: WireFormat;
  translator: AnyTranslator | undefined;
  metered: MeteredRequest;
  metering: Metering;
  /** x-spendgate-request-id, and the budget left on the tightest hard budget ('unlimited' when none applies). */
  headers: Record<string, string>;
}

async function relayAnswer(reply: FastifyReply, upstream: UpstreamResponse, ctx: ExchangeContext) {
  const text = await upstream.body.text();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  const model = ctx.native.modelFromAnswer(answer) ?? ctx.call.model;
  const usage = upstream.statusCode < 400 ? ctx.native.usageFromAnswer(ctx.call.operation, answer) : undefined;
  const cost = await ctx.metering.record(ctx.metered, {
    model,
    usage: usage ?? emptyUsage(),
    estimated: false,
    statusCode: upstream.statusCode,
    streamed: false,
  });
  const headers: Record<string, string> = { ...ctx.headers, 'x-spendgate-model': model };
  if (cost.status === 'priced') headers['x-spendgate-cost'] = microsToDecimalString(cost.totalMicros);
  reply.code(upstream.statusCode).headers(headers);

  if (answer === undefined && upstream.statusCode < 400) {
    const message = 'The provider answered with something that is not JSON';
    return reply.code(502).send(ctx.caller.errorBody(502, message, 'upstream_invalid_response'));
  }
  if (!ctx.translator) {
    const contentType = upstream.headers['content-type'];
    return reply.header('content-type', typeof contentType === 'string' ? contentType : 'application/json').send(text);
  }
  if (upstream.statusCode >= 400) return reply.send(ctx.translator.error(upstream.statusCode, answer ?? text));
  return reply.send(ctx.translator.response(answer, { requestedModel: ctx.call.model }));
}

async function relayStream(reply: FastifyReply, upstream: UpstreamResponse, abort: AbortController, ctx: ExchangeContext) {
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...ctx.headers,
    'x-spendgate-model': ctx.call.model,
  });
  let clientGone = false;
  out.on('close', () => {
    if (!out.writableFinished) {
      clientGone = true;
      abort.abort();
    }
  });

  const observer = ctx.native.observeStream(ctx.call.operation);
  const translation = ctx.translator?.stream({ requestedModel: ctx.call.model });
  // OpenAI chat callers who did not ask for the usage chunk do not get the one we asked for.
  const callerWantsUsage = (ctx.call.body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const hideUsageChunk = ctx.caller.id === 'openai' && ctx.call.operation === 'chat' && !callerWantsUsage;
  // The provider's bytes go to the caller as they arrive unless events must be translated
  // or one left out; the events are still followed for usage.
  const passThrough = !translation && !hideUsageChunk;
  const send = (frame: string | Uint8Array) => {
    if (!clientGone) out.write(frame);
  };

  const handle = (raw: string) => {
    const event = readSseEvent(raw);
    if (!event) return;
    if (!translation) {
      const parsed = observer.observeRaw(event);
      if (!passThrough && !(parsed && isUsageOnlyChunk(parsed.data))) send(raw);
      return;
    }
    const parsed = parseStreamEvent(event);
    observer.observe(parsed);
    for (const translated of translation.push(parsed)) {
      if (!(hideUsageChunk && isUsageOnlyChunk(translated.data))) send(ctx.caller.frame(translated));
    }
  };

  const splitter = new SseSplitter();
  let upstreamEnded = false;
  try {
    for await (const chunk of upstream.body) {
      // Whatever one chunk yields leaves in one write.
      out.cork();
      if (passThrough) send(chunk as Uint8Array);
      for (const raw of splitter.push(chunk as Uint8Array)) handle(raw);
      out.uncork();
    }
    const rest = splitter.rest();
    if (rest.trim()) handle(rest);
    upstreamEnded = true;
  } catch {
    // The client left (we aborted) or the provider cut the stream: bill what was generated.
  }

  const completed = upstreamEnded && observer.completed();
  if (!clientGone) {
    if (completed) {
      if (translation) {
        for (const translated of translation.end()) {
          if (!(hideUsageChunk && isUsageOnlyChunk(translated.data))) send(ctx.caller.frame(translated));
        }
        if (ctx.caller.streamTerminator) send(ctx.caller.streamTerminator);
      }
      out.end();
    } else {
      // A stream the provider cut short is cut for the caller too: a clean end would
      // pass for a complete answer.
      out.destroy();
    }
  }

  // Reported usage is final only for a completed stream; otherwise the output so far
  // is estimated (and never less than what the provider had already reported).
  const reported = observer.usage();
  const generated = () => countTokens(observer.generatedText());
  const usage =
    completed && reported
      ? reported
      : reported
        ? { ...reported, outputTokens: Math.max(reported.outputTokens, generated()) }
        : { ...emptyUsage(), inputTokens: ctx.call.promptTokens, outputTokens: generated() };
  await ctx.metering.record(ctx.metered, {
    model: observer.model() ?? ctx.call.model,
    usage,
    estimated: !(completed && reported),
    statusCode: completed ? 200 : clientGone ? 499 : 502,
    streamed: true,
  });
}
