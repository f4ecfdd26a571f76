/**
 * The gateway's own metrics in Prometheus' text format (prom-client), for GET /metrics.
 * Each gateway process counts its own requests; a scrape also reads, at that moment, the
 * circuit breakers, the usage events waiting to be written and the jobs waiting per
 * queue, and prom-client's process metrics.
 *
 * Labels are bounded and never name a key or a team: provider, model (the first
 * `modelLabels` distinct models this process saw; later ones count as `other`), route
 * (the data plane's surface), status (the HTTP code when it is a common one, else its
 * class) and plan. The hot path pays a few map reads and counter increments per request:
 * each (provider, model, route, status, plan) gets its counters and histograms bound once
 * (`labels()`), kept in a map of at most MAX_BOUND_SERIES entries.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ObservedOutcome, ObservedRequest, RequestObserver } from './request-observer.ts';

/** Series bound ahead of time; a tuple past it is still counted, through `labels()` on each request. */
const MAX_BOUND_SERIES = 4_096;
/** What a model past the cap is labelled. */
export const OTHER_MODEL = 'other';
/** Seconds: from a few milliseconds (a refusal, a cached answer) to a long generation. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const FIRST_BYTE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Codes the gateway and providers commonly answer: labelled as they are; any other by its class (`2xx`…). */
const COMMON_STATUSES = [200, 201, 204, 400, 401, 402, 403, 404, 408, 409, 413, 415, 422, 429, 499, 500, 502, 503, 504];
const STATUS_LABELS: string[] = Array.from({ length: 600 }, (_, code) => (COMMON_STATUSES.includes(code) ? String(code) : `${Math.floor(code / 100)}xx`));
const statusLabel = (code: number) => STATUS_LABELS[code] ?? 'other';

/** Token categories, each read from core's Usage. */
const TOKEN_TYPES = [
  ['input', (usage: ObservedOutcome['usage']) => usage.inputTokens],
  ['cached_read', (usage: ObservedOutcome['usage']) => usage.cachedReadTokens],
  ['cache_write', (usage: ObservedOutcome['usage']) => usage.cacheWrite5mTokens + usage.cacheWrite1hTokens],
  ['output', (usage: ObservedOutcome['usage']) => usage.outputTokens],
  ['reasoning', (usage: ObservedOutcome['usage']) => usage.reasoningTokens],
] as const;

/** What a scrape reads at that moment. */
export interface ScrapeSources {
  /** Upstream circuits by provider and state (`closed`, `open`, `half-open`). */
  circuits(): { provider: string; state: string }[];
  /** Usage events not yet written: held by this gateway (gathered, being handed to the queue) and kept in the outbox. */
  meterBacklog(): Promise<{ gateway: number; outbox: number }>;
  /** Jobs waiting (not yet running) per job name. */
  waitingJobs(): Promise<Record<string, number>>;
  /** Told when a source cannot be read: that scrape leaves its gauge out. */
  onError(error: unknown, source: string): void;
}

interface BoundSeries {
  requests: Counter.Internal;
  duration: Histogram.Internal<string>;
  firstByte: Histogram.Internal<string>;
  tokens: Counter.Internal[];
  cost: Counter.Internal;
}

/** The map below `key` in `map`, made on first use. */
function branch<K, V>(map: Map<K, Map<string, V>>, key: K): Map<string, V> {
  let below = map.get(key);
  if (below === undefined) {
    below = new Map();
    map.set(key, below);
  }
  return below;
}

