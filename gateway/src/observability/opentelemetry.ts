/**
 * OpenTelemetry for the data plane, named by the GenAI semantic conventions: a client
 * span per request that reached a provider (`{operation} {model}`, with
 * `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
 * `gen_ai.response.model`, `gen_ai.usage.*`), and the `gen_ai.client.token.usage` and
 * `gen_ai.client.operation.duration` histograms, exported over OTLP/HTTP.
 *
 * W3C trace context: with a traces endpoint, a request's span starts before it is sent,
 * as the child of the caller's `traceparent` when it sent a valid one, and its own
 * `traceparent` (with the caller's `tracestate`) goes to the provider, so a trace the
 * provider keeps joins the caller's. Without one the relay passes the caller's headers on.
 *
 * Off unless an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT, or the
 * signal's own _TRACES_/_METRICS_ENDPOINT): then the SDK is loaded (dynamic imports, so
 * a gateway without it never loads it) and its observer is added to the data plane's.
 * The other standard OTEL_* variables (headers, timeouts, span limits) are read by the SDK.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Span, SpanContext } from '@opentelemetry/api';
import type { ObservabilityConfig } from '@spendgate/store';
import type { ObservedOutcome, ObservedRequest, ObservedTrace, RequestObserver, RequestTracer } from './request-observer.ts';

/** The conventions' names this module emits (checked against the published conventions in opentelemetry.test.ts). */
export const GEN_AI = {
  tokenUsageMetric: 'gen_ai.client.token.usage',
  operationDurationMetric: 'gen_ai.client.operation.duration',
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  tokenType: 'gen_ai.token.type',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  errorType: 'error.type',
} as const;

/** An operation the conventions have no value for, named as the provider names it (as they advise). */
export const CUSTOM_OPERATIONS = new Set(['count_tokens']);

/** `gen_ai.operation.name` of each data-plane surface: the conventions' well-known values, else one of CUSTOM_OPERATIONS. */
export const OPERATION_NAMES: Readonly<Record<string, string>> = {
  'chat.completions': 'chat',
  messages: 'chat',
  responses: 'chat',
  embeddings: 'embeddings',
  'messages.count_tokens': 'count_tokens',
};

/** `gen_ai.provider.name` of our providers that the conventions name; the others keep their id. */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: 'openai',
  'azure-openai': 'azure.ai.openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  mistral: 'mistral_ai',
  groq: 'groq',
  deepseek: 'deepseek',
  xai: 'x_ai',
  perplexity: 'perplexity',
};

/** The conventions' advised bucket boundaries. */
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

const INSTRUMENTATION_SCOPE = 'spendgate-gateway';

/** `traceparent`: version, trace id, parent span id and flags, in lower-case hex (https://www.w3.org/TR/trace-context/#traceparent-header). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-|$)/;
const TRACEPARENT_V00_LENGTH = 55;

/** A request's span and the trace context it sends to the provider. */
class RequestSpan implements ObservedTrace {
  constructor(
    readonly span: Span,
    readonly traceparent: string,
    readonly tracestate: string | undefined,
  ) {}
}

