/**
 * GET /metrics under load, in both modes: 200 concurrent requests through the real OpenAI
 * SDK (streamed and not) while scrapes run, then the counters add up to what was sent —
 * requests that reached the provider plus those the gateway refused — with their tokens;
 * 100 distinct models fold into at most 50 labels and `other`; no key, team, group or key
 * id ever appears; an upstream's failures, the breaker, a budget's refusal, the meter
 * backlog and the queues are there; the model lists and the token counts the gateway answers
 * itself are counted by route; 401 without the token, 404 when none is configured.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { startGatewayProcess } from '../support/gateway-process.ts';
import { parsePrometheusText, type Sample, sumOf } from '../support/prometheus-text.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { issueByokKey, signUpTeam, type Tenant } from './tenant.ts';

const METRICS_TOKEN = 'metrics-token-for-the-operator-only';
const CONCURRENT = 200;
const DISTINCT_MODELS = 100;
const MODEL_LABELS = 50;
const HI = [{ role: 'user' as const, content: 'Hi there' }];

/** A scrape with `token` (null: none). */
async function scrape(spendgate: Pick<RunningSpendgate, 'url'>, token: string | null = METRICS_TOKEN) {
  return fetch(`${spendgate.url}/metrics`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
}

async function samplesOf(spendgate: Pick<RunningSpendgate, 'url'>): Promise<{ text: string; samples: Sample[] }> {
  const response = await scrape(spendgate);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, samples: parsePrometheusText(text) };
}

