/**
 * The data plane's one request path, whatever the surface: route it (the attempts the
 * router plans), admit it on the spend ledger against the dearest attempt, translate it
 * when the caller's format is not the provider's, send it with retries and failover,
 * pass the answer (or the stream, event by event) back in the caller's format, and
 * record exactly one usage event whatever happens — provider usage when reported, a
 * tiktoken estimate (marked estimated) when a stream is cut short.
 *
 * Objects made for every request are built field by field, not with object spread: the
 * spreads it had cost a fifth of the gateway's CPU per request (bench, json, 10
 * connections). Spreads remain only on rare paths (a fallback model, a stream cut short).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { AppError, emptyUsage, microsToDecimalString, plainUsage, type RequestNeeds, type UpstreamError } from '@spendgate/core';
import type { PromptCapture } from '../capture/prompt-capture.ts';
import type { ObservedTrace, RequestObserver, RequestTracer } from '../observability/request-observer.ts';
import {
  type Operation,
  parseStreamEvent,
  type RequestFeatures,
  type WireFormat,
  type WireFormatId,
  wireFormats,
} from '../providers/formats/index.ts';
import { type AnyTranslator, translatorFor } from '../providers/translation.ts';
import type { UpstreamTarget } from '../providers/types.ts';
import { forwardWithFailover } from './failover.ts';
import type { Admission, MeteredRequest, Metering } from './metering.ts';
import type { Principal } from './principals.ts';
import { sendJson } from './respond.ts';
import type { Attempt, RoutePlan, Router } from './routing.ts';
import { readSseEvent, SseSplitter } from './sse.ts';
import { countTokens } from './token-estimate.ts';
import { sendUpstream, type UpstreamResponse } from './upstream.ts';
import type { UpstreamResolver } from './upstreams.ts';

export interface RelayCall {
  /** The wire format the caller speaks (and is answered in). */
  caller: WireFormatId;
  operation: Operation;
  /** Name of the surface in usage events, e.g. 'chat.completions', 'messages'. */
  endpoint: string;
  body: Record<string, unknown>;
  /** The body as the caller sent it: forwarded as it is when nothing changes the body. */
  bodyBytes: Buffer;
  model: string;
  stream: boolean;
  /** The prompt's estimated tokens, counted (tiktoken) only when something asks. */
  promptTokens: () => Promise<number>;
  /** An upper bound of the prompt's tokens that costs no counting: its bytes, plus its images' tokens. */
  promptTokenBound: number | undefined;
  /** The caller's output limit per answer; 0 for operations without output. */
  maxOutputTokens: number | undefined;
  /** Answers asked for (OpenAI's `n`). */
  choices: number;
  /** The caller's request headers: its W3C trace context is read from them. */
  callerHeaders: IncomingHttpHeaders;
}

export interface RelayDeps {
  metering: Metering;
  /** Takes the exchanges of teams that capture prompts, after the answer has gone. */
  capture: Pick<PromptCapture, 'keep'>;
  upstreams: UpstreamResolver;
  router: Router;
  upstreamTimeoutMs: number;
  /** The gateway's own observability (upstream failures here; the rest through metering); undefined when off. */
  observer: RequestObserver | undefined;
  /** Starts each request's span before it is sent (OpenTelemetry with a traces endpoint); undefined when nothing traces. */
  tracer: RequestTracer | undefined;
}

/** One attempt made ready to send: its formats, translator, target and URL. */
interface Exchange extends Attempt {
  native: WireFormat;
  translator: AnyTranslator | undefined;
  target: UpstreamTarget;
  url: string;
}

