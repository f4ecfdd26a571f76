/**
 * What the console's key list and budget bars read: a group lists each key with when it
 * last served a request (null until it has), and a budget answers what requests under way
 * hold (`reserved`) beside what is spent, back to zero once they settle.
 */
import { decimalToMicros, microsToDecimalString } from '@spendgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueByokKey, signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';

for (const mode of testModes) {
  describe(`key list and budget spend (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let tenant: Tenant;
    let plaintext: string;
    const api = (method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token: tenant.token, body });
    const chat = (headers: Record<string, string> = {}, stream = false) =>
      fetch(`${spendgate.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${plaintext}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three four five six' }], max_tokens: 50, stream }),
      });

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, 'api-key-list');
      tenant = await signUpTeam(spendgate.url, 'key-list@example.com');
      plaintext = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    it('lists a key as never used, then with the time of its last request', async () => {
      const listed = async () => (await api('GET', `/synthetic-group/${tenant.groupId}`)).body.data.syntheticGroupProviderKeys[0];
      const fresh = await listed();
      expect(fresh.lastUsedAt).toBeNull();
      expect(plaintext.startsWith(fresh.prefix)).toBe(true);

      const before = Date.now();
      expect((await chat()).status).toBe(200);
      await usageWritten(spendgate);
      const lastUsedAt = Date.parse((await listed()).lastUsedAt);
      expect(lastUsedAt).toBeGreaterThanOrEqual(before - 1000);
      expect(lastUsedAt).toBeLessThanOrEqual(Date.now());
    });

    it('answers what a request under way holds on a budget, and nothing once it settles', async () => {
      const keyId = (await api('GET', `/synthetic-group/${tenant.groupId}`)).body.data.syntheticGroupProviderKeys[0].id;
      const created = await api('POST', '/budgets', { scope: 'key', scopeId: keyId, amount: '5', window: 'month', mode: 'hard' });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ amount: '5.000000', reserved: '0.000000' });
      const budget = async () => (await api('GET', `/budgets?scope=key&scopeId=${keyId}`)).body.data[0];

      // A slow stream stays under way while the budget is read.
      fake.controlHeaders['x-fake-stream-interval-ms'] = '400';
      const streaming = await chat({}, true);
      expect(streaming.status).toBe(200);
      await expect.poll(async () => Number((await budget()).reserved), { timeout: 5_000 }).toBeGreaterThan(0);
      await streaming.text();
      delete fake.controlHeaders['x-fake-stream-interval-ms'];
      await usageWritten(spendgate);

      await expect.poll(async () => (await budget()).reserved, { timeout: 10_000 }).toBe('0.000000');
      const settled = await budget();
      expect(Number(settled.spent)).toBeGreaterThan(0);
      expect(settled.remaining).toBe(microsToDecimalString(5_000_000n - decimalToMicros(settled.spent)!));
    });
  });
}