for (const mode of testModes) {
  describe(`GET /metrics (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let tenant: Tenant;
    let key: string;
    let openai: OpenAI;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, 'metrics', { env: { METRICS_TOKEN } });
      tenant = await signUpTeam(spendgate.url, 'metrics@example.com');
      key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    it('answers 401 without the token or with another, and the Prometheus text with it', async () => {
      for (const token of [null, 'not-the-metrics-token', `${METRICS_TOKEN}x`]) {
        const refused = await scrape(spendgate, token);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toContain('Bearer');
        expect(await refused.text()).not.toContain('spendgate_');
      }
      const answered = await scrape(spendgate);
      expect(answered.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const samples = parsePrometheusText(await answered.text());
      // The process's own metrics, and what a scrape reads at that moment.
      expect(sumOf(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(samples.filter((sample) => sample.name === 'spendgate_queue_waiting_jobs').map((sample) => sample.labels.queue)).toContain('meter');
      expect(sumOf(samples, 'spendgate_meter_backlog_events', { stage: 'outbox' })).toBe(0);
    });

    it('counts every request of 200 concurrent ones, scraped while they run, with their tokens', async () => {
      const before = (await samplesOf(spendgate)).samples;
      const scrapes: Promise<unknown>[] = [];
      let running = true;
      const scraping = (async () => {
        while (running) {
          scrapes.push(samplesOf(spendgate));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const refusedClient = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: 'sg_live_not-a-key', maxRetries: 0 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: CONCURRENT }, async (_, index) => {
          if (index % 10 === 9) return refusedClient.chat.completions.create({ model: 'gpt-4o', messages: HI });
          if (index % 2 === 0) return openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI });
          const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: HI, stream: true, stream_options: { include_usage: true } });
          for await (const _chunk of stream);
          return stream;
        }),
      );
      running = false;
      await scraping;
      await Promise.all(scrapes);
      expect(scrapes.length).toBeGreaterThan(0);
      const refusedCount = CONCURRENT / 10;
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(CONCURRENT - refusedCount);
      await usageWritten(spendgate);

      const after = (await samplesOf(spendgate)).samples;
      const added = (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);
      expect(added('spendgate_requests_total', { status: '200', model: 'gpt-4o-mini-2024-07-18', route: 'chat.completions', provider: 'openai' })).toBe(
        CONCURRENT - refusedCount,
      );
      expect(added('spendgate_refused_requests_total', { status: '401', route: 'chat.completions' })).toBe(refusedCount);
      expect(added('spendgate_requests_total') + added('spendgate_refused_requests_total')).toBe(CONCURRENT);
      expect(added('spendgate_request_duration_seconds_count')).toBe(CONCURRENT - refusedCount);
      expect(added('spendgate_time_to_first_byte_seconds_count')).toBe(CONCURRENT - refusedCount);
      // The fake's rule: 'Hi there' is ceil(8 / 4) + 3 = 5 prompt tokens; 'echo: Hi there' 3 words.
      expect(added('spendgate_tokens_total', { type: 'input' })).toBe((CONCURRENT - refusedCount) * 5);
      expect(added('spendgate_tokens_total', { type: 'output' })).toBe((CONCURRENT - refusedCount) * 3);
      expect(added('spendgate_cost_usd_micros_total', { plan: 'free-trial' })).toBeGreaterThan(0);
    });

    it.skipIf(mode !== 'scaled')('each gateway process counts its own requests', async () => {
      const second = await startGatewayProcess(spendgate.peer!);
      try {
        const firstBefore = sumOf((await samplesOf(spendgate)).samples, 'spendgate_requests_total');
        const throughSecond = new OpenAI({ baseURL: `${second.url}/v1`, apiKey: key, maxRetries: 0 });
        for (let i = 0; i < 7; i++) await throughSecond.chat.completions.create({ model: 'gpt-4o-mini', messages: HI });
        expect(sumOf((await samplesOf(second)).samples, 'spendgate_requests_total')).toBe(7);
        expect(sumOf((await samplesOf(spendgate)).samples, 'spendgate_requests_total')).toBe(firstBefore);
      } finally {
        await second.stop();
      }
    });

    it('counts the model lists and the token counts the gateway answers itself, by route and plan', async () => {
      const before = (await samplesOf(spendgate)).samples;
      const anthropic = new Anthropic({ baseURL: spendgate.url, apiKey: key, maxRetries: 0 });
      for (let i = 0; i < 3; i++) await openai.models.list();
      await anthropic.models.list();
      // The key's provider is OpenAI, which counts no Anthropic-format tokens: the gateway's estimate answers.
      for (let i = 0; i < 2; i++) await anthropic.messages.countTokens({ model: 'gpt-4o', messages: HI });

      const after = (await samplesOf(spendgate)).samples;
      const added = (labels: Record<string, string>, name = 'spendgate_local_requests_total') => sumOf(after, name, labels) - sumOf(before, name, labels);
      expect(added({ route: 'models', plan: 'free-trial' })).toBe(4);
      expect(added({ route: 'messages.count_tokens', plan: 'free-trial' })).toBe(2);
      // Neither reached a provider nor was refused.
      expect(added({}, 'spendgate_requests_total')).toBe(0);
      expect(added({}, 'spendgate_refused_requests_total')).toBe(0);
    });

    it("counts an upstream's failed tries and keeps its breaker", async () => {
      fake.controlHeaders['x-fake-status'] = '503';
      const failed = await openai.chat.completions.create({ model: 'gpt-4o', messages: HI }).catch((error: unknown) => error);
      delete fake.controlHeaders['x-fake-status'];
      expect(failed).toBeInstanceOf(OpenAI.APIError);
      await usageWritten(spendgate);

      const { samples } = await samplesOf(spendgate);
      // Tried once and retried twice, each answered 503; recorded once.
      expect(sumOf(samples, 'spendgate_upstream_errors_total', { provider: 'openai', model: 'gpt-4o', failure: '503' })).toBe(3);
      expect(sumOf(samples, 'spendgate_requests_total', { model: 'gpt-4o', status: '503' })).toBe(1);
      expect(sumOf(samples, 'spendgate_circuit_breakers', { provider: 'openai' })).toBeGreaterThanOrEqual(1);
    });

    it('labels at most 50 distinct models, the rest as other', async () => {
      const models = Array.from({ length: DISTINCT_MODELS }, (_, index) => `tenant-model-${index}`);
      for (let start = 0; start < models.length; start += 20) {
        await Promise.all(models.slice(start, start + 20).map((model) => openai.chat.completions.create({ model, messages: HI })));
      }
      await usageWritten(spendgate);
      const { samples } = await samplesOf(spendgate);
      const labelled = new Set(samples.filter((sample) => sample.name === 'spendgate_requests_total').map((sample) => sample.labels.model));
      expect(labelled.size).toBeLessThanOrEqual(MODEL_LABELS + 1);
      expect(labelled).toContain('other');
      const tenantModels = [...labelled].filter((model) => model?.startsWith('tenant-model-'));
      // The models seen before (gpt-4o-mini's dated name, gpt-4o) took their labels first.
      const seenBefore = [...labelled].filter((model) => !model?.startsWith('tenant-model-') && model !== 'other');
      expect(seenBefore).toEqual(expect.arrayContaining(['gpt-4o-mini-2024-07-18', 'gpt-4o']));
      expect(tenantModels).toHaveLength(MODEL_LABELS - seenBefore.length);
      expect(sumOf(samples, 'spendgate_requests_total', { model: 'other' })).toBe(DISTINCT_MODELS - tenantModels.length);
    });

    it("counts a budget's refusal by plan", async () => {
      const budget = await callApi(spendgate.url, 'POST', '/budgets', {
        token: tenant.token,
        body: { scope: 'group', scopeId: tenant.groupId, amount: '0.000001', window: 'day', mode: 'hard' },
      });
      expect(budget.status).toBe(201);
      await expect(openai.chat.completions.create({ model: 'gpt-4o', messages: HI })).rejects.toMatchObject({ status: 402 });

      const { samples } = await samplesOf(spendgate);
      expect(sumOf(samples, 'spendgate_budget_refusals_total', { plan: 'free-trial', route: 'chat.completions', code: 'budget_exceeded' })).toBe(1);
      expect(sumOf(samples, 'spendgate_refused_requests_total', { status: '402', code: 'budget_exceeded' })).toBe(1);
    });

    it('never names a key, a team, a group or a key id', async () => {
      const { text } = await samplesOf(spendgate);
      const keys = await callApi(spendgate.url, 'GET', `/synthetic-group/${tenant.groupId}`, { token: tenant.token });
      const keyIds = JSON.stringify(keys.body.data).match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [];
      expect(keyIds.length).toBeGreaterThan(0);
      for (const secret of [key, key.slice(0, 16), tenant.teamId, tenant.groupId, ...keyIds, 'sk-fake-upstream', 'metrics@example.com']) {
        expect(text).not.toContain(secret);
      }
    });
  });
}

describe('GET /metrics without METRICS_TOKEN', () => {
  let spendgate: RunningSpendgate;
  beforeAll(async () => {
    spendgate = await startSpendgate('embedded', 'metrics-off');
  });
  afterAll(async () => {
    await spendgate?.close();
  });

  it('does not exist, and nothing observes the data plane', async () => {
    expect((await scrape(spendgate)).status).toBe(404);
    expect(spendgate.app.runtime.metrics).toBeUndefined();
    expect(spendgate.app.runtime.observer).toBeUndefined();
  });
});