/** The plan's attempts that can take this call (the provider offers the operation, in a format we translate). */
function exchangesFor(plan: RoutePlan, call: RelayCall): Exchange[] {
  return plan.attempts.flatMap((attempt) => {
    const { adapter } = attempt.upstream;
    const translator = adapter.format === call.caller ? undefined : translatorFor(call.caller, adapter.format, call.operation);
    const target: UpstreamTarget = { baseUrl: attempt.upstream.baseUrl, model: attempt.model, stream: call.stream, options: attempt.upstream.options };
    const url = adapter.format === call.caller || translator ? adapter.url(call.operation, target) : undefined;
    return url ? [{ upstream: attempt.upstream, model: attempt.model, native: wireFormats[adapter.format], translator, target, url }] : [];
  });
}

/**
 * What a call needs of a model, each part worked out only when routing asks (it does
 * only when it chooses among models). Its getters live on the class: an object literal
 * with getters costs ~1 µs to make.
 */
class CallNeeds implements RequestNeeds {
  readonly #call: RelayCall;
  readonly #caller: WireFormat;
  /** Counted before planning, when the router chooses among models (it then compares their context windows). */
  readonly #promptTokens: number;
  /** The caller's output limit under the key's cap. */
  readonly #maxOutputTokens: number | undefined;
  #features: RequestFeatures | undefined;

  constructor(call: RelayCall, caller: WireFormat, promptTokens: number, maxOutputTokens: number | undefined) {
    this.#call = call;
    this.#caller = caller;
    this.#promptTokens = promptTokens;
    this.#maxOutputTokens = maxOutputTokens;
  }
  get promptTokens() {
    return this.#promptTokens;
  }
  get maxOutputTokens() {
    return this.#maxOutputTokens;
  }
  get tools() {
    return this.#featuresOfCall().tools;
  }
  get images() {
    return this.#featuresOfCall().images;
  }
  get jsonMode() {
    return this.#featuresOfCall().jsonMode;
  }
  #featuresOfCall(): RequestFeatures {
    this.#features ??= this.#caller.requestFeatures(this.#call.operation, this.#call.body);
    return this.#features;
  }
}

/** An output limit the provider is sent that the caller did not ask for: a hard budget's (admission's), or the key's `maxOutputTokens`. */
type OutputCap = NonNullable<Admission['outputCap']> | { tokens: number; reason: 'key-setting' };

/** What the `x-spendgate-output-cap` header says of a limit the gateway set. */
function describeOutputCap(cap: OutputCap): string {
  return `${cap.tokens}; reason=${cap.reason}`;
}

/**
 * The W3C trace context sent to the provider: the gateway span's when it traces, else the
 * caller's headers as they came (as any proxy passes them). Nothing is made when there is none.
 */
function addTraceContext(headers: Record<string, string>, trace: ObservedTrace | undefined, callerHeaders: IncomingHttpHeaders): void {
  const traceparent = trace ? trace.traceparent : callerHeaders.traceparent;
  if (typeof traceparent !== 'string') return;
  headers.traceparent = traceparent;
  const tracestate = trace ? trace.tracestate : callerHeaders.tracestate;
  if (typeof tracestate === 'string') headers.tracestate = tracestate;
}

/** The caller's output limit per answer lowered to the key's cap (the cap when it asked none); 0 (no output) stays 0. */
function underKeyCap(asked: number | undefined, cap: number | undefined): number | undefined {
  if (cap === undefined || asked === 0) return asked;
  return asked === undefined ? cap : Math.min(asked, cap);
}

