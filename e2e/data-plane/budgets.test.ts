/**
 * Budgets end to end: a hard budget on a key refuses the request that would overflow
 * it (402 in the caller's format, naming the budget), a soft budget on the group only
 * counts, and answers carry what is left. Hand-computed in GBP at 0.75 per USD (gpt-4o,
 * $2.50 / $10.00 per million):
 *   actual:     1000 prompt + 200 completion → 4500 micro-USD → 3375 micro-GBP per request
 *   worst case: the body's 79 bytes as the prompt's token bound + max_tokens 300
 *               → 3197.5 micro-USD → 2398.1 → 2399 micro-GBP reserved; when that does not
 *               fit, or leaves less than 200 such reservations (near the cap), the prompt
 *               is counted: 7 tokens (tiktoken estimate of "Hi"), reserved with a 5/4 margin
 *               for other tokenizers as 9, + 300 → 3022.5 micro-USD → 2266.9 → 2267
 *               micro-GBP, and that is reserved instead
 * With a £0.01 cap: 3 requests are admitted (0, 3375, 6750 spent before each; each
 * + 2267 ≤ 10 000) and the 4th is refused (10 125 > 10 000: not even a 16-token answer fits).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

for (const mode of testModes) {
  describe(`budgets (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let tenant: Tenant;
    let keyId: string;
    let connectionId: string;
    let openai: OpenAI;
    let anthropic: Anthropic;

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 200 });
      spendgate = await startSpendgate(mode, 'data-plane-budgets');
      tenant = await signUpTeam(spendgate.url, 'budgets@example.com');
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
      });
      connectionId = connection.body.data.newConnection.id;
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name: 'capped', kind: 'byok', connectionId },
      });
      keyId = key.body.data.providerKey.id;
      openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key.body.data.key, maxRetries: 0 });
      anthropic = new Anthropic({ baseURL: spendgate.url, apiKey: key.body.data.key, maxRetries: 0 });
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    const budgets = (query: string) => callApi(spendgate.url, 'GET', `/budgets?${query}`, { token: tenant.token });

    it('creates budgets, validating every field', async () => {
      const hard = await callApi(spendgate.url, 'POST', '/budgets', {
        token: tenant.token,
        body: { scope: 'key', scopeId: keyId, amount: '0.01', window: 'month', mode: 'hard', alertAt: [50, 80, 100] },
      });
      expect(hard.status).toBe(201);
      expect(hard.body.data).toMatchObject({ amount: '0.010000', currency: 'GBP', spent: '0.000000', remaining: '0.010000', unpricedModels: 'refused' });
      const soft = await callApi(spendgate.url, 'POST', '/budgets', {
        token: tenant.token,
        body: { scope: 'group', scopeId: tenant.groupId, amount: 0.000001, window: 'day', mode: 'soft' },
      });
      expect(soft.status).toBe(201);
      expect(soft.body.data.unpricedModels).toBe('admitted');
      for (const [body, field] of [
        [{ scope: 'key', scopeId: keyId, amount: '-5', window: 'month', mode: 'hard' }, 'amount'],
        [{ scope: 'key', scopeId: keyId, amount: '5', window: 'year', mode: 'hard' }, 'window'],
        [{ scope: 'wallet', scopeId: keyId, amount: '5', window: 'day', mode: 'hard' }, 'scope'],
        [{ scope: 'group', scopeId: keyId, amount: '5', window: 'day', mode: 'hard' }, 'scopeId'],
      ] as const) {
        const refused = await callApi(spendgate.url, 'POST', '/budgets', { token: tenant.token, body });
        expect([refused.status, refused.body.field]).toEqual([400, field]);
      }
    });

    it('admits requests while the hard cap holds and says what is left', async () => {
      const remaining: (string | null)[] = [];
      for (let i = 0; i < 3; i++) {
        const { response } = await openai.chat.completions
          .create({ model: 'gpt-4o', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }] })
          .withResponse();
        remaining.push(response.headers.get('x-spendgate-budget-remaining'));
      }
      // Near the cap, reserved on the counted prompt: (9 × $2.50 + 300 × $10) / 1M = 3022.5
      // micro-USD = 2267 micro-GBP. 10 000 − spent − 2267: 7733, 4358, 983 micro-GBP.
      expect(remaining).toEqual(['0.007733', '0.004358', '0.000983']);
    });

    it('refuses the request that would overflow it, in each caller’s format, before the provider', async () => {
      const before = fake.requests.length;
      const refusal = await openai.chat.completions
        .create({ model: 'gpt-4o', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }] })
        .catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(OpenAI.APIError);
      expect(refusal).toMatchObject({ status: 402, error: { code: 'budget_exceeded' } });
      const message = (refusal as InstanceType<typeof OpenAI.APIError>).message;
      expect(message).toContain('allows £0.010000 per month and £0.010125 is spent or reserved');
      expect(message).toContain('it resets at 20');
      expect((refusal as InstanceType<typeof OpenAI.APIError>).headers?.get('x-spendgate-budget-remaining')).toBe('0.000000');
      await expect(
        anthropic.messages.create({ model: 'gpt-4o', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }] }),
      ).rejects.toMatchObject({ status: 402, error: { type: 'error', error: { type: 'billing_error' } } });
      expect(fake.requests.length).toBe(before);
    });

    it('reports each budget’s spend; the soft one counts without refusing', async () => {
      await recordedEvents(spendgate, tenant.teamId, 3);
      const hard = await budgets(`scope=key&scopeId=${keyId}`);
      expect(hard.body.data).toEqual([expect.objectContaining({ mode: 'hard', spent: '0.010125', remaining: '0.000000' })]);
      const all = await budgets(`teamId=${tenant.teamId}`);
      expect(all.body.data.map((b: { mode: string; spent: string }) => [b.mode, b.spent])).toEqual([
        ['hard', '0.010125'],
        ['soft', '0.010125'],
      ]);
    });

    it('lifts the cap when an admin raises it, and keeps budgets to the team', async () => {
      const [budget] = (await budgets(`scope=key&scopeId=${keyId}`)).body.data;
      const raised = await callApi(spendgate.url, 'PATCH', `/budgets/${budget.id}?teamId=${tenant.teamId}`, {
        token: tenant.token,
        body: { amount: '1' },
      });
      expect(raised.body.data).toMatchObject({ amount: '1.000000', remaining: '0.989875' });
      const { response } = await openai.chat.completions
        .create({ model: 'gpt-4o', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      expect(response.status).toBe(200);
      const outsider = await signUpTeam(spendgate.url, 'budget-outsider@example.com');
      const peek = await callApi(spendgate.url, 'GET', `/budgets?teamId=${tenant.teamId}`, { token: outsider.token });
      expect(peek.status).toBe(404);
      const removed = await callApi(spendgate.url, 'DELETE', `/budgets/${budget.id}?teamId=${outsider.teamId}`, { token: outsider.token });
      expect(removed.status).toBe(404);
    });

    it('counts the prompt when its byte bound does not fit, and admits what the count fits', async () => {
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name: 'tight', kind: 'byok', connectionId },
      });
      const tightKeyId = key.body.data.providerKey.id;
      // £0.0023: the bound's 2399 does not fit, the counted 2267 does — once.
      const created = await callApi(spendgate.url, 'POST', '/budgets', {
        token: tenant.token,
        body: { scope: 'key', scopeId: tightKeyId, amount: '0.0023', window: 'total', mode: 'hard' },
      });
      expect(created.status).toBe(201);
      const tight = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key.body.data.key, maxRetries: 0 });
      const { response } = await tight.chat.completions
        .create({ model: 'gpt-4o', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      expect([response.status, response.headers.get('x-spendgate-budget-remaining')]).toEqual([200, '0.000033']);
      await expect(
        tight.chat.completions.create({ model: 'gpt-4o', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }] }),
      ).rejects.toMatchObject({ status: 402 });
    });

    it('holds nothing for a request refused before it reaches a provider', async () => {
      await expect(
        anthropic.messages.create({
          model: 'gpt-4o',
          max_tokens: 300,
          messages: [{ role: 'user', content: 'Hi' }],
          tools: [{ type: 'web_search_20250305', name: 'web_search' }],
        }),
      ).rejects.toMatchObject({ status: 400 });
      const { response } = await openai.chat.completions
        .create({ model: 'gpt-4o', max_tokens: 300, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      // £1 − 4 × 3375 spent − 2399 reserved for this request: nothing left over from the refused one.
      expect(response.headers.get('x-spendgate-budget-remaining')).toBe('0.984101');
    });
  });
}
