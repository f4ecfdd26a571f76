/**
 * A fake OpenTelemetry collector's OTLP/HTTP receiver, JSON encoding
 * (https://opentelemetry.io/docs/specs/otlp/#otlphttp): POST /v1/traces takes an
 * ExportTraceServiceRequest (`resourceSpans[].scopeSpans[].spans[]`), POST /v1/metrics an
 * ExportMetricsServiceRequest (`resourceMetrics[].scopeMetrics[].metrics[]`), each answered
 * 200 with an empty Export…ServiceResponse. A body that is not JSON gets 415 (a real
 * receiver also reads binary protobuf, which the exporters under test do not send), any
 * other path 404. Attributes (`[{key, value: {stringValue|intValue|doubleValue|boolValue}}]`)
 * are read into plain objects.
 */
import { FakeHttpError, type FakeProvider, sendJson, startFakeProviderServer } from './fake-provider-kit.ts';

type AttributeValue = string | number | boolean;

interface OtlpKeyValue {
  key: string;
  value: { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
}

export interface ReceivedSpan {
  name: string;
  /** OTLP's SpanKind: 3 is CLIENT. */
  kind: number;
  /** Hex, as OTLP/JSON encodes them; parentSpanId is '' for a trace's root. */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  resource: Record<string, AttributeValue>;
  attributes: Record<string, AttributeValue>;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

export interface ReceivedMetric {
  name: string;
  unit: string;
  /** `histogram`, `sum` or `gauge`. */
  kind: string;
  points: { attributes: Record<string, AttributeValue>; count?: number; sum?: number; value?: number }[];
}

export interface FakeOtlpReceiver extends FakeProvider {
  spans(): ReceivedSpan[];
  /** Every export's metrics (an export holds each metric's cumulative points so far). */
  metrics(): ReceivedMetric[];
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    attributes[key] =
      value.stringValue ?? (value.intValue === undefined ? undefined : Number(value.intValue)) ?? value.doubleValue ?? value.boolValue ?? '';
  }
  return attributes;
}

interface OtlpPoint {
  attributes?: OtlpKeyValue[];
  count?: string | number;
  sum?: number;
  asInt?: string | number;
  asDouble?: number;
}

export async function startFakeOtlpReceiver(): Promise<FakeOtlpReceiver> {
  const fake = await startFakeProviderServer({
    answer(request, res) {
      if (request.method !== 'POST' || (request.path !== '/v1/traces' && request.path !== '/v1/metrics')) {
        throw new FakeHttpError(404, { code: 5, message: `no ${request.method} ${request.path}` });
      }
      if (typeof request.body !== 'object' || request.body === null) throw new FakeHttpError(415, { code: 3, message: 'this receiver reads JSON only' });
      sendJson(res, 200, {});
    },
    internalError: (message) => new FakeHttpError(500, { code: 13, message }),
  });
  const bodies = (path: string) => fake.requests.filter((request) => request.path === path && request.method === 'POST').map((request) => request.body as Record<string, unknown[]>);
  return {
    ...fake,
    spans: () =>
      bodies('/v1/traces').flatMap((body) =>
        (body.resourceSpans as { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans: { spans: (ReceivedSpan & { attributes: OtlpKeyValue[] })[] }[] }[]).flatMap(
          ({ resource, scopeSpans }) =>
            scopeSpans.flatMap(({ spans }) =>
              spans.map((span) => ({
                name: span.name,
                kind: span.kind,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                resource: attributesOf(resource?.attributes),
                attributes: attributesOf(span.attributes),
                startTimeUnixNano: String(span.startTimeUnixNano),
                endTimeUnixNano: String(span.endTimeUnixNano),
              })),
            ),
        ),
      ),
    metrics: () =>
      bodies('/v1/metrics').flatMap((body) =>
        (body.resourceMetrics as { scopeMetrics: { metrics: Record<string, unknown>[] }[] }[]).flatMap(({ scopeMetrics }) =>
          scopeMetrics.flatMap(({ metrics }) =>
            metrics.map((metric) => {
              const kind = ['histogram', 'sum', 'gauge'].find((candidate) => candidate in metric) ?? 'unknown';
              const points = ((metric[kind] as { dataPoints?: OtlpPoint[] } | undefined)?.dataPoints ?? []).map((point) => ({
                attributes: attributesOf(point.attributes),
                ...(point.count === undefined ? {} : { count: Number(point.count) }),
                ...(point.sum === undefined ? {} : { sum: point.sum }),
                ...(point.asInt === undefined && point.asDouble === undefined ? {} : { value: Number(point.asInt ?? point.asDouble) }),
              }));
              return { name: String(metric.name), unit: String(metric.unit ?? ''), kind, points };
            }),
          ),
        ),
      ),
  };
}