export async function relay(principal: Principal, response: ServerResponse, call: RelayCall, deps: RelayDeps) {
  const startedAt = new Date();
  const caller = wireFormats[call.caller];
  // The key's output cap applies before anything reads the limit: routing, admission's worst case, the body sent.
  const maxOutputTokens = underKeyCap(call.maxOutputTokens, principal.settings.maxOutputTokens);
  const needs = new CallNeeds(call, caller, deps.router.choosesAmongModels(principal) ? await call.promptTokens() : Number.NaN, maxOutputTokens);
  let plan = deps.router.plan(principal, { model: call.model, operation: call.operation, needs }, startedAt);
  let exchanges = exchangesFor(plan, call);
  if (exchanges.length === 0) {
    const { adapter } = plan.attempts[0]!.upstream;
    throw new AppError(400, 'unsupported_operation', `${adapter.name} does not offer ${call.endpoint} through this API`);
  }

  // Admission reserves what the dearest attempt would cost, so budgets hold whichever serves.
  const first = exchanges[0]!;
  const metered: MeteredRequest = {
    requestId: randomUUID(),
    principal,
    connectionId: first.upstream.connectionId,
    provider: first.upstream.adapter.catalogProvider,
    endpoint: call.endpoint,
    startedAt,
    bodyBytes: call.bodyBytes,
    requestedModel: call.model,
    requestedOutputTokens: maxOutputTokens || undefined,
    firstByteAt: undefined,
    trace: undefined,
  };
  const { remainingMicros, rateLimitHeaders, downgradeBudgetId, outputCap } = await deps.metering.admit(metered, {
    candidates: exchanges.map((exchange) => ({ provider: exchange.upstream.adapter.catalogProvider, model: exchange.model })),
    promptTokens: call.promptTokens,
    promptTokenBound: call.promptTokenBound,
    maxOutputTokens,
    choices: call.choices,
  });
  const sentCap: OutputCap | undefined =
    outputCap ?? (maxOutputTokens === call.maxOutputTokens ? undefined : { tokens: maxOutputTokens!, reason: 'key-setting' });
  if (downgradeBudgetId) {
    plan = deps.router.downgrade(principal, plan, downgradeBudgetId, startedAt);
    exchanges = exchangesFor(plan, call);
  }

  const timeoutMs = principal.settings.timeoutMs ?? deps.upstreamTimeoutMs;
  metered.trace = deps.tracer?.startTrace(metered, call.callerHeaders);
  const forwarded = await forwardWithFailover(
    exchanges,
    (exchange) => {
      const body = exchange.model === call.model ? call.body : { ...call.body, model: exchange.model };
      const { adapter } = exchange.upstream;
      const prepared = adapter.prepareBody(
        call.operation,
        (exchange.translator ? exchange.translator.request(body) : body) as Record<string, unknown>,
        exchange.target,
      );
      // A limit the gateway sets goes on the provider's own body, whatever the caller's format.
      const nativeBody = sentCap ? adapter.limitOutput(call.operation, prepared, sentCap.tokens) : prepared;
      const headers = exchange.upstream.adapter.authHeaders(exchange.upstream.secret);
      headers['content-type'] = 'application/json';
      headers.accept = call.stream ? 'text/event-stream' : 'application/json';
      addTraceContext(headers, metered.trace, call.callerHeaders);
      return sendUpstream(exchange.url, {
        headers,
        // Unchanged (no other model, translation or usage option): the caller's bytes, not encoded again.
        body: nativeBody === call.body ? call.bodyBytes : JSON.stringify(nativeBody),
        timeoutMs,
        dispatcher: exchange.upstream.dispatcher,
      });
    },
    {
      health: deps.router.health,
      timeoutMs,
      startedAt: startedAt.getTime(),
      reason: plan.reason,
      observer: deps.observer,
    },
  ).catch(async (error: unknown) => {
    // Refused before reaching any provider (e.g. a request the translator cannot carry).
    await deps.metering.release(metered);
    throw error;
  });
  const served = forwarded.attempt;
  if ('response' in forwarded) metered.firstByteAt = Date.now();
  metered.provider = served.upstream.adapter.catalogProvider;
  metered.connectionId = served.upstream.connectionId;

  const headers: Record<string, string> = Object.assign(
    {
      'x-spendgate-request-id': metered.requestId,
      'x-spendgate-model': served.model,
      'x-spendgate-route': forwarded.route,
      'x-spendgate-budget-remaining': remainingMicros === undefined ? 'unlimited' : microsToDecimalString(remainingMicros),
    },
    rateLimitHeaders,
  );
  if (sentCap) headers['x-spendgate-output-cap'] = describeOutputCap(sentCap);
  if ('error' in forwarded) {
    unanswered(response, headers, forwarded.error, deps.metering, metered, { model: served.model, streamed: call.stream, route: forwarded.route });
  }

  const upstream = forwarded.response;
  const context: ExchangeContext = {
    call,
    principal,
    capture: deps.capture,
    model: served.model,
    caller,
    native: served.native,
    translator: served.translator,
    metered,
    metering: deps.metering,
    headers,
    route: forwarded.route,
  };
  if (call.stream && upstream.statusCode === 200) return relayStream(response, upstream, context);
  return relayAnswer(response, upstream, context);
}

