/**
 * Budget admission under concurrency, end to end: 20 rounds, each a fresh key with a
 * hard £0.05 total budget and 200 chat completions sent at once. Every request must be
 * answered 200 or 402 (OpenAI's error body), some must be refused, the spend admitted
 * must stay within the cap plus one request's worst case, and exactly the admitted
 * requests reach the provider and are recorded as usage events.
 * Embedded: one gateway on the in-process ledger. Scaled: the test's gateway and a
 * second gateway process on one PostgreSQL database and Redis ledger, 100 requests each;
 * once on TEST_REDIS_URL's server and, when TEST_REDIS_CLUSTER_URL is set, once on a
 * Redis Cluster.
 * Even rounds first authenticate the key on every gateway (GET /v1/models spends
 * nothing), so the 200 requests reach the ledger together; odd rounds start cold, so
 * they reach it spread over 200 look-ups of the new key and settles interleave with
 * reservations.
 *
 * Hand-computed in GBP at 0.75 per USD (gpt-4o, $2.50 / $10.00 per million):
 *   reserved:   the body's 88 bytes as the prompt's token bound + max_tokens 200
 *               → 220 + 2000 = 2220 micro-USD → 1665 micro-GBP per request, or when that
 *               does not fit, the counted worst case: 8 prompt tokens (tiktoken estimate
 *               of "Hello there") + 200 → 20 + 2000 = 2020 micro-USD → 1515 micro-GBP
 *   actual:     the fake reports 8 prompt + 120 completion tokens
 *               → 20 + 1200 = 1220 micro-USD → 915 micro-GBP per admitted request
 * With a 50 000 micro-GBP cap, a round admits at least 30 requests (all reserved on the
 * bound before any settles: 30 × 1665 ≤ 50 000). Near the cap the prompt is reserved on
 * its count, and a request the cap cannot cover at max_tokens 200 is sent the output limit
 * it affords (x-spendgate-output-cap) and answers that much less (the fake never reports
 * more output than it was allowed); the spend recorded stays within the cap plus one
 * worst case.
 */
import { redisClusterUrl } from '@spendgate/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { type GatewayProcess, startGatewayProcess } from '../support/gateway-process.ts';
import { callApi, type RunningSpendgate, startSpendgate, type TestMode, testModes } from '../support/spendgate.ts';
import { recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

const ROUNDS = 20;
const REQUESTS_PER_ROUND = 200;
const CAP_MICRO_GBP = 50_000;
const WORST_CASE_MICRO_GBP = 1_515;
const BOUND_RESERVATION_MICRO_GBP = 1_665;
const ACTUAL_MICRO_GBP = 915;
const ACTUAL_COST_USD = '0.001220';
const REQUEST_BODY = JSON.stringify({
  model: 'gpt-4o',
  max_tokens: 200,
  messages: [{ role: 'user', content: 'Hello there' }],
});

interface Answer {
  status: number;
  requestId: string | null;
  costUsd: string | null;
  /** Set when the budget could afford less than max_tokens and the provider was sent that. */
  outputCap: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: the test reads answers of any shape.
  body: any;
}

async function chatCompletion(gatewayUrl: string, apiKey: string): Promise<Answer> {
  const response = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: REQUEST_BODY,
  });
  return {
    status: response.status,
    requestId: response.headers.get('x-spendgate-request-id'),
    costUsd: response.headers.get('x-spendgate-cost'),
    outputCap: response.headers.get('x-spendgate-output-cap'),
    body: await response.json(),
  };
}

