/**
 * A key's model overrides and output cap on the data plane, through the real OpenAI and
 * Anthropic SDKs and the fakes of both providers: a request for a replaced model reaches
 * the provider as the model sent instead, with its output limit lowered to the key's cap
 * (or given it), JSON and streamed, in each API's shape; an override through another of
 * the team's connections sends it there (translated); each usage event records the model
 * that served, its price, the model asked and the route; a hard budget reserves the
 * capped figure, not the caller's. Costs with forced usage (1000 in, 200 out), per 1M:
 *   gpt-4o-mini $0.15 / $0.60: 150 + 120 = 270 µ$     claude-haiku-4-5 $1 / $5: 1000 + 1000 = 2000 µ$
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic-provider.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

const HI = [{ role: 'user' as const, content: 'Hi' }];

for (const mode of testModes) {
  describe(`a key's model overrides and output cap (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let openaiFake: FakeOpenAI;
    let anthropicFake: FakeAnthropic;
    let tenant: Tenant;
    const connections = { openai: '', anthropic: '' };
    let eventCount = 0;

    const api = (method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token: tenant.token, body });
    const issueKey = async (connectionId: string, settings: unknown) => {
      const created = await api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { name: 'overridden', kind: 'byok', connectionId, settings });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { id: created.body.data.providerKey.id as string, key: created.body.data.key as string };
    };
    /** The usage event of one answer, by its request id. */
    const eventOf = async (requestId: string | null) => {
      eventCount += 1;
      const events = await recordedEvents(spendgate, tenant.teamId, eventCount);
      return events.find((event) => event.request_id === requestId)!;
    };
    const headersOf = (response: Response) =>
      ['x-spendgate-model', 'x-spendgate-route', 'x-spendgate-output-cap', 'x-spendgate-cost'].map((name) => response.headers.get(name));

    beforeAll(async () => {
      [openaiFake, anthropicFake] = await Promise.all([startFakeOpenAI(), startFakeAnthropic()]);
      openaiFake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 200 });
      anthropicFake.controlHeaders['x-fake-usage'] = JSON.stringify({ input_tokens: 1000, output_tokens: 200 });
      spendgate = await startSpendgate(mode, 'data-plane-key-settings');
      tenant = await signUpTeam(spendgate.url, 'key-settings@example.com');
      for (const [provider, fake, apiKey] of [
        ['openai', openaiFake, 'sk-fake-upstream'],
        ['anthropic', anthropicFake, 'sk-ant-fake-upstream'],
      ] as const) {
        const created = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider, name: `${provider} account`, apiKey, baseUrl: fake.url });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        connections[provider] = created.body.data.newConnection.id;
      }
    });
    afterAll(async () => {
      await spendgate?.close();
      await openaiFake?.close();
      await anthropicFake?.close();
    });

    it('sends an OpenAI request for a replaced model as the model instead, its max_tokens lowered to the cap, JSON and streamed', async () => {
      const { key } = await issueKey(connections.openai, { maxOutputTokens: 256, modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini' }] });
      const client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });

      const { data, response } = await client.chat.completions.create({ model: 'gpt-4o', messages: HI, max_tokens: 4096 }).withResponse();
      expect(data.model).toBe('gpt-4o-mini-2024-07-18');
      expect(openaiFake.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 256 });
      expect(headersOf(response)).toEqual(['gpt-4o-mini-2024-07-18', 'override: gpt-4o -> gpt-4o-mini', '256; reason=key-setting', '0.000270']);
      const json = await eventOf(response.headers.get('x-spendgate-request-id'));
      expect(json).toMatchObject({
        model: 'gpt-4o-mini-2024-07-18',
        requested_model: 'gpt-4o',
        provider: 'openai',
        cost_micros: 270n,
        route: 'override: gpt-4o -> gpt-4o-mini',
        requested_output_tokens: 256,
        streamed: false,
      });

      // Streamed, no limit asked: the cap is given in the field OpenAI reads, and a model not overridden goes as asked.
      const streamed = await client.chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true }).withResponse();
      let text = '';
      for await (const chunk of streamed.data) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('echo: Hi');
      expect(openaiFake.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o-mini', max_completion_tokens: 256, stream_options: { include_usage: true } });
      expect(headersOf(streamed.response).slice(1, 3)).toEqual(['override: gpt-4o -> gpt-4o-mini', '256; reason=key-setting']);
      expect(await eventOf(streamed.response.headers.get('x-spendgate-request-id'))).toMatchObject({
        model: 'gpt-4o-mini-2024-07-18',
        requested_model: 'gpt-4o',
        cost_micros: 270n,
        streamed: true,
      });

      // A limit under the cap is the caller's, untouched; another model is sent as asked.
      const small = await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: HI, max_completion_tokens: 100 }).withResponse();
      expect(openaiFake.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4.1-nano', max_completion_tokens: 100 });
      expect(headersOf(small.response).slice(1, 3)).toEqual(['requested', null]);
      expect(await eventOf(small.response.headers.get('x-spendgate-request-id'))).toMatchObject({ requested_model: 'gpt-4.1-nano', route: 'requested' });
    });

    it('sends an Anthropic message for a replaced model as the model instead, its max_tokens lowered to the cap, JSON and streamed', async () => {
      const { key } = await issueKey(connections.anthropic, { maxOutputTokens: 300, modelOverrides: [{ replace: 'claude-sonnet-4-5', with: 'claude-haiku-4-5' }] });
      const client = new Anthropic({ baseURL: spendgate.url, apiKey: key, maxRetries: 0 });

      const { data, response } = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: HI }).withResponse();
      expect(data.model).toBe('claude-haiku-4-5-20251001');
      expect(anthropicFake.requests.at(-1)!.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 300 });
      expect(headersOf(response)).toEqual(['claude-haiku-4-5-20251001', 'override: claude-sonnet-4-5 -> claude-haiku-4-5', '300; reason=key-setting', '0.002000']);
      expect(await eventOf(response.headers.get('x-spendgate-request-id'))).toMatchObject({
        model: 'claude-haiku-4-5-20251001',
        requested_model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        cost_micros: 2_000n,
        requested_output_tokens: 300,
      });

      const stream = client.messages.stream({ model: 'claude-sonnet-4-5', max_tokens: 4096, messages: HI });
      const message = await stream.finalMessage();
      expect(message.model).toBe('claude-haiku-4-5-20251001');
      expect(anthropicFake.requests.at(-1)!.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 300, stream: true });
      const { response: streamed } = await stream.withResponse();
      expect(await eventOf(streamed.headers.get('x-spendgate-request-id'))).toMatchObject({
        model: 'claude-haiku-4-5-20251001',
        requested_model: 'claude-sonnet-4-5',
        cost_micros: 2_000n,
        streamed: true,
        route: 'override: claude-sonnet-4-5 -> claude-haiku-4-5',
      });
    });

    it('sends a model through the team connection an override names, translated, until that connection is disabled', async () => {
      const { key } = await issueKey(connections.openai, {
        maxOutputTokens: 256,
        modelOverrides: [{ replace: 'claude-haiku-4-5', with: 'claude-haiku-4-5', connectionId: connections.anthropic }],
      });
      const client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      const { data, response } = await client.chat.completions.create({ model: 'claude-haiku-4-5', messages: HI, max_tokens: 1000 }).withResponse();
      expect(data.choices[0]!.message.content).toBe('echo: Hi');
      const upstream = anthropicFake.requests.at(-1)!;
      expect([upstream.path, upstream.headers['x-api-key']]).toEqual(['/v1/messages', 'sk-ant-fake-upstream']);
      expect(upstream.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 256 });
      expect(headersOf(response)).toEqual(['claude-haiku-4-5-20251001', 'override: claude-haiku-4-5 -> claude-haiku-4-5 via anthropic', '256; reason=key-setting', '0.002000']);
      expect(await eventOf(response.headers.get('x-spendgate-request-id'))).toMatchObject({
        connection_id: connections.anthropic,
        provider: 'anthropic',
        model: 'claude-haiku-4-5-20251001',
        requested_model: 'claude-haiku-4-5',
        cost_micros: 2_000n,
      });

      // The keys whose overrides go through a connection hear of its change at once.
      const disabled = await api('PATCH', `/provider/connections/status/${connections.anthropic}`, { statusValue: 'disabled' });
      expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
      const refused = await client.chat.completions.create({ model: 'claude-haiku-4-5', messages: HI }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 403, message: expect.stringContaining(`The connection ${connections.anthropic}, which this key's model override goes through, is disabled`) });
      await api('PATCH', `/provider/connections/status/${connections.anthropic}`, { statusValue: 'active' });
    });

    it('reserves the capped output on a hard budget, not the limit the caller asked', async () => {
      const { id, key } = await issueKey(connections.openai, { maxOutputTokens: 256 });
      // £0.001: 256 output tokens of gpt-4o-mini ($0.0001536 → £0.0001152) fit; the 4,096 asked ($0.0024576 → £0.0018432) do not.
      const budget = await api('POST', '/budgets', { scope: 'key', scopeId: id, amount: '0.001', window: 'day', mode: 'hard' });
      expect(budget.status, JSON.stringify(budget.body)).toBe(201);
      const client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      const capped = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: HI, max_tokens: 4096 }).withResponse();
      expect(capped.response.headers.get('x-spendgate-output-cap')).toBe('256; reason=key-setting');
      expect(openaiFake.requests.at(-1)!.body).toMatchObject({ max_tokens: 256 });
      await eventOf(capped.response.headers.get('x-spendgate-request-id'));

      // Without the key's cap, the budget has to lower the caller's 4,096 itself.
      const unset = await api('PATCH', `/synthetic-group/provider-key/${id}`, { settings: {} });
      expect(unset.status).toBe(200);
      const budgeted = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: HI, max_tokens: 4096 }).withResponse();
      expect(budgeted.response.headers.get('x-spendgate-output-cap')).toMatch(/^\d+; reason=budget$/);
      await eventOf(budgeted.response.headers.get('x-spendgate-request-id'));
    });
  });
}