/**
 * A request no provider answered whole: recorded with no usage (its reservation settled
 * at nothing), and the error thrown to be answered with the x-spendgate-* headers.
 */
function unanswered(
  response: ServerResponse,
  headers: Record<string, string>,
  error: UpstreamError,
  metering: Metering,
  metered: MeteredRequest,
  outcome: { model: string; streamed: boolean; route: string },
): never {
  metering.record(metered, { ...outcome, usage: emptyUsage(), estimated: false, statusCode: error.statusCode });
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  throw error;
}

interface ExchangeContext {
  call: RelayCall;
  principal: Principal;
  capture: RelayDeps['capture'];
  /** The model asked of the provider that answered. */
  model: string;
  caller: WireFormat;
  native: WireFormat;
  translator: AnyTranslator | undefined;
  metered: MeteredRequest;
  metering: Metering;
  /** x-spendgate-request-id, -model, -route, the budget left on the tightest hard budget ('unlimited' when none applies), x-ratelimit-*. */
  headers: Record<string, string>;
  /** Why the model that served was chosen, for the usage event. */
  route: string;
}

/** Hands the exchange to capture when the team and group capture prompts (after the answer is sent). */
function captureExchange(ctx: ExchangeContext, response: string, streamed: boolean): void {
  const terms = ctx.principal.capture;
  if (terms === undefined) return;
  ctx.capture.keep(
    {
      requestId: ctx.metered.requestId,
      teamId: ctx.principal.teamId,
      groupId: ctx.principal.groupId,
      at: ctx.metered.startedAt,
      requestBody: ctx.call.bodyBytes,
      response,
      streamed,
    },
    terms,
  );
}

async function relayAnswer(response: ServerResponse, upstream: UpstreamResponse, ctx: ExchangeContext) {
  const bytes = await upstream.bytes().catch((error: UpstreamError) =>
    // The provider cut its answer: nothing to bill that we know of, but the request is recorded.
    unanswered(response, ctx.headers, error, ctx.metering, ctx.metered, { model: ctx.model, streamed: false, route: ctx.route }),
  );
  const text = bytes.toString();
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  const model = ctx.native.modelFromAnswer(answer) ?? ctx.model;
  const usage = upstream.statusCode < 400 ? ctx.native.usageFromAnswer(ctx.call.operation, answer) : undefined;
  const cost = ctx.metering.record(ctx.metered, {
    model,
    usage: usage ?? emptyUsage(),
    estimated: false,
    statusCode: upstream.statusCode,
    streamed: false,
    route: ctx.route,
  });
  const { headers } = ctx;
  headers['x-spendgate-model'] = model;
  if (cost.status === 'priced') headers['x-spendgate-cost'] = microsToDecimalString(cost.totalMicros);

  if (answer === undefined && upstream.statusCode < 400) {
    const message = 'The provider answered with something that is not JSON';
    sendJson(response, 502, ctx.caller.errorBody(502, message, 'upstream_invalid_response'), headers);
  } else if (!ctx.translator) {
    const contentType = upstream.headers['content-type'];
    sendJson(response, upstream.statusCode, bytes, headers, typeof contentType === 'string' ? contentType : 'application/json');
  } else if (upstream.statusCode >= 400) {
    sendJson(response, upstream.statusCode, ctx.translator.error(upstream.statusCode, answer ?? text), headers);
  } else {
    sendJson(response, upstream.statusCode, ctx.translator.response(answer, { requestedModel: ctx.model }), headers);
  }
  captureExchange(ctx, text, false);
}