/** Starts the SDK's exporters; `close` flushes what is pending and stops them. */
export async function startOpenTelemetry(config: NonNullable<ObservabilityConfig['otel']>) {
  const [api, { BasicTracerProvider, BatchSpanProcessor }, { MeterProvider, PeriodicExportingMetricReader }, { OTLPTraceExporter }, { OTLPMetricExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const resource = resourceFromAttributes({ 'service.name': config.serviceName });
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: config.tracesUrl ? [new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesUrl }))] : [],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: config.metricsUrl
      ? [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url: config.metricsUrl }), exportIntervalMillis: config.metricExportIntervalMs })]
      : [],
  });
  const sdkTracer = tracerProvider.getTracer(INSTRUMENTATION_SCOPE);
  const meter = meterProvider.getMeter(INSTRUMENTATION_SCOPE);
  const tokenUsage = meter.createHistogram(GEN_AI.tokenUsageMetric, {
    unit: '{token}',
    description: 'Measures number of input and output tokens used',
    advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
  });
  const operationDuration = meter.createHistogram(GEN_AI.operationDurationMetric, {
    unit: 's',
    description: 'GenAI operation duration',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });

  /**
   * The caller's trace context as the spec reads it: an unknown version may add fields
   * after the four, version 00 may not; `ff`, all-zero ids or a malformed header start a
   * new trace (and its tracestate is then dropped).
   */
  const callerSpanContext = (headers: IncomingHttpHeaders): SpanContext | undefined => {
    const traceparent = headers.traceparent;
    if (typeof traceparent !== 'string') return undefined;
    const value = traceparent.trim();
    const match = TRACEPARENT.exec(value);
    if (!match) return undefined;
    const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
    if (version === 'ff' || (version === '00' && value.length !== TRACEPARENT_V00_LENGTH)) return undefined;
    if (!api.isValidTraceId(traceId) || !api.isValidSpanId(spanId)) return undefined;
    const tracestate = headers.tracestate;
    return {
      traceId,
      spanId,
      traceFlags: Number.parseInt(flags, 16),
      isRemote: true,
      ...(typeof tracestate === 'string' ? { traceState: api.createTraceState(tracestate) } : {}),
    };
  };

  const tracer: RequestTracer | undefined = config.tracesUrl
    ? {
        startTrace(request: ObservedRequest, callerHeaders: IncomingHttpHeaders) {
          const caller = callerSpanContext(callerHeaders);
          const parent = caller ? api.trace.setSpanContext(api.ROOT_CONTEXT, caller) : api.ROOT_CONTEXT;
          const operation = OPERATION_NAMES[request.endpoint] ?? request.endpoint;
          const span = sdkTracer.startSpan(`${operation} ${request.requestedModel}`, { kind: api.SpanKind.CLIENT, startTime: request.startedAt }, parent);
          const context = span.spanContext();
          const traceparent = `00-${context.traceId}-${context.spanId}-${context.traceFlags.toString(16).padStart(2, '0')}`;
          return new RequestSpan(span, traceparent, context.traceState?.serialize() || undefined);
        },
      }
    : undefined;

  const noop = () => {};
  const observer: RequestObserver = {
    requestEnded(request: ObservedRequest, outcome: ObservedOutcome) {
      const operation = OPERATION_NAMES[request.endpoint] ?? request.endpoint;
      const { usage } = outcome;
      const cacheCreation = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
      // The conventions count cached and cache-writing input tokens in the input.
      const inputTokens = usage.inputTokens + usage.cachedReadTokens + cacheCreation;
      const attributes: Record<string, string> = {
        [GEN_AI.operationName]: operation,
        [GEN_AI.providerName]: PROVIDER_NAMES[request.provider] ?? request.provider,
        [GEN_AI.requestModel]: request.requestedModel,
        [GEN_AI.responseModel]: outcome.model,
      };
      const failed = outcome.statusCode >= 400;
      if (failed) attributes[GEN_AI.errorType] = String(outcome.statusCode);

      if (request.trace instanceof RequestSpan) {
        const { span } = request.trace;
        span.setAttributes({
          ...attributes,
          [GEN_AI.inputTokens]: inputTokens,
          [GEN_AI.outputTokens]: usage.outputTokens,
          ...(usage.cachedReadTokens > 0 ? { [GEN_AI.cacheReadInputTokens]: usage.cachedReadTokens } : {}),
          ...(cacheCreation > 0 ? { [GEN_AI.cacheCreationInputTokens]: cacheCreation } : {}),
          'http.response.status_code': outcome.statusCode,
        });
        if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR });
        span.end();
      }

      if (!failed) {
        tokenUsage.record(inputTokens, { ...attributes, [GEN_AI.tokenType]: 'input' });
        tokenUsage.record(usage.outputTokens, { ...attributes, [GEN_AI.tokenType]: 'output' });
      }
      operationDuration.record((Date.now() - request.startedAt.getTime()) / 1000, attributes);
    },
    requestAnsweredLocally: noop,
    requestRefused: noop,
    budgetRefused: noop,
    upstreamFailed: noop,
  };

  return {
    observer,
    /** Undefined without a traces endpoint: the caller's trace context then goes to the provider as it came. */
    tracer,
    async close(): Promise<void> {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
