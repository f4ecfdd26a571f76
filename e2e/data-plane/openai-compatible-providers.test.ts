/**
 * The OpenAI-compatible family and Azure OpenAI through the gateway (the local OpenAI
 * fake standing in for Groq's endpoint and for an Azure resource). Hand-computed costs
 * from usage forced to 1000 prompt and 200 completion tokens:
 *   Groq llama-3.3-70b-versatile ($0.59 / $0.79 per million): 590 + 158 = 748 micro-USD;
 *   Azure gpt-4o ($2.50 / $10.00): 2500 + 2000 = 4500 micro-USD.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { issueByokKey, recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

const FORCED_USAGE = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 200 });

for (const mode of testModes) {
  describe(`data plane → OpenAI-compatible providers (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let groqFake: FakeOpenAI;
    let azureFake: FakeOpenAI;
    let tenant: Tenant;
    let groq: OpenAI;
    let azure: OpenAI;

    beforeAll(async () => {
      groqFake = await startFakeOpenAI();
      azureFake = await startFakeOpenAI({ azure: { deployments: { 'gpt-4o': 'gpt-4o' } } });
      for (const fake of [groqFake, azureFake]) fake.controlHeaders['x-fake-usage'] = FORCED_USAGE;
      spendgate = await startSpendgate(mode, 'data-plane-compatible');
      tenant = await signUpTeam(spendgate.url, 'compatible-providers@example.com');
      const groqKey = await issueByokKey(spendgate.url, tenant, { provider: 'groq', apiKey: 'sk-fake-upstream', baseUrl: groqFake.url });
      const azureKey = await issueByokKey(spendgate.url, tenant, {
        provider: 'azure-openai',
        apiKey: 'sk-fake-upstream',
        baseUrl: azureFake.url.replace(/\/+$/, ''),
        options: { apiVersion: '2025-01-01-preview' },
      });
      groq = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: groqKey, maxRetries: 0 });
      azure = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: azureKey, maxRetries: 0 });
    });
    afterAll(async () => {
      await spendgate?.close();
      await groqFake?.close();
      await azureFake?.close();
    });

    it('prices a Groq model from the shared OpenAI-compatible base', async () => {
      const { response } = await groq.chat.completions
        .create({ model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      expect(response.headers.get('x-spendgate-cost')).toBe('0.000748');
      expect(groqFake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-fake-upstream');
    });

    it('sends Azure requests to the deployment with its api-version and api-key', async () => {
      const { data, response } = await azure.chat.completions
        .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      expect(data.choices[0]?.message.content).toBe('echo: Hi');
      expect(response.headers.get('x-spendgate-cost')).toBe('0.004500');
      const upstream = azureFake.requests.at(-1)!;
      expect(upstream.path).toBe('/openai/deployments/gpt-4o/chat/completions?api-version=2025-01-01-preview');
      expect(upstream.headers['api-key']).toBe('sk-fake-upstream');
    });

    it('streams from Azure, whose first chunk carries only content filter results', async () => {
      const stream = await azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi there' }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe('echo: Hi there');
    });

    it('refuses the keys of a disabled connection, clearly and in the caller’s format', async () => {
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'groq', name: 'to disable', apiKey: 'sk-fake-upstream', baseUrl: groqFake.url },
      });
      const connectionId = connection.body.data.newConnection.id;
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name: 'soon disabled', kind: 'byok', connectionId },
      });
      const client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key.body.data.key, maxRetries: 0 });
      await client.models.list();
      const disabled = await callApi(spendgate.url, 'PATCH', `/provider/connections/status/${connectionId}`, {
        token: tenant.token,
        body: { statusValue: 'disabled' },
      });
      expect(disabled.status).toBe(200);
      const before = groqFake.requests.length;
      await expect(
        client.chat.completions.create({ model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'Hi' }] }),
      ).rejects.toMatchObject({ status: 403, error: { code: 'connection_disabled' } });
      expect(groqFake.requests.length).toBe(before);
    });

    it('records one priced event per request', async () => {
      const recorded = await recordedEvents(spendgate, tenant.teamId, 3);
      expect(recorded.map((event) => [event.provider, event.cost_micros])).toEqual([
        ['groq', 748n],
        ['azure-openai', 4500n],
        ['azure-openai', 4500n],
      ]);
    });
  });
}