async function relayStream(out: ServerResponse, upstream: UpstreamResponse, ctx: ExchangeContext) {
  out.writeHead(200, Object.assign({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' }, ctx.headers));
  let clientGone = false;
  out.on('close', () => {
    if (!out.writableFinished) {
      clientGone = true;
      upstream.abort();
    }
  });

  const observer = ctx.native.observeStream(ctx.call.operation);
  const translation = ctx.translator?.stream({ requestedModel: ctx.model });
  // Events the gateway asked for and the caller did not (OpenAI's usage chunk) are not sent.
  const notAskedFor = ctx.caller.eventsNotAskedFor?.(ctx.call.operation, ctx.call.body);
  const askedFor = (data: unknown) => !notAskedFor?.(data);
  // The provider's bytes go to the caller as they arrive unless events must be translated
  // or one left out; the events are still followed for usage.
  const passThrough = !translation && !notAskedFor;
  const send = (frame: string | Uint8Array) => {
    if (!clientGone) out.write(frame);
  };

  const handle = (raw: string) => {
    const event = readSseEvent(raw);
    if (!event) return;
    if (!translation) {
      const parsed = observer.observeRaw(event);
      if (!passThrough && (!parsed || askedFor(parsed.data))) send(raw);
      return;
    }
    const parsed = parseStreamEvent(event);
    observer.observe(parsed);
    for (const translated of translation.push(parsed)) {
      if (askedFor(translated.data)) send(ctx.caller.frame(translated));
    }
  };

  const splitter = new SseSplitter();
  let completed = false;
  let finished = false;
  /** The provider's body is all here: the caller's stream ends, in the same write as its last events. */
  const finish = () => {
    finished = true;
    const rest = splitter.rest();
    if (rest.trim()) handle(rest);
    completed = observer.completed();
    if (clientGone) return;
    if (!completed) {
      // A stream the provider cut short is cut for the caller too: a clean end would
      // pass for a complete answer.
      out.destroy();
      return;
    }
    if (translation) {
      for (const translated of translation.end()) {
        if (askedFor(translated.data)) send(ctx.caller.frame(translated));
      }
      if (ctx.caller.streamTerminator) send(ctx.caller.streamTerminator);
    }
    out.end();
  };
  try {
    for await (const chunk of upstream.chunks()) {
      // Whatever one chunk yields leaves in one write.
      out.cork();
      if (passThrough) send(chunk);
      for (const raw of splitter.push(chunk)) handle(raw);
      if (upstream.complete) finish();
      out.uncork();
    }
    if (!finished) finish();
  } catch {
    // The client left (we aborted) or the provider cut the stream: bill what was generated.
    if (!clientGone) out.destroy();
  }

  // Reported usage is final only for a completed stream; otherwise the output so far is
  // estimated (never less than what the provider had already reported), counted on the
  // tokenizer's thread while metering holds the record, so a shutdown waits for it.
  const reported = observer.usage();
  const model = observer.model() ?? ctx.model;
  captureExchange(ctx, observer.generatedText(), true);
  if (completed && reported) {
    ctx.metering.record(ctx.metered, { model, usage: reported, estimated: false, statusCode: 200, streamed: true, route: ctx.route });
    return;
  }
  const statusCode = completed ? 200 : clientGone ? 499 : 502;
  const estimate = async () => {
    const generated = await countTokens(observer.generatedText());
    const usage = reported
      ? { ...reported, outputTokens: Math.max(reported.outputTokens, generated) }
      : plainUsage(await ctx.call.promptTokens(), generated);
    return { model, usage, estimated: true, statusCode, streamed: true, route: ctx.route };
  };
  ctx.metering.recordWhenKnown(ctx.metered, estimate());
}