export function createPrometheusMetrics(options: { modelLabels: number; sources: ScrapeSources }) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'spendgate_requests_total',
    help: 'Requests that reached a provider, by how they ended',
    labelNames: ['provider', 'model', 'route', 'status', 'plan'],
    registers,
  });
  const refused = new Counter({
    name: 'spendgate_refused_requests_total',
    help: 'Requests the gateway answered itself without a provider (bad key or body, budget, rate limit, unknown route), by error code',
    labelNames: ['route', 'status', 'code'],
    registers,
  });
  const duration = new Histogram({
    name: 'spendgate_request_duration_seconds',
    help: 'From the request arriving to its answer (or stream) ending',
    labelNames: ['provider', 'model', 'route'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  const firstByte = new Histogram({
    name: 'spendgate_time_to_first_byte_seconds',
    help: "From the request arriving to the provider's answer beginning, when the caller's first byte leaves",
    labelNames: ['provider', 'model', 'route'],
    buckets: FIRST_BYTE_BUCKETS,
    registers,
  });
  const tokens = new Counter({
    name: 'spendgate_tokens_total',
    help: 'Tokens the providers reported (or the gateway estimated for a cut stream), by category',
    labelNames: ['provider', 'model', 'type'],
    registers,
  });
  const cost = new Counter({
    name: 'spendgate_cost_usd_micros_total',
    help: "Providers' list price of the priced requests, in micro-USD (unpriced requests add nothing)",
    labelNames: ['provider', 'model', 'plan'],
    registers,
  });
  const upstreamErrors = new Counter({
    name: 'spendgate_upstream_errors_total',
    help: 'Tries of an upstream that failed (retried or failed over, or answered to the caller): status, timeout or unreachable',
    labelNames: ['provider', 'model', 'failure'],
    registers,
  });
  const budgetRefusals = new Counter({
    name: 'spendgate_budget_refusals_total',
    help: 'Requests a budget refused before any provider, by error code (budget_exceeded, budget_unpriced_model, budget_unavailable)',
    labelNames: ['plan', 'route', 'code'],
    registers,
  });

  const { sources } = options;
  new Gauge({
    name: 'spendgate_circuit_breakers',
    help: "Upstream models' circuit breakers in this gateway, by provider and state",
    labelNames: ['provider', 'state'],
    registers,
    collect() {
      this.reset();
      for (const { provider, state } of sources.circuits()) this.labels(provider, state).inc();
    },
  });
  new Gauge({
    name: 'spendgate_meter_backlog_events',
    help: 'Usage events not yet written: held by this gateway (stage gateway) or kept in the usage outbox until the queue takes them (stage outbox)',
    labelNames: ['stage'],
    registers,
    async collect() {
      this.reset();
      try {
        const backlog = await sources.meterBacklog();
        this.labels('gateway').set(backlog.gateway);
        this.labels('outbox').set(backlog.outbox);
      } catch (error) {
        sources.onError(error, 'meter backlog');
      }
    },
  });
  new Gauge({
    name: 'spendgate_queue_waiting_jobs',
    help: 'Jobs waiting to run, per queue (job name)',
    labelNames: ['queue'],
    registers,
    async collect() {
      this.reset();
      try {
        for (const [queue, waiting] of Object.entries(await sources.waitingJobs())) this.labels(queue).set(waiting);
      } catch (error) {
        sources.onError(error, 'queue depth');
      }
    },
  });

  const seenModels = new Set<string>();
  /** The model's label: itself while fewer than `modelLabels` have been seen, else `other`. */
  const modelLabel = (model: string): string => {
    if (seenModels.has(model)) return model;
    if (seenModels.size >= options.modelLabels) return OTHER_MODEL;
    seenModels.add(model);
    return model;
  };

  let boundCount = 0;
  /** provider → model → route → status → plan → bound series. */
  const bound = new Map<string, Map<string, Map<string, Map<string, Map<string, BoundSeries>>>>>();
  const bind = (provider: string, model: string, route: string, status: string, plan: string): BoundSeries => ({
    requests: requests.labels(provider, model, route, status, plan),
    duration: duration.labels(provider, model, route),
    firstByte: firstByte.labels(provider, model, route),
    tokens: TOKEN_TYPES.map(([type]) => tokens.labels(provider, model, type)),
    cost: cost.labels(provider, model, plan),
  });
  const seriesOf = (provider: string, model: string, route: string, status: string, plan: string): BoundSeries => {
    const byPlan = branch(branch(branch(branch(bound, provider), model), route), status);
    let series = byPlan.get(plan);
    if (series === undefined) {
      series = bind(provider, model, route, status, plan);
      if (boundCount < MAX_BOUND_SERIES) {
        byPlan.set(plan, series);
        boundCount += 1;
      }
    }
    return series;
  };

  /** route → status → code → bound counter. */
  const boundRefusals = new Map<string, Map<string, Map<string, Counter.Internal>>>();

  const observer: RequestObserver = {
    requestEnded(request: ObservedRequest, outcome: ObservedOutcome, costMicros: bigint | undefined) {
      const series = seriesOf(request.provider, modelLabel(outcome.model), request.endpoint, statusLabel(outcome.statusCode), request.principal.plan.slug);
      const startedAt = request.startedAt.getTime();
      series.requests.inc();
      series.duration.observe((Date.now() - startedAt) / 1000);
      if (request.firstByteAt !== undefined) series.firstByte.observe((request.firstByteAt - startedAt) / 1000);
      for (let index = 0; index < TOKEN_TYPES.length; index++) {
        const count = TOKEN_TYPES[index]![1](outcome.usage);
        if (count > 0) series.tokens[index]!.inc(count);
      }
      if (costMicros !== undefined && costMicros > 0n) series.cost.inc(Number(costMicros));
    },
    requestRefused(endpoint, statusCode, code) {
      const byCode = branch(branch(boundRefusals, endpoint), statusLabel(statusCode));
      let counter = byCode.get(code);
      if (counter === undefined) {
        counter = refused.labels(endpoint, statusLabel(statusCode), code);
        byCode.set(code, counter);
      }
      counter.inc();
    },
    budgetRefused(plan, endpoint, code) {
      budgetRefusals.labels(plan, endpoint, code).inc();
    },
    upstreamFailed(provider, model, failure) {
      upstreamErrors.labels(provider, modelLabel(model), failure).inc();
    },
  };

  return {
    observer,
    /** The whole text of a scrape and its content type. */
    async scrape(): Promise<{ contentType: string; text: string }> {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}

export type PrometheusMetrics = ReturnType<typeof createPrometheusMetrics>;
