/**
 * What the data plane tells the gateway's own observability (Prometheus /metrics,
 * OpenTelemetry) about its requests: a few calls per request, each given what the data
 * plane already holds, so observing allocates nothing when nothing observes (the data
 * plane's observer is then undefined).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Usage } from '@spendgate/core';

/** A request that reached a provider, as metering holds it (proxy/metering.ts' MeteredRequest is one). */
export interface ObservedRequest {
  /** Catalog provider id of the upstream that served (or last failed). */
  provider: string;
  /** The surface, e.g. `chat.completions`, `messages`. */
  endpoint: string;
  /** The model the caller asked for. */
  requestedModel: string;
  startedAt: Date;
  /** When the provider's answer began, which is when the caller's first byte left (ms since the epoch); undefined when none answered. */
  firstByteAt?: number | undefined;
  principal: { plan: { slug: string } };
  /** Its span's trace context, when a RequestTracer started one. */
  trace?: ObservedTrace | undefined;
}

/** The W3C trace context (https://www.w3.org/TR/trace-context/) a request's span sends to the provider. */
export interface ObservedTrace {
  readonly traceparent: string;
  readonly tracestate: string | undefined;
}

/** Traces the requests that reach a provider (OpenTelemetry with a traces endpoint); undefined when nothing traces. */
export interface RequestTracer {
  /**
   * Starts the span of a request about to be sent to a provider, the child of the caller's
   * `traceparent` (and `tracestate`) when it sent a valid one, else a new trace's root.
   * The observer's requestEnded ends it.
   */
  startTrace(request: ObservedRequest, callerHeaders: IncomingHttpHeaders): ObservedTrace;
}

/** How it ended. */
export interface ObservedOutcome {
  /** The model that served. */
  model: string;
  usage: Usage;
  statusCode: number;
}

export interface RequestObserver {
  /** A request that reached a provider has ended and been priced: `costMicros` is the provider's list price (micro-USD), undefined when unpriced. */
  requestEnded(request: ObservedRequest, outcome: ObservedOutcome, costMicros: bigint | undefined): void;
  /** The gateway answered a request itself and successfully, without a provider: the model list, a token count estimated locally. */
  requestAnsweredLocally(endpoint: string, plan: string): void;
  /** The gateway answered a request itself, without a provider (refused: bad key, bad body, budget, rate limit…; 404). */
  requestRefused(endpoint: string, statusCode: number, code: string): void;
  /** A hard budget refused a request (402/503 before any provider), by plan. */
  budgetRefused(plan: string, endpoint: string, code: string): void;
  /** One try of an upstream failed: `failure` is its status (`429`, `503`), `timeout` or `unreachable`. */
  upstreamFailed(provider: string, model: string, failure: string): void;
}

/** One observer calling each of `observers` in turn; undefined when there are none. */
export function combineObservers(observers: readonly (RequestObserver | undefined)[]): RequestObserver | undefined {
  const present = observers.filter((observer): observer is RequestObserver => observer !== undefined);
  if (present.length <= 1) return present[0];
  return {
    requestEnded: (request, outcome, cost) => {
      for (const observer of present) observer.requestEnded(request, outcome, cost);
    },
    requestAnsweredLocally: (endpoint, plan) => {
      for (const observer of present) observer.requestAnsweredLocally(endpoint, plan);
    },
    requestRefused: (endpoint, statusCode, code) => {
      for (const observer of present) observer.requestRefused(endpoint, statusCode, code);
    },
    budgetRefused: (plan, endpoint, code) => {
      for (const observer of present) observer.budgetRefused(plan, endpoint, code);
    },
    upstreamFailed: (provider, model, failure) => {
      for (const observer of present) observer.upstreamFailed(provider, model, failure);
    },
  };
}
