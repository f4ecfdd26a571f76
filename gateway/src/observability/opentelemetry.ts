/**
 * OpenTelemetry for the data plane, named by the GenAI semantic conventions: a client
 * span per request that reached a provider (`{operation} {model}`, with
 * `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`,
 * `gen_ai.response.model`, `gen_ai.usage.*`), and the `gen_ai.client.token.usage` and
 * `gen_ai.client.operation.duration` histograms, exported over OTLP/HTTP.
 *
 * Off unless an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT, or the
 * signal's own _TRACES_/_METRICS_ENDPOINT): then the SDK is loaded (dynamic imports, so
 * a gateway without it never loads it) and its observer is added to the data plane's.
 * The other standard OTEL_* variables (headers, timeouts, span limits) are read by the SDK.
 */
import type { ObservabilityConfig } from '@spendgate/store';
import type { ObservedOutcome, ObservedRequest, RequestObserver } from './request-observer.ts';

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
  const tracer = tracerProvider.getTracer(INSTRUMENTATION_SCOPE);
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

      const span = tracer.startSpan(`${operation} ${request.requestedModel}`, {
        kind: api.SpanKind.CLIENT,
        startTime: request.startedAt,
        attributes: {
          ...attributes,
          [GEN_AI.inputTokens]: inputTokens,
          [GEN_AI.outputTokens]: usage.outputTokens,
          ...(usage.cachedReadTokens > 0 ? { [GEN_AI.cacheReadInputTokens]: usage.cachedReadTokens } : {}),
          ...(cacheCreation > 0 ? { [GEN_AI.cacheCreationInputTokens]: cacheCreation } : {}),
          'http.response.status_code': outcome.statusCode,
        },
      });
      if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();

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
    async close(): Promise<void> {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}
