/**
 * The gateway's own metrics in Prometheus' text format, for GET /metrics. Each gateway
 * process counts its own requests; a scrape also reads, at that moment, the circuit
 * breakers, the usage events waiting to be written and the jobs waiting per queue
 * (prom-client gauges), and prom-client's process metrics.
 *
 * Requests the gateway answers itself are counted too: successfully (the model list, a
 * token count estimated locally) by route and plan, refused by route, status and code.
 *
 * Labels are bounded and never name a key or a team: provider, model (the first
 * `modelLabels` distinct models this process saw; later ones count as `other`), route
 * (the data plane's surface), status (the HTTP code when it is a common one, else its
 * class) and plan. The hot path pays a few map reads and plain number increments per
 * request: each (provider, model, route, status, plan) has its counts and histogram
 * buckets in one object made when the tuple is first seen, written out as text at scrape
 * time. prom-client's bound children (`labels()`) validate and hash their labels on every
 * call, some 60 times the cost of a plain increment (measured), so the request counters
 * are kept here and prom-client serves the gauges and process metrics.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { ObservedOutcome, ObservedRequest, RequestObserver } from './request-observer.ts';

/** What a model past the cap is labelled. */
export const OTHER_MODEL = 'other';
/** Seconds: from a few milliseconds (a refusal, a cached answer) to a long generation. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const FIRST_BYTE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Codes the gateway and providers commonly answer: labelled as they are; any other by its class (`2xx`…). */
const COMMON_STATUSES = [200, 201, 204, 400, 401, 402, 403, 404, 408, 409, 413, 415, 422, 429, 499, 500, 502, 503, 504];
const STATUS_LABELS: string[] = Array.from({ length: 600 }, (_, code) => (COMMON_STATUSES.includes(code) ? String(code) : `${Math.floor(code / 100)}xx`));
const statusLabel = (code: number) => STATUS_LABELS[code] ?? 'other';

type Usage = ObservedOutcome['usage'];
/** Token categories, each read from core's Usage. */
const TOKEN_TYPES: readonly (readonly [string, (usage: Usage) => number])[] = [
  ['input', (usage) => usage.inputTokens],
  ['cached_read', (usage) => usage.cachedReadTokens],
  ['cache_write', (usage) => usage.cacheWrite5mTokens + usage.cacheWrite1hTokens],
  ['output', (usage) => usage.outputTokens],
  ['reasoning', (usage) => usage.reasoningTokens],
];

/** What a scrape reads at that moment. */
export interface ScrapeSources {
  /** Upstream circuits by provider and state (`closed`, `open`, `half-open`). */
  circuits(): { provider: string; state: string }[];
  /** Usage events not yet written: held by this gateway (gathered, being handed to the queue) and kept in the outbox. */
  meterBacklog(): Promise<{ gateway: number; outbox: number }>;
  /** Each PostgreSQL read replica's lag at its last probe (undefined: unreachable). */
  replicaLag(): { replica: string; lagSeconds: number | undefined; serving: boolean }[];
  /** Jobs waiting (not yet running) per job name. */
  waitingJobs(): Promise<Record<string, number>>;
  /** Told when a source cannot be read: that scrape leaves its gauge out. */
  onError(error: unknown, source: string): void;
}

/** A histogram's counts: per bucket (not cumulative; the last is +Inf), sum and count. */
class HistogramCounts {
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.buckets = new Float64Array(bounds.length + 1);
  }
  observe(value: number): void {
    let index = 0;
    while (index < this.bounds.length && value > this.bounds[index]!) index++;
    this.buckets[index]! += 1;
    this.sum += value;
    this.count += 1;
  }
  addTo(total: HistogramCounts): void {
    for (let index = 0; index < this.buckets.length; index++) total.buckets[index]! += this.buckets[index]!;
    total.sum += this.sum;
    total.count += this.count;
  }
}

