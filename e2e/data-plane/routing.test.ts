/**
 * Optimised routing and health end to end, through the real OpenAI SDK and an optimised
 * key served by two operator accounts (the OpenAI and Anthropic fakes): `auto` follows
 * the key's cost / speed / accuracy weights (or the plan's) and skips models that cannot
 * serve the request; a failing provider is retried, then failed over to the next model;
 * after 5 failures in a row its circuit opens and traffic skips it — in the scaled mode
 * also on another gateway process of the deployment, told over Redis; a spent downgrade
 * budget sends requests to the cheaper sibling. Every answer names the model and route,
 * and exactly one usage event records them. Costs with forced usage (1000 in, 200 out):
 *   gpt-5-nano 1000 × $0.05 + 200 × $0.40 = 130 µ$      gpt-5 1250 + 2000 = 3250 µ$
 *   gpt-4.1-nano 100 + 80 = 180 µ$                       gpt-4.1 2000 + 1600 = 3600 µ$
 *   claude-opus-4-5 5000 + 5000 = 10 000 µ$             claude-sonnet-4-5 3000 + 3000 = 6000 µ$
 *   claude-haiku-4-5 1000 + 1000 = 2000 µ$              gpt-4o 2500 + 2000 = 4500 µ$, gpt-4o-mini 150 + 120 = 270 µ$
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic-provider.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { type GatewayProcess, startGatewayProcess } from '../support/gateway-process.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { issueByokKey, recordedEvents, signUpTeam, type Tenant } from './tenant.ts';

const HI = [{ role: 'user' as const, content: 'Hi' }];
const OPENAI_USAGE = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 200 });
const ANTHROPIC_USAGE = JSON.stringify({ input_tokens: 1000, output_tokens: 200 });

for (const mode of testModes) {
  describe(`optimised routing and health (${mode})`, () => {
    let spendgate: RunningSpendgate;
    /** Scaled mode: another gateway of the same deployment (its own process, sharing Redis). */
    let otherGateway: GatewayProcess | undefined;
    let openaiAccount: FakeOpenAI;
    let anthropicAccount: FakeAnthropic;
    let tenant: Tenant;
    /** The optimised key whose routing settings each test sets (the trial allows 2 such keys). */
    let routed: { id: string; key: string };
    let eventCount = 0;

    const client = (key: string, gatewayUrl = spendgate.url) => new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: key, maxRetries: 0 });
    const createKey = async (body: Record<string, unknown>) => {
      const created = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name: 'routed', kind: 'optimised', ...body },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { id: created.body.data.providerKey.id as string, key: created.body.data.key as string };
    };
    const setRouting = async (routing: { weights?: { cost: number; speed: number; accuracy: number }; fallbacks?: string[] }) => {
      const patched = await callApi(spendgate.url, 'PATCH', `/synthetic-group/provider-key/${routed.id}`, {
        token: tenant.token,
        body: { settings: { routing } },
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      return routed.key;
    };
    const weighted = (weights: { cost: number; speed: number; accuracy: number }) => setRouting({ weights });
    /** The usage event of one answer (the team's events so far are counted by the caller). */
    const eventOf = async (response: Response) => {
      eventCount += 1;
      const events = await recordedEvents(spendgate, tenant.teamId, eventCount);
      return events.find((event) => event.request_id === response.headers.get('x-spendgate-request-id'));
    };
    const routeOf = (response: Response) => [response.headers.get('x-spendgate-model'), response.headers.get('x-spendgate-route')];

    beforeAll(async () => {
      openaiAccount = await startFakeOpenAI({ apiKey: 'sk-operator-openai' });
      anthropicAccount = await startFakeAnthropic({ apiKey: 'sk-operator-anthropic' });
      spendgate = await startSpendgate(mode, 'data-plane-routing', {
        env: {
          OPTIMISED_UPSTREAMS: JSON.stringify({
            openai: { apiKey: 'sk-operator-openai', baseUrl: openaiAccount.url },
            anthropic: { apiKey: 'sk-operator-anthropic', baseUrl: anthropicAccount.url },
          }),
        },
      });
      if (mode === 'scaled') otherGateway = await startGatewayProcess(spendgate.peer!);
      tenant = await signUpTeam(spendgate.url, 'routing@example.com');
      routed = await createKey({});
      resetFakes();
    });
    /** Only the forced usage stays set between tests. */
    const resetFakes = () => {
      for (const fake of [openaiAccount, anthropicAccount]) {
        for (const header of Object.keys(fake.controlHeaders)) delete fake.controlHeaders[header];
      }
      openaiAccount.controlHeaders['x-fake-usage'] = OPENAI_USAGE;
      anthropicAccount.controlHeaders['x-fake-usage'] = ANTHROPIC_USAGE;
    };
    afterEach(resetFakes);
    afterAll(async () => {
      await otherGateway?.stop();
      await spendgate?.close();
      await openaiAccount?.close();
      await anthropicAccount?.close();
    });

    it('lists `auto` and routes it by the plan’s default weights when the key sets none', async () => {
      const { data, response } = await client(routed.key).chat.completions.create({ model: 'auto', messages: HI }).withResponse();
      expect(routeOf(response)).toEqual(['gpt-5-nano', 'auto: cost 0.6 speed 0.2 accuracy 0.2 -> gpt-5-nano']);
      expect(data.model).toBe('gpt-5-nano');
      const models = await client(routed.key).models.list();
      expect(models.data.slice(0, 2).map((model) => [model.id, model.owned_by])).toEqual([
        ['auto', 'spendgate'],
        ['ada-v2', 'openai'],
      ]);
      expect(openaiAccount.requests.at(-1)!.body).toMatchObject({ model: 'gpt-5-nano' });
      expect(await eventOf(response)).toMatchObject({
        provider: 'openai',
        model: 'gpt-5-nano',
        route: 'auto: cost 0.6 speed 0.2 accuracy 0.2 -> gpt-5-nano',
        cost_micros: 130n,
      });
    });

    it('picks the cheapest model under a cost weight and the most accurate under an accuracy weight', async () => {
      const cheap = await weighted({ cost: 1, speed: 0, accuracy: 0 });
      const cheapAnswer = await client(cheap).chat.completions.create({ model: 'auto', messages: HI }).withResponse();
      expect(routeOf(cheapAnswer.response)).toEqual(['gpt-5-nano', 'auto: cost 1 speed 0 accuracy 0 -> gpt-5-nano']);
      expect(await eventOf(cheapAnswer.response)).toMatchObject({ model: 'gpt-5-nano', cost_micros: 130n });

      const accurate = await weighted({ cost: 0, speed: 0, accuracy: 5 });
      const before = anthropicAccount.requests.length;
      const { data, response } = await client(accurate).chat.completions.create({ model: 'auto', messages: HI }).withResponse();
      // Served by Anthropic, answered in OpenAI's format.
      expect(anthropicAccount.requests.length).toBe(before + 1);
      expect(anthropicAccount.requests.at(-1)!.body).toMatchObject({ model: 'claude-opus-4-5' });
      expect(data.choices[0]!.message.content).toBe('echo: Hi');
      expect(response.headers.get('x-spendgate-route')).toBe('auto: cost 0 speed 0 accuracy 1 -> claude-opus-4-5');
      expect(await eventOf(response)).toMatchObject({
        provider: 'anthropic',
        model: 'claude-opus-4-5-20251101',
        route: 'auto: cost 0 speed 0 accuracy 1 -> claude-opus-4-5',
        cost_micros: 10_000n,
      });
    });

    it('skips models that cannot serve the request: JSON mode, a long context', async () => {
      const accurate = await weighted({ cost: 0, speed: 0, accuracy: 1 });
      const json = await client(accurate)
        .chat.completions.create({ model: 'auto', messages: HI, response_format: { type: 'json_object' } })
        .withResponse();
      // Claude does not answer OpenAI's JSON mode: the most accurate model left is gpt-5.
      expect(routeOf(json.response)).toEqual(['gpt-5', 'auto: cost 0 speed 0 accuracy 1 -> gpt-5']);
      expect(await eventOf(json.response)).toMatchObject({ model: 'gpt-5', cost_micros: 3250n });

      const cheap = await weighted({ cost: 1, speed: 0, accuracy: 0 });
      // ~450 000 prompt tokens: beyond gpt-5-nano's 400k window; gpt-4.1's window is 1M.
      const longPrompt = [{ role: 'user' as const, content: 'hello '.repeat(450_000) }];
      const long = await client(cheap).chat.completions.create({ model: 'auto', messages: longPrompt }).withResponse();
      expect(routeOf(long.response)).toEqual(['gpt-4.1-nano', 'auto: cost 1 speed 0 accuracy 0 -> gpt-4.1-nano']);
      expect(await eventOf(long.response)).toMatchObject({ model: 'gpt-4.1-nano', cost_micros: 180n });

      const impossible = await client(cheap)
        .chat.completions.create({ model: 'auto', messages: HI, max_tokens: 500_000 })
        .catch((error: unknown) => error);
      expect(impossible).toMatchObject({ status: 400, error: { code: 'no_model_fits' } });
    });

    it('retries a provider that fails once and answers from the same model', async () => {
      const key = await setRouting({});
      Object.assign(openaiAccount.controlHeaders, { 'x-fake-status': '429', 'x-fake-status-times': '1' });
      const before = openaiAccount.requests.length;
      const { response } = await client(key).chat.completions.create({ model: 'gpt-4.1', messages: HI }).withResponse();
      expect(openaiAccount.requests.length).toBe(before + 2);
      expect(routeOf(response)).toEqual(['gpt-4.1', 'requested; retried after gpt-4.1 429']);
      expect(await eventOf(response)).toMatchObject({ model: 'gpt-4.1', route: 'requested; retried after gpt-4.1 429', status_code: 200, cost_micros: 3600n });
    });

    describe('failover and the circuit breaker', () => {
      let fallbackKey: string;

      it('retries a failing provider, then fails over to the key’s fallback; one usage event names it', async () => {
        fallbackKey = await setRouting({ fallbacks: ['claude-haiku-4-5'] });
        openaiAccount.controlHeaders['x-fake-status'] = '503';
        const before = openaiAccount.requests.length;
        const { data, response } = await client(fallbackKey).chat.completions.create({ model: 'gpt-4o', messages: HI }).withResponse();
        expect(openaiAccount.requests.length).toBe(before + 3); // the first try and 2 retries
        expect(anthropicAccount.requests.at(-1)!.body).toMatchObject({ model: 'claude-haiku-4-5' });
        expect(data.choices[0]!.message.content).toBe('echo: Hi');
        const route = 'requested; failover: gpt-4o 503 x3 -> claude-haiku-4-5';
        expect(routeOf(response)).toEqual(['claude-haiku-4-5-20251001', route]);
        const event = await eventOf(response);
        expect(event).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5-20251001', route, status_code: 200, cost_micros: 2000n });
        expect((await recordedEvents(spendgate, tenant.teamId, eventCount)).filter((row) => row.request_id === event!.request_id)).toHaveLength(1);
      });

      it('fails a stream over before its first byte, and opens the circuit at the 5th failure in a row', async () => {
        openaiAccount.controlHeaders['x-fake-status'] = '503';
        const before = openaiAccount.requests.length;
        const { data, response } = await client(fallbackKey)
          .chat.completions.create({ model: 'gpt-4o', messages: HI, stream: true, stream_options: { include_usage: true } })
          .withResponse();
        let text = '';
        for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
        expect(text).toBe('echo: Hi');
        // 2 more failures make 5: the circuit opens and the third try is not made.
        expect(openaiAccount.requests.length).toBe(before + 2);
        const route = 'requested; failover: gpt-4o 503 x2 -> claude-haiku-4-5';
        expect(routeOf(response)).toEqual(['claude-haiku-4-5', route]);
        expect(await eventOf(response)).toMatchObject({ model: 'claude-haiku-4-5-20251001', route, streamed: true, cost_micros: 2000n });
      });

      it('skips the open circuit while an alternative exists', async () => {
        delete openaiAccount.controlHeaders['x-fake-status']; // healthy again, but its circuit is open
        const before = openaiAccount.requests.length;
        const { response } = await client(fallbackKey).chat.completions.create({ model: 'gpt-4o', messages: HI }).withResponse();
        expect(openaiAccount.requests.length).toBe(before);
        const route = 'requested; failover: gpt-4o circuit open -> claude-haiku-4-5';
        expect(routeOf(response)).toEqual(['claude-haiku-4-5-20251001', route]);
        expect(await eventOf(response)).toMatchObject({ model: 'claude-haiku-4-5-20251001', route });
      });

      it.runIf(mode === 'scaled')('skips it on another gateway of the deployment too, which heard of it over Redis', async () => {
        const before = openaiAccount.requests.length;
        const { response } = await client(fallbackKey, otherGateway!.url).chat.completions.create({ model: 'gpt-4o', messages: HI }).withResponse();
        expect(openaiAccount.requests.length).toBe(before); // this gateway never saw gpt-4o fail
        const route = 'requested; failover: gpt-4o circuit open -> claude-haiku-4-5';
        expect(routeOf(response)).toEqual(['claude-haiku-4-5-20251001', route]);
        expect(await eventOf(response)).toMatchObject({ model: 'claude-haiku-4-5-20251001', route });
      });
    });

    it('answers the last provider error in the caller’s format when every attempt fails', async () => {
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-operator-openai', baseUrl: openaiAccount.url });
      openaiAccount.controlHeaders['x-fake-status'] = '500';
      const before = openaiAccount.requests.length;
      const error = (await client(key)
        .chat.completions.create({ model: 'gpt-4o-mini', messages: HI })
        .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(openaiAccount.requests.length).toBe(before + 3); // BYOK: retries on its own connection only
      expect(error).toMatchObject({ status: 500, type: 'server_error' });
      const route = 'requested; failed: gpt-4o-mini 500 x3';
      const headers = error.headers!;
      expect([headers.get('x-spendgate-model'), headers.get('x-spendgate-route')]).toEqual(['gpt-4o-mini', route]);
      expect(await eventOf({ headers } as Response)).toMatchObject({ model: 'gpt-4o-mini', route, status_code: 500, cost_micros: 0n });
    });

    it('answers 502 in the caller’s format, naming the route, when the provider cannot be reached', async () => {
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-x', baseUrl: 'http://127.0.0.1:9/v1' });
      const error = (await client(key)
        .chat.completions.create({ model: 'gpt-4o-mini', messages: HI })
        .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
      expect(error).toMatchObject({ status: 502, code: 'upstream_unavailable' });
      const route = 'requested; failed: gpt-4o-mini unreachable x3';
      const headers = error.headers!;
      expect([headers.get('x-spendgate-model'), headers.get('x-spendgate-route')]).toEqual(['gpt-4o-mini', route]);
      expect(await eventOf({ headers } as Response)).toMatchObject({ model: 'gpt-4o-mini', route, status_code: 502 });
    });

    it('sends requests to the cheaper sibling once a downgrade budget is spent, for optimised and BYOK keys', async () => {
      const optimised = await createKey({});
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', name: 'own account', apiKey: 'sk-operator-openai', baseUrl: openaiAccount.url },
      });
      const byok = await createKey({ kind: 'byok', connectionId: connection.body.data.newConnection.id });
      for (const scopeId of [optimised.id, byok.id]) {
        const budget = await callApi(spendgate.url, 'POST', '/budgets', {
          token: tenant.token,
          body: { scope: 'key', scopeId, amount: '0.000001', window: 'month', mode: 'downgrade' },
        });
        expect(budget.status, JSON.stringify(budget.body)).toBe(201);
      }

      const first = await client(optimised.key).chat.completions.create({ model: 'claude-sonnet-4-5', messages: HI }).withResponse();
      expect(routeOf(first.response)).toEqual(['claude-sonnet-4-5-20250929', 'requested']);
      expect(await eventOf(first.response)).toMatchObject({ model: 'claude-sonnet-4-5-20250929', cost_micros: 6000n });
      const second = await client(optimised.key).chat.completions.create({ model: 'claude-sonnet-4-5', messages: HI }).withResponse();
      const [model, route] = routeOf(second.response);
      expect(model).toBe('claude-haiku-4-5-20251001');
      expect(route).toMatch(/^requested; downgrade \(budget [0-9a-f-]+ spent\): claude-sonnet-4-5 -> claude-haiku-4-5$/);
      expect(await eventOf(second.response)).toMatchObject({ model: 'claude-haiku-4-5-20251001', route, cost_micros: 2000n });

      await client(byok.key).chat.completions.create({ model: 'gpt-4o', messages: HI });
      eventCount += 1;
      const downgraded = await client(byok.key).chat.completions.create({ model: 'gpt-4o', messages: HI }).withResponse();
      expect(openaiAccount.requests.at(-1)!.headers.authorization).toBe('Bearer sk-operator-openai');
      expect(routeOf(downgraded.response)[0]).toBe('gpt-4o-mini-2024-07-18');
      expect(await eventOf(downgraded.response)).toMatchObject({ model: 'gpt-4o-mini-2024-07-18', cost_micros: 270n });
    });
  });
}
