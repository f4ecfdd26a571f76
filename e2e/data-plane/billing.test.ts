/**
 * Key kinds and their billing rules (spec §9, the team on the free trial's Developers
 * terms: +30 % uplift, £0.002 under 100 tokens, £0.005 BYOM routing fee; USD→GBP 0.75),
 * a team's own prices, and its unpriced-model policy — end to end through the OpenAI SDK.
 */
import { listUsageEvents } from '@spendgate/store';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { issueByokKey, signUpTeam, type Tenant } from './tenant.ts';

const usage = (prompt: number, completion: number) => JSON.stringify({ prompt_tokens: prompt, completion_tokens: completion });

for (const mode of testModes) {
  describe(`billing by key kind (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let operator: FakeOpenAI;
    let selfHosted: FakeOpenAI;
    let tenant: Tenant;
    let optimisedKey: string;

    const client = (key: string) => new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
    const lastEvent = async () => {
      await usageWritten(spendgate);
      return (await listUsageEvents(spendgate.app.runtime.stores.sql.db, tenant.teamId)).at(-1)!;
    };
    const createKey = async (body: Record<string, unknown>) =>
      callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { token: tenant.token, body });

    beforeAll(async () => {
      operator = await startFakeOpenAI({ apiKey: 'sk-operator' });
      selfHosted = await startFakeOpenAI({ apiKey: 'local-model-key' });
      spendgate = await startSpendgate(mode, 'data-plane-billing', {
        env: { OPTIMISED_UPSTREAMS: JSON.stringify({ openai: { apiKey: 'sk-operator', baseUrl: operator.url } }) },
      });
      tenant = await signUpTeam(spendgate.url, 'billing@example.com');
    });
    afterAll(async () => {
      await spendgate?.close();
      await operator?.close();
      await selfHosted?.close();
    });

    it('bills an optimised key the base cost plus the plan uplift, in GBP, on the operator account', async () => {
      const key = await createKey({ name: 'optimised', kind: 'optimised' });
      expect(key.status).toBe(201);
      optimisedKey = key.body.data.key;
      operator.controlHeaders['x-fake-usage'] = usage(1000, 200);
      const { response } = await client(optimisedKey)
        .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      // $: 1000 × 2.5 + 200 × 10 = 4500 micro-USD → × 0.75 = 3375 → × 1.30 = 4387.5 → 4388 micro-GBP
      expect(response.headers.get('x-spendgate-cost')).toBe('0.004500');
      expect(operator.requests.at(-1)!.headers.authorization).toBe('Bearer sk-operator');
      expect(await lastEvent()).toMatchObject({
        key_kind: 'optimised',
        connection_id: null,
        cost_micros: 4500n,
        billed_micros: 4388n,
        billed_currency: 'GBP',
        fx_rate_ppm: 750_000n,
        billing_rule: 'optimised-uplift',
      });
    });

    it('bills an optimised request under 100 tokens the per-request fee instead', async () => {
      operator.controlHeaders['x-fake-usage'] = usage(60, 39); // 99 tokens
      await client(optimisedKey).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
      expect(await lastEvent()).toMatchObject({ billed_micros: 2000n, billing_rule: 'optimised-minimum-fee' });
    });

    it('serves no optimised key of a demo team, and bills its own connection’s requests nothing while counting them on its budgets', async () => {
      const demo = await signUpTeam(spendgate.url, 'billing-demo@example.com');
      await spendgate.app.runtime.stores.sql.db.updateTable('teams').set({ is_demo: true }).where('id', '=', demo.teamId).execute();
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${demo.groupId}`, { token: demo.token, body: { name: 'optimised', kind: 'optimised' } });
      expect(key.status).toBe(201);
      const operatorCalls = operator.requests.length;
      await expect(client(key.body.data.key).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toMatchObject({
        status: 403,
        error: { code: 'demo_team', message: "A demo team is never billed, so its optimised keys are not served: Spendgate's provider accounts would pay for them. Issue the key on one of your own teams." },
      });
      expect(operator.requests.length).toBe(operatorCalls);
      await usageWritten(spendgate);
      expect(await listUsageEvents(spendgate.app.runtime.stores.sql.db, demo.teamId)).toEqual([]);

      // Its own connection (BYOK) is served: the provider bills the team, Spendgate bills nothing.
      const byok = await issueByokKey(spendgate.url, demo, { provider: 'openai', apiKey: 'sk-operator', baseUrl: operator.url });
      operator.controlHeaders['x-fake-usage'] = usage(1000, 200);
      await client(byok).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
      await usageWritten(spendgate);
      // 4500 micro-USD at 0.75: 3375 micro-GBP counted on its budgets; billed nothing.
      expect((await listUsageEvents(spendgate.app.runtime.stores.sql.db, demo.teamId)).at(-1)).toMatchObject({
        key_kind: 'byok',
        cost_micros: 4500n,
        budget_spend_micros: 3375n,
        billed_micros: 0n,
        billing_rule: 'demo-never-billed',
      });
    });

    it('refuses an optimised request for a model no operator account serves', async () => {
      await expect(
        client(optimisedKey).chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hi' }] }),
      ).rejects.toMatchObject({ status: 400, error: { code: 'model_not_available' } });
    });

    it('routes a BYOM key to the team’s own endpoint and bills the routing fee; its model is unpriced, never £0', async () => {
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai-compatible', name: 'vLLM', apiKey: 'local-model-key', baseUrl: selfHosted.url },
      });
      expect(connection.status).toBe(201);
      const key = await createKey({ name: 'byom', kind: 'byom', connectionId: connection.body.data.newConnection.id });
      expect(key.status).toBe(201);
      const { response } = await client(key.body.data.key)
        .chat.completions.create({ model: 'llama3.1:8b', messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      expect(response.headers.get('x-spendgate-cost')).toBeNull();
      expect(selfHosted.requests.at(-1)!.headers.authorization).toBe('Bearer local-model-key');
      expect(await lastEvent()).toMatchObject({
        key_kind: 'byom',
        cost_micros: null,
        price_version: null,
        billed_micros: 5000n,
        billing_rule: 'byom-routing-fee',
      });
    });

    it('refuses a BYOM key on a hosted provider’s connection, naming the field', async () => {
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', name: 'hosted', apiKey: 'sk-x', baseUrl: operator.url },
      });
      const key = await createKey({ name: 'byom', kind: 'byom', connectionId: connection.body.data.newConnection.id });
      expect([key.status, key.body.field]).toEqual([400, 'connectionId']);
    });

    it('prices with the team’s own price when it has one', async () => {
      const set = await callApi(spendgate.url, 'PUT', '/pricing/overrides', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', model: 'gpt-4o', inputPerMTok: '1.00', outputPerMTok: 2 },
      });
      expect(set.status).toBe(200);
      expect(set.body.data).toMatchObject({ model: 'gpt-4o', inputPerMTok: '1.000000', outputPerMTok: '2.000000' });
      const bad = await callApi(spendgate.url, 'PUT', '/pricing/overrides', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', model: 'gpt-4o', inputPerMTok: '-1', outputPerMTok: 2 },
      });
      expect([bad.status, bad.body.field]).toEqual([400, 'inputPerMTok']);

      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-operator', baseUrl: operator.url });
      operator.controlHeaders['x-fake-usage'] = usage(1000, 200);
      const { response } = await client(key)
        .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      // 1000 × $1.00 + 200 × $2.00 per million = 1000 + 400 micro-USD
      expect(response.headers.get('x-spendgate-cost')).toBe('0.001400');
      expect(await lastEvent()).toMatchObject({ cost_micros: 1400n, price_version: 'team-override', billed_micros: 0n });
    });

    it('refuses an unpriced model when the team forbids them, before reaching the provider', async () => {
      const policy = await callApi(spendgate.url, 'PUT', '/pricing/unpriced-models', {
        token: tenant.token,
        body: { teamId: tenant.teamId, allowUnpricedModels: false },
      });
      expect(policy.status).toBe(200);
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-operator', baseUrl: operator.url });
      const before = operator.requests.length;
      await expect(
        client(key).chat.completions.create({ model: 'mystery-model-1', messages: [{ role: 'user', content: 'Hi' }] }),
      ).rejects.toMatchObject({ status: 400, error: { code: 'model_unpriced' } });
      expect(operator.requests.length).toBe(before);
    });

    it('keeps pricing changes to team admins', async () => {
      const outsider = await signUpTeam(spendgate.url, 'outsider@example.com');
      const peek = await callApi(spendgate.url, 'GET', `/pricing/overrides?teamId=${tenant.teamId}`, { token: outsider.token });
      expect(peek.status).toBe(404);
      const mine = await callApi(spendgate.url, 'GET', `/pricing/overrides?teamId=${tenant.teamId}`, { token: tenant.token });
      expect(mine.body.data.map((row: { model: string }) => row.model)).toEqual(['gpt-4o']);
    });
  });
}
