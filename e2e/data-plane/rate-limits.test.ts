/**
 * Per-key rate limits through the real SDKs: requests per minute and tokens per minute,
 * refused with 429 and retry-after in the caller's format before anything reaches the
 * provider, with OpenAI's x-ratelimit-* headers on admitted answers.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

const HI = [{ role: 'user' as const, content: 'Hi' }];

for (const mode of testModes) {
  describe(`rate limits (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let tenant: Tenant;
    let connectionId: string;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 200 });
      spendgate = await startSpendgate(mode, 'data-plane-rate-limits');
      tenant = await signUpTeam(spendgate.url, 'rates@example.com');
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
      });
      connectionId = connection.body.data.newConnection.id;
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    async function keyWith(rateLimit: Record<string, number>): Promise<string> {
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name: 'limited', kind: 'byok', connectionId, settings: { rateLimit } },
      });
      expect(key.status).toBe(201);
      return key.body.data.key;
    }

    it('admits requestsPerMinute requests and refuses the next with retry-after', async () => {
      const key = await keyWith({ requestsPerMinute: 3 });
      const openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      const remaining: (string | null)[] = [];
      for (let i = 0; i < 3; i++) {
        const { response } = await openai.chat.completions.create({ model: 'gpt-4o', messages: HI }).withResponse();
        remaining.push(response.headers.get('x-ratelimit-remaining-requests'));
        expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3');
      }
      expect(remaining).toEqual(['2', '1', '0']);

      const reached = fake.requests.length;
      const refusal = (await openai.chat.completions.create({ model: 'gpt-4o', messages: HI }).catch((error: unknown) => error)) as InstanceType<
        typeof OpenAI.APIError
      >;
      expect(refusal).toBeInstanceOf(OpenAI.RateLimitError);
      expect(refusal.message).toContain('this key allows 3 requests per minute');
      const retryAfter = Number(refusal.headers?.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(61);

      const anthropic = new Anthropic({ baseURL: spendgate.url, apiKey: key, maxRetries: 0 });
      await expect(anthropic.messages.create({ model: 'gpt-4o', max_tokens: 50, messages: HI })).rejects.toMatchObject({
        status: 429,
        error: { type: 'error', error: { type: 'rate_limit_error' } },
      });
      expect(fake.requests.length).toBe(reached);
    });

    it('refuses once the tokens used in the last minute reach tokensPerMinute', async () => {
      const key = await keyWith({ tokensPerMinute: 2_500 });
      const openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      // Each answer uses 1 200 tokens: after three, 3 600 are counted and the fourth does not fit.
      const left: (string | null)[] = [];
      for (let i = 0; i < 3; i++) {
        const { response } = await openai.chat.completions.create({ model: 'gpt-4o', messages: HI }).withResponse();
        left.push(response.headers.get('x-ratelimit-remaining-tokens'));
      }
      expect(left.map(Number)).toEqual([2_500, 2_500 - 1_200, 2_500 - 2_400]);
      await expect(openai.chat.completions.create({ model: 'gpt-4o', messages: HI })).rejects.toMatchObject({
        status: 429,
        message: expect.stringContaining('this key allows 2500 tokens per minute'),
      });
    });

    it('records a usage event for every admitted request and none for refused ones', async () => {
      await recordedEvents(spendgate, tenant.teamId, 6);
    });
  });
}