/** One (provider, model, route, status, plan)'s counts. */
class RequestSeries {
  requests = 0;
  readonly duration = new HistogramCounts(DURATION_BUCKETS);
  readonly firstByte = new HistogramCounts(FIRST_BYTE_BUCKETS);
  readonly tokens = new Float64Array(TOKEN_TYPES.length);
  costMicros = 0;
  constructor(
    readonly provider: string,
    readonly model: string,
    readonly route: string,
    readonly status: string,
    readonly plan: string,
  ) {}
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

/** Counts by label values, for the rarer events (refusals, failures), keyed by the values joined. */
class LabelledCounts {
  readonly #counts = new Map<string, { values: readonly string[]; count: number }>();
  add(values: readonly string[]): void {
    const key = values.join('\u0000');
    const entry = this.#counts.get(key);
    if (entry) entry.count += 1;
    else this.#counts.set(key, { values, count: 1 });
  }
  entries(): Iterable<{ values: readonly string[]; count: number }> {
    return this.#counts.values();
  }
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelText = (names: readonly string[], values: readonly string[]) => names.map((name, index) => `${name}="${escapeLabel(values[index]!)}"`).join(',');
const numberText = (value: number) => (value === Number.POSITIVE_INFINITY ? '+Inf' : String(value));

function writeCounter(lines: string[], name: string, help: string, labelNames: readonly string[], entries: Iterable<{ values: readonly string[]; count: number }>) {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
  for (const { values, count } of entries) lines.push(`${name}{${labelText(labelNames, values)}} ${numberText(count)}`);
}

function writeHistogram(lines: string[], name: string, help: string, labelNames: readonly string[], entries: Iterable<{ values: readonly string[]; counts: HistogramCounts }>) {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
  for (const { values, counts } of entries) {
    const labels = labelText(labelNames, values);
    let cumulative = 0;
    counts.bounds.forEach((bound, index) => {
      cumulative += counts.buckets[index]!;
      lines.push(`${name}_bucket{${labels},le="${numberText(bound)}"} ${cumulative}`);
    });
    lines.push(`${name}_bucket{${labels},le="+Inf"} ${counts.count}`, `${name}_sum{${labels}} ${counts.sum}`, `${name}_count{${labels}} ${counts.count}`);
  }
}

/** The series summed over the labels not in `key` (e.g. tokens by provider and model, over route, status and plan). */
function sumBy<T>(series: Iterable<RequestSeries>, key: (series: RequestSeries) => readonly string[], make: () => T, add: (total: T, series: RequestSeries) => void) {
  const totals = new Map<string, { values: readonly string[]; total: T }>();
  for (const each of series) {
    const values = key(each);
    const id = values.join('\u0000');
    let entry = totals.get(id);
    if (!entry) {
      entry = { values, total: make() };
      totals.set(id, entry);
    }
    add(entry.total, each);
  }
  return [...totals.values()];
}

export function createPrometheusMetrics(options: { modelLabels: number; sources: ScrapeSources }) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

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
    name: 'spendgate_read_replica_lag_seconds',
    help: 'Seconds each PostgreSQL read replica (host:port/database) is behind the primary at its last probe; an unreachable one is left out',
    labelNames: ['replica'],
    registers,
    collect() {
      this.reset();
      for (const { replica, lagSeconds } of sources.replicaLag()) if (lagSeconds !== undefined) this.labels(replica).set(lagSeconds);
    },
  });
  new Gauge({
    name: 'spendgate_read_replica_serving',
    help: 'Whether each PostgreSQL read replica serves reads now (1), or is skipped as lagging past its limit or unreachable (0)',
    labelNames: ['replica'],
    registers,
    collect() {
      this.reset();
      for (const { replica, serving } of sources.replicaLag()) this.labels(replica).set(serving ? 1 : 0);
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

  /** Every tuple's series, and the same by provider → model → route → status → plan for the hot path. */
  const allSeries: RequestSeries[] = [];
  const tree = new Map<string, Map<string, Map<string, Map<string, Map<string, RequestSeries>>>>>();
  const seriesOf = (provider: string, model: string, route: string, status: string, plan: string): RequestSeries => {
    const byPlan = branch(branch(branch(branch(tree, provider), model), route), status);
    let series = byPlan.get(plan);
    if (series === undefined) {
      series = new RequestSeries(provider, model, route, status, plan);
      byPlan.set(plan, series);
      allSeries.push(series);
    }
    return series;
  };
  /** Local answers by route → plan: the model list is asked often, so counting it makes nothing once its series exists. */
  const localAnswers = new Map<string, Map<string, { values: readonly string[]; count: number }>>();
  const refused = new LabelledCounts();
  const budgetRefusals = new LabelledCounts();
  const upstreamErrors = new LabelledCounts();

  const observer: RequestObserver = {
    requestEnded(request: ObservedRequest, outcome: ObservedOutcome, costMicros: bigint | undefined) {
      const series = seriesOf(request.provider, modelLabel(outcome.model), request.endpoint, statusLabel(outcome.statusCode), request.principal.plan.slug);
      const startedAt = request.startedAt.getTime();
      series.requests += 1;
      series.duration.observe((Date.now() - startedAt) / 1000);
      if (request.firstByteAt !== undefined) series.firstByte.observe((request.firstByteAt - startedAt) / 1000);
      for (let index = 0; index < TOKEN_TYPES.length; index++) series.tokens[index]! += TOKEN_TYPES[index]![1](outcome.usage);
      if (costMicros !== undefined) series.costMicros += Number(costMicros);
    },
    requestAnsweredLocally(endpoint, plan) {
      const byPlan = branch(localAnswers, endpoint);
      const entry = byPlan.get(plan);
      if (entry) entry.count += 1;
      else byPlan.set(plan, { values: [endpoint, plan], count: 1 });
    },
    requestRefused(endpoint, statusCode, code) {
      refused.add([endpoint, statusLabel(statusCode), code]);
    },
    budgetRefused(plan, endpoint, code) {
      budgetRefusals.add([plan, endpoint, code]);
    },
    upstreamFailed(provider, model, failure) {
      upstreamErrors.add([provider, modelLabel(model), failure]);
    },
  };

  /** The request counters' text. */
  const requestMetricsText = (): string => {
    const lines: string[] = [];
    writeCounter(
      lines,
      'spendgate_requests_total',
      'Requests that reached a provider, by how they ended',
      ['provider', 'model', 'route', 'status', 'plan'],
      allSeries.map((series) => ({ values: [series.provider, series.model, series.route, series.status, series.plan], count: series.requests })),
    );
    writeCounter(
      lines,
      'spendgate_local_requests_total',
      'Requests the gateway answered itself and successfully, without a provider (the model list, token counts estimated locally), by route and plan',
      ['route', 'plan'],
      [...localAnswers.values()].flatMap((byPlan) => [...byPlan.values()]),
    );
    writeCounter(
      lines,
      'spendgate_refused_requests_total',
      'Requests the gateway answered itself without a provider (bad key or body, budget, rate limit, unknown route), by error code',
      ['route', 'status', 'code'],
      refused.entries(),
    );
    const byRoute = (histogram: (series: RequestSeries) => HistogramCounts, bounds: readonly number[]) =>
      sumBy(
        allSeries,
        (series) => [series.provider, series.model, series.route],
        () => new HistogramCounts(bounds),
        (total, series) => histogram(series).addTo(total),
      ).map(({ values, total }) => ({ values, counts: total }));
    writeHistogram(
      lines,
      'spendgate_request_duration_seconds',
      'From the request arriving to its answer (or stream) ending',
      ['provider', 'model', 'route'],
      byRoute((series) => series.duration, DURATION_BUCKETS),
    );
    writeHistogram(
      lines,
      'spendgate_time_to_first_byte_seconds',
      "From the request arriving to the provider's answer beginning, when the caller's first byte leaves",
      ['provider', 'model', 'route'],
      byRoute((series) => series.firstByte, FIRST_BYTE_BUCKETS).filter(({ counts }) => counts.count > 0),
    );
    const tokens = sumBy(
      allSeries,
      (series) => [series.provider, series.model],
      () => new Float64Array(TOKEN_TYPES.length),
      (total, series) => {
        for (let index = 0; index < TOKEN_TYPES.length; index++) total[index]! += series.tokens[index]!;
      },
    );
    writeCounter(
      lines,
      'spendgate_tokens_total',
      'Tokens the providers reported (or the gateway estimated for a cut stream), by category',
      ['provider', 'model', 'type'],
      tokens.flatMap(({ values, total }) => TOKEN_TYPES.map(([type], index) => ({ values: [...values, type], count: total[index]! }))),
    );
    const cost = sumBy(
      allSeries,
      (series) => [series.provider, series.model, series.plan],
      () => ({ count: 0 }),
      (total, series) => {
        total.count += series.costMicros;
      },
    );
    writeCounter(
      lines,
      'spendgate_cost_usd_micros_total',
      "Providers' list price of the priced requests, in micro-USD (unpriced requests add nothing)",
      ['provider', 'model', 'plan'],
      cost.map(({ values, total }) => ({ values, count: total.count })),
    );
    writeCounter(
      lines,
      'spendgate_upstream_errors_total',
      'Tries of an upstream that failed (retried or failed over, or answered to the caller): status, timeout or unreachable',
      ['provider', 'model', 'failure'],
      upstreamErrors.entries(),
    );
    writeCounter(
      lines,
      'spendgate_budget_refusals_total',
      'Requests a budget refused before any provider, by error code (budget_exceeded, budget_unpriced_model, budget_unavailable)',
      ['plan', 'route', 'code'],
      budgetRefusals.entries(),
    );
    return `${lines.join('\n')}\n`;
  };

  return {
    observer,
    /** The whole text of a scrape and its content type. */
    async scrape(): Promise<{ contentType: string; text: string }> {
      const processAndGauges = await registry.metrics();
      return { contentType: registry.contentType, text: `${requestMetricsText()}\n${processAndGauges}` };
    },
  };
}

export type PrometheusMetrics = ReturnType<typeof createPrometheusMetrics>;
