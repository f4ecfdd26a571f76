/**
 * The real Azure LLM trace (19,366 requests; worker/src/demo/) replayed through
 * the gateway with the real `openai` SDK, in every run mode, against the local OpenAI fake
 * answering with each request's token counts: every usage call's totals equal the sums
 * computed from the CSV — tokens exactly, cost to the micro-unit at catalog prices (each
 * request priced as the gateway prices it, by core's priceRequest).
 *
 * The fake's rules make the counts: one user message of 4 × (ContextTokens − 3) characters
 * is ContextTokens prompt tokens, and max_tokens = GeneratedTokens cuts the echoed reply to
 * that many words. The 313 requests whose prompt is too short to echo enough words are
 * sent one at a time with the fake's x-fake-usage control instead.
 */
import { planTerms, priceCatalog, priceRequest } from '@spendgate/core';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { azureTrace, type TraceRequest } from '../../worker/src/demo/workload.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { signUpTeam, type Tenant } from './tenant.ts';

const MODEL = 'gpt-4.1-mini';
const CONCURRENCY = 8;

/** Whether the fake's own rules can produce this request's counts. */
const byRules = ({ promptTokens, outputTokens }: TraceRequest) => promptTokens >= 4 && outputTokens <= 1 + 2 * (promptTokens - 3);

for (const mode of testModes) {
  describe(`the Azure trace replayed (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let tenant: Tenant;
    let openai: OpenAI;
    const trace = azureTrace();

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, 'azure-replay');
      tenant = await signUpTeam(spendgate.url, `replay-${mode}@example.com`);
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
      });
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name: 'replay', kind: 'byok', connectionId: connection.body.data.newConnection.id },
      });
      openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key.body.data.key, maxRetries: 0 });
    }, 120_000);
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    it('meters every request of the trace, and every usage call sums to the CSV', async () => {
      const send = (request: TraceRequest) =>
        openai.chat.completions.create({
          model: MODEL,
          max_tokens: request.outputTokens,
          messages: [{ role: 'user', content: byRules(request) ? 'a '.repeat(2 * (request.promptTokens - 3)) : 'replay' }],
        });
      const ruled = trace.filter(byRules);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < ruled.length) {
            const answer = await send(ruled[next++]!);
            expect(answer.usage).toBeDefined();
          }
        }),
      );
      const forced = trace.filter((request) => !byRules(request));
      expect(forced).toHaveLength(313);
      for (const request of forced) {
        fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: request.promptTokens, completion_tokens: request.outputTokens });
        const answer = await send(request);
        expect(answer.usage).toMatchObject({ prompt_tokens: request.promptTokens, completion_tokens: request.outputTokens });
      }
      delete fake.controlHeaders['x-fake-usage'];
      await usageWritten(spendgate);

      // What the CSV says, each request priced as the gateway prices it.
      const at = new Date();
      let costUsd = 0n;
      let spendGbp = 0n;
      for (const { promptTokens, outputTokens } of trace) {
        const usage = { inputTokens: promptTokens, cachedReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, outputTokens, reasoningTokens: 0 };
        const priced = priceRequest(priceCatalog, { kind: 'byok', plan: planTerms('free-trial'), provider: 'openai', model: MODEL, usage, at });
        if (priced.cost.status !== 'priced') throw new Error(`${MODEL} has no price`);
        costUsd += priced.cost.totalMicros;
        spendGbp += priced.budgetSpendMicros;
      }
      const inputTokens = trace.reduce((sum, request) => sum + request.promptTokens, 0);
      const outputTokens = trace.reduce((sum, request) => sum + request.outputTokens, 0);
      expect([inputTokens, outputTokens]).toEqual([22_361_870, 4_088_665]);

      const get = (path: string) => callApi(spendgate.url, 'GET', path, { token: tenant.token });
      const totals = await get(`/usage/group/specific?teamId=${tenant.teamId}`);
      expect(totals.body.data).toMatchObject({
        requests: trace.length,
        errors: 0,
        inputTokens,
        outputTokens,
        totalTokens: inputTokens + outputTokens,
        unpricedRequests: 0,
        estimatedRequests: 0,
        totalCostUsdMicros: costUsd.toString(),
        totalCostMicros: spendGbp.toString(),
      });
      const group = await get(`/usage/group/specific?groupId=${tenant.groupId}`);
      expect(group.body.data.totalCostMicros).toBe(spendGbp.toString());

      const series = await get(`/usage/cost/group?teamId=${tenant.teamId}`);
      const seriesRequests = series.body.data.series.reduce((sum: number, point: { requests: number }) => sum + point.requests, 0);
      const seriesTokens = series.body.data.series.reduce((sum: number, point: { totalTokens: number }) => sum + point.totalTokens, 0);
      expect([seriesRequests, seriesTokens]).toEqual([trace.length, inputTokens + outputTokens]);
      expect(series.body.data.totalCostUsdMicros).toBe(costUsd.toString());

      const byModel = await get(`/usage/distribution/group?teamId=${tenant.teamId}&by=model`);
      expect(byModel.body.data.items).toEqual([expect.objectContaining({ key: MODEL, requests: trace.length, totalTokens: inputTokens + outputTokens, share: 1 })]);

      const month = await get(`/usage/cost/group/specific?teamId=${tenant.teamId}`);
      expect(month.body.data.thisMonth.days.at(-1).cumulativeCost).toBe(totals.body.data.totalCost);

      // The group's usage panel and the connection's read the same rollups.
      const today = at.toISOString().slice(0, 10);
      const sums = { requests: trace.length, inputTokens, outputTokens, totalCostMicros: spendGbp.toString(), totalCostUsdMicros: costUsd.toString() };
      expect((await get(`/usage/group?groupId=${tenant.groupId}&startDate=${today}&endDate=${today}`)).body.data).toMatchObject(sums);
      expect((await get(`/synthetic-group/${tenant.groupId}/usage`)).body.data).toMatchObject(sums);
    }, 600_000);
  });
}