async function authenticateKey(gatewayUrl: string, apiKey: string): Promise<void> {
  const response = await fetch(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  await response.body?.cancel();
}

const microsToPounds = (micros: number) => (micros / 1_000_000).toFixed(6);

const runs: { mode: TestMode; label: string; redisUrl?: string }[] = [
  ...testModes.map((mode) => ({ mode, label: mode })),
  ...(testModes.includes('scaled') && redisClusterUrl ? [{ mode: 'scaled' as const, label: 'scaled, Redis Cluster', redisUrl: redisClusterUrl }] : []),
];

for (const { mode, label: runLabel, redisUrl } of runs) {
  describe(`budget admission under ${REQUESTS_PER_ROUND} concurrent requests (${runLabel})`, () => {
    let fake: FakeOpenAI;
    let spendgate: RunningSpendgate;
    let secondGateway: GatewayProcess | undefined;
    let gatewayUrls: string[];
    let tenant: Tenant;
    let connectionId: string;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 8, completion_tokens: 120 });
      spendgate = await startSpendgate(mode, 'budget-concurrency', redisUrl ? { redisUrl } : {});
      if (mode === 'scaled') secondGateway = await startGatewayProcess(spendgate.peer!);
      gatewayUrls = secondGateway ? [spendgate.url, secondGateway.url] : [spendgate.url];
      tenant = await signUpTeam(spendgate.url, 'budget-concurrency@example.com');
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
      });
      expect(connection.status, JSON.stringify(connection.body)).toBe(201);
      connectionId = connection.body.data.newConnection.id;
    });
    afterAll(async () => {
      await secondGateway?.stop();
      await spendgate?.close();
      await fake?.close();
    });

    /** A fresh key with a hard £0.05 budget, created before the key's first request. */
    async function cappedKey(round: number) {
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name: `round ${round}`, kind: 'byok', connectionId },
      });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const keyId: string = key.body.data.providerKey.id;
      const budget = await callApi(spendgate.url, 'POST', '/budgets', {
        token: tenant.token,
        body: { scope: 'key', scopeId: keyId, amount: microsToPounds(CAP_MICRO_GBP), window: 'total', mode: 'hard' },
      });
      expect(budget.status, JSON.stringify(budget.body)).toBe(201);
      return { apiKey: key.body.data.key as string, keyId, budgetId: budget.body.data.id as string };
    }

    it(`keeps the spend within the cap in each of ${ROUNDS} rounds, and records exactly the admitted requests`, async () => {
      for (let round = 1; round <= ROUNDS; round++) {
        const { apiKey, keyId, budgetId } = await cappedKey(round);
        if (round % 2 === 0) await Promise.all(gatewayUrls.map((url) => authenticateKey(url, apiKey)));
        const providerRequestsBefore = fake.requests.length;

        const answers = await Promise.all(
          Array.from({ length: REQUESTS_PER_ROUND }, (_, i) => chatCompletion(gatewayUrls[i % gatewayUrls.length]!, apiKey)),
        );

        const label = `round ${round}`;
        const admitted = answers.filter((answer) => answer.status === 200);
        const refused = answers.filter((answer) => answer.status === 402);
        const otherStatuses = answers.filter((answer) => answer.status !== 200 && answer.status !== 402);
        expect(otherStatuses, `${label}: answers other than 200 and 402`).toEqual([]);
        expect(refused.length, `${label}: refusals`).toBeGreaterThan(0);
        for (const { body } of refused) {
          expect(body, label).toEqual({
            error: {
              message: expect.stringContaining(`Budget exceeded: the key budget ${budgetId} allows £0.050000 in total`),
              type: 'insufficient_quota',
              param: null,
              code: 'budget_exceeded',
            },
          });
        }
        // A request sent with a lowered output limit (the cap could not cover max_tokens 200) answers no more.
        const full = admitted.filter((answer) => answer.outputCap === null);
        const lowered = admitted.filter((answer) => answer.outputCap !== null);
        expect(full.map((answer) => answer.costUsd), `${label}: actual cost of each admitted request`).toEqual(full.map(() => ACTUAL_COST_USD));
        for (const answer of lowered) expect(Number(answer.costUsd), `${label}: ${answer.outputCap}`).toBeLessThanOrEqual(Number(ACTUAL_COST_USD));
        expect(admitted.length, `${label}: admitted while a worst case still fitted`).toBeGreaterThanOrEqual(
          Math.floor(CAP_MICRO_GBP / BOUND_RESERVATION_MICRO_GBP),
        );
        const recorded = await recordedEvents(spendgate, tenant.teamId, fake.requests.length);
        const roundEvents = recorded.filter((event) => event.key_id === keyId);
        const admittedSpend = roundEvents.reduce((sum, event) => sum + Number(event.budget_spend_micros ?? 0), 0);
        expect(admittedSpend, `${label}: spend admitted (${admitted.length} requests, ${lowered.length} with a lowered limit)`).toBeLessThanOrEqual(
          CAP_MICRO_GBP + WORST_CASE_MICRO_GBP,
        );
        expect(admittedSpend, `${label}: spend of the requests with max_tokens 200`).toBeGreaterThanOrEqual(full.length * ACTUAL_MICRO_GBP);
        const budgets = await callApi(spendgate.url, 'GET', `/budgets?scope=key&scopeId=${keyId}`, { token: tenant.token });
        expect(budgets.body.data, `${label}: the budget's spend`).toEqual([
          expect.objectContaining({ id: budgetId, spent: microsToPounds(admittedSpend) }),
        ]);

        const reachedProvider = fake.requests.length - providerRequestsBefore;
        expect(reachedProvider, `${label}: requests that reached the provider`).toBe(admitted.length);
        const roundEventIds = roundEvents.map((event) => event.request_id);
        expect(roundEventIds.sort(), `${label}: usage events`).toEqual(admitted.map((answer) => answer.requestId).sort());
      }
    }, 55_000);
  });
}
