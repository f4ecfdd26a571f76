// The request metrics' text: escaped label values, cumulative histogram buckets, series
// summed over the labels a family does not have, and the model cap.
import { describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from './prometheus.ts';

const sources = { circuits: () => [{ provider: 'openai', state: 'open' }], meterBacklog: async () => ({ gateway: 2, outbox: 5 }),
  replicaLag: () => [
    { replica: '127.0.0.1:5440/spendgate', lagSeconds: 1.5, serving: true },
    { replica: '127.0.0.1:5441/spendgate', lagSeconds: undefined, serving: false },
  ],
  waitingJobs: async () => ({ meter: 3 }), onError: () => {} };
const usage = { inputTokens: 10, cachedReadTokens: 4, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens: 7, reasoningTokens: 2 };
const request = (endpoint: string, plan: string, startedAt: Date, firstByteAt?: number) => ({
  provider: 'openai',
  endpoint,
  requestedModel: 'm',
  startedAt,
  firstByteAt,
  principal: { plan: { slug: plan } },
});
const lineOf = (text: string, start: string) => text.split('\n').find((line) => line.startsWith(start));

describe('Prometheus request metrics', () => {
  it('writes escaped labels, cumulative buckets and sums over the labels a family lacks', async () => {
    const metrics = createPrometheusMetrics({ modelLabels: 2, sources });
    const now = Date.now();
    metrics.observer.requestEnded(request('chat.completions', 'growth', new Date(now - 30), now - 20), { model: 'we"ird\\model', usage, statusCode: 200 }, 1_500n);
    metrics.observer.requestEnded(request('chat.completions', 'developers', new Date(now - 2_000), now - 1_900), { model: 'we"ird\\model', usage, statusCode: 502 }, undefined);
    metrics.observer.requestEnded(request('embeddings', 'growth', new Date(now)), { model: 'second', usage, statusCode: 200 }, 0n);
    metrics.observer.requestEnded(request('embeddings', 'growth', new Date(now)), { model: 'third', usage, statusCode: 200 }, 0n);
    metrics.observer.requestRefused('unknown', 404, 'not_found');
    metrics.observer.requestAnsweredLocally('models', 'growth');
    metrics.observer.requestAnsweredLocally('models', 'growth');
    metrics.observer.requestAnsweredLocally('messages.count_tokens', 'growth');
    const { text, contentType } = await metrics.scrape();

    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const weird = 'model="we\\"ird\\\\model"';
    expect(lineOf(text, `spendgate_requests_total{provider="openai",${weird},route="chat.completions",status="502",plan="developers"}`)).toMatch(/ 1$/);
    // Past the cap of 2 models, the third is `other`.
    expect(lineOf(text, 'spendgate_requests_total{provider="openai",model="other",route="embeddings",status="200",plan="growth"}')).toMatch(/ 1$/);
    // Duration: both chat requests in one series (status and plan summed), 0.03 s and 2 s.
    const duration = `spendgate_request_duration_seconds_bucket{provider="openai",${weird},route="chat.completions"`;
    expect(lineOf(text, `${duration},le="0.025"}`)).toMatch(/ 0$/);
    expect(lineOf(text, `${duration},le="0.05"}`)).toMatch(/ 1$/);
    expect(lineOf(text, `${duration},le="2.5"}`)).toMatch(/ 2$/);
    expect(lineOf(text, `${duration},le="+Inf"}`)).toMatch(/ 2$/);
    expect(lineOf(text, `spendgate_time_to_first_byte_seconds_count{provider="openai",${weird},route="chat.completions"}`)).toMatch(/ 2$/);
    // Tokens by provider and model over both requests; cost only from the priced one.
    expect(lineOf(text, `spendgate_tokens_total{provider="openai",${weird},type="output"}`)).toMatch(/ 14$/);
    expect(lineOf(text, `spendgate_tokens_total{provider="openai",${weird},type="reasoning"}`)).toMatch(/ 4$/);
    expect(lineOf(text, `spendgate_cost_usd_micros_total{provider="openai",${weird},plan="growth"}`)).toMatch(/ 1500$/);
    expect(lineOf(text, 'spendgate_refused_requests_total{route="unknown",status="404",code="not_found"}')).toMatch(/ 1$/);
    expect(lineOf(text, 'spendgate_local_requests_total{route="models",plan="growth"}')).toMatch(/ 2$/);
    expect(lineOf(text, 'spendgate_local_requests_total{route="messages.count_tokens",plan="growth"}')).toMatch(/ 1$/);
    // The scrape-time gauges.
    expect(lineOf(text, 'spendgate_circuit_breakers{provider="openai",state="open"}')).toMatch(/ 1$/);
    expect(lineOf(text, 'spendgate_meter_backlog_events{stage="outbox"}')).toMatch(/ 5$/);
    expect(lineOf(text, 'spendgate_queue_waiting_jobs{queue="meter"}')).toMatch(/ 3$/);
    expect(lineOf(text, 'spendgate_read_replica_lag_seconds{replica="127.0.0.1:5440/spendgate"}')).toMatch(/ 1.5$/);
    expect(text).not.toContain('spendgate_read_replica_lag_seconds{replica="127.0.0.1:5441/spendgate"}');
    expect(lineOf(text, 'spendgate_read_replica_serving{replica="127.0.0.1:5440/spendgate"}')).toMatch(/ 1$/);
    expect(lineOf(text, 'spendgate_read_replica_serving{replica="127.0.0.1:5441/spendgate"}')).toMatch(/ 0$/);
  });
});
