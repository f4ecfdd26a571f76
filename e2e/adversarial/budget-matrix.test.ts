/**
 * Budgets an attacker cannot outrun. Every /v1 surface × a priced, an unpriced and a
 * fine-tuned (or dated) model × streamed or not × with or without an output limit, each
 * cell on a key of its own under a hard cap, hit by concurrent requests whose answers are
 * as long as the provider may make them (the fakes echo every word of the prompt, cut
 * only by the output limit sent): the key's recorded spend never passes its cap by more
 * than one request, and a model without a price is refused before any provider sees it.
 * Then a burst of 120 concurrent requests against a group cap uses nearly all of it.
 */
import Anthropic from '@anthropic-ai/sdk';
import { listUsageEvents } from '@spendgate/store';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic-provider.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';

type Surface = 'chat' | 'responses' | 'embeddings' | 'messages' | 'count_tokens';
type ModelKind = 'priced' | 'unpriced' | 'variant';

const MODELS: Record<'openai' | 'embeddings' | 'anthropic', Record<ModelKind, string>> = {
  openai: { priced: 'gpt-4o-mini', unpriced: 'my-own-model', variant: 'ft:gpt-4o-mini-2024-07-18:acme:support:9xYzAbCd' },
  embeddings: { priced: 'text-embedding-3-small', unpriced: 'my-own-embedder', variant: 'text-embedding-3-small' },
  anthropic: { priced: 'claude-haiku-4-5', unpriced: 'my-own-claude', variant: 'claude-haiku-4-5-20251001' },
};
const SURFACES: readonly { surface: Surface; streams: boolean; limits: boolean; provider: 'openai' | 'anthropic' }[] = [
  { surface: 'chat', streams: true, limits: true, provider: 'openai' },
  { surface: 'responses', streams: true, limits: true, provider: 'openai' },
  { surface: 'embeddings', streams: false, limits: false, provider: 'openai' },
  { surface: 'messages', streams: true, limits: true, provider: 'anthropic' },
  { surface: 'count_tokens', streams: false, limits: false, provider: 'anthropic' },
];
/** Each cell's cap, in GBP micros: a few requests' worth (Claude Haiku's $1 / $5 per M cost more than gpt-4o-mini's). */
const CAP_MICROS = { openai: 3_000n, anthropic: 20_000n };
const CONCURRENT = 6;
/** A prompt of 6,000 words: echoed back, the answer is 6,000 tokens (more than the 4,096 once assumed) unless a limit cuts it. */
const LONG_PROMPT = 'time '.repeat(6_000);

for (const mode of testModes) {
  describe(`budgets under attack (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let openaiFake: FakeOpenAI;
    let anthropicFake: FakeAnthropic;
    let tenant: Tenant;
    const connections: Record<'openai' | 'anthropic', string> = { openai: '', anthropic: '' };

    beforeAll(async () => {
      [openaiFake, anthropicFake] = await Promise.all([startFakeOpenAI(), startFakeAnthropic()]);
      spendgate = await startSpendgate(mode, 'budget-matrix');
      tenant = await signUpTeam(spendgate.url, 'budget-matrix@example.com');
      for (const [provider, fake] of [['openai', openaiFake], ['anthropic', anthropicFake]] as const) {
        const created = await callApi(spendgate.url, 'POST', '/provider/connections', {
          token: tenant.token,
          body: { teamId: tenant.teamId, provider, name: provider, apiKey: provider === 'openai' ? 'sk-fake-upstream' : 'sk-ant-fake-upstream', baseUrl: fake.url },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        connections[provider] = created.body.data.newConnection.id;
      }
    }, 60_000);
    afterAll(async () => {
      await spendgate?.close();
      await Promise.all([openaiFake?.close(), anthropicFake?.close()]);
    });

    /** A BYOK key under a hard cap of its own. */
    async function cappedKey(provider: 'openai' | 'anthropic', name: string, amount = `0.${CAP_MICROS[provider].toString().padStart(6, '0')}`) {
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, {
        token: tenant.token,
        body: { name, kind: 'byok', connectionId: connections[provider] },
      });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const budget = await callApi(spendgate.url, 'POST', '/budgets', {
        token: tenant.token,
        body: { scope: 'key', scopeId: key.body.data.providerKey.id, amount, window: 'total', mode: 'hard' },
      });
      expect(budget.status).toBe(201);
      return { id: key.body.data.providerKey.id as string, secret: key.body.data.key as string };
    }

    /** One request on a surface; resolves to its HTTP status (the SDK's error status when refused). */
    function send(secret: string, surface: Surface, model: string, stream: boolean, limit: number | undefined): Promise<number> {
      const openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: secret, maxRetries: 0 });
      const anthropic = new Anthropic({ baseURL: spendgate.url, apiKey: secret, maxRetries: 0 });
      const messages = [{ role: 'user' as const, content: LONG_PROMPT }];
      const drain = async (events: AsyncIterable<unknown>) => {
        for await (const _ of events);
        return 200;
      };
      const call = async (): Promise<number> => {
        switch (surface) {
          case 'chat': {
            const body = { model, messages, ...(limit ? { max_tokens: limit } : {}) };
            if (stream) return drain(await openai.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }));
            await openai.chat.completions.create(body);
            return 200;
          }
          case 'responses': {
            const body = { model, input: LONG_PROMPT, ...(limit ? { max_output_tokens: limit } : {}) };
            if (stream) return drain(await openai.responses.create({ ...body, stream: true }));
            await openai.responses.create(body);
            return 200;
          }
          case 'embeddings':
            await openai.embeddings.create({ model, input: LONG_PROMPT });
            return 200;
          case 'messages': {
            // Anthropic's API requires max_tokens: a body without it must be refused, never sent unbounded.
            const body = { model, messages, ...(limit ? { max_tokens: limit } : {}) } as Anthropic.MessageCreateParamsNonStreaming;
            if (stream) return drain(await anthropic.messages.create({ ...body, stream: true }));
            await anthropic.messages.create(body);
            return 200;
          }
          case 'count_tokens':
            await anthropic.messages.countTokens({ model, messages });
            return 200;
        }
      };
      return call().catch((error: unknown) => {
        if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) return error.status ?? 0;
        throw error;
      });
    }

    const cells = SURFACES.flatMap(({ surface, streams, limits, provider }) =>
      (['priced', 'unpriced', 'variant'] as const).flatMap((kind) =>
        (streams ? [false, true] : [false]).flatMap((stream) =>
          (limits ? [undefined, 300] : [undefined]).map((limit) => ({
            surface,
            provider,
            kind,
            stream,
            limit,
            model: MODELS[surface === 'embeddings' ? 'embeddings' : provider][kind],
          })),
        ),
      ),
    );

    it(`holds every cap: ${cells.length} cells × ${CONCURRENT} concurrent requests`, async () => {
      let requests = 0;
      let capped = 0;
      for (const cell of cells) {
        const name = `${cell.surface} ${cell.kind}${cell.stream ? ' stream' : ''}${cell.limit ? ` max ${cell.limit}` : ''}`;
        const key = await cappedKey(cell.provider, name);
        const fake = cell.provider === 'openai' ? openaiFake : anthropicFake;
        const providerRequestsBefore = fake.requests.length;
        const statuses = await Promise.all(Array.from({ length: CONCURRENT }, () => send(key.secret, cell.surface, cell.model, cell.stream, cell.limit)));
        requests += statuses.length;
        await usageWritten(spendgate);
        const events = (await listUsageEvents(spendgate.app.runtime.stores.sql.db, tenant.teamId)).filter((event) => event.key_id === key.id);
        const spends = events.map((event) => BigInt(event.budget_spend_micros ?? 0n));
        const spent = spends.reduce((sum, one) => sum + one, 0n);
        const oneRequest = spends.reduce((most, one) => (one > most ? one : most), 0n);

        if (cell.surface === 'messages' && cell.limit === undefined) {
          expect(statuses, name).toEqual(Array(CONCURRENT).fill(400));
          expect(fake.requests.length, `${name}: reached the provider`).toBe(providerRequestsBefore);
          continue;
        }
        if (cell.kind === 'unpriced') {
          expect(statuses, name).toEqual(Array(CONCURRENT).fill(402));
          expect(fake.requests.length, `${name}: reached the provider`).toBe(providerRequestsBefore);
          continue;
        }
        expect(statuses.filter((status) => status !== 200 && status !== 402), name).toEqual([]);
        expect(statuses, `${name}: nothing admitted`).toContain(200);
        // Every request answered is recorded once.
        expect(events.length, name).toBe(statuses.filter((status) => status === 200).length);
        const cap = CAP_MICROS[cell.provider];
        expect(spent, `${name}: spent ${spent} of ${cap}, one request ${oneRequest}`).toBeLessThanOrEqual(cap + oneRequest);
        const sentLimits = fake.requests.slice(providerRequestsBefore).map(({ body }) => outputLimitOf(body));
        if (cell.surface === 'chat' || cell.surface === 'responses' || cell.surface === 'messages') {
          // Every request the provider saw carried an output limit no larger than asked.
          expect(sentLimits.every((sent) => sent !== undefined && sent <= (cell.limit ?? Number.POSITIVE_INFINITY)), `${name}: ${sentLimits}`).toBe(true);
          capped += sentLimits.filter((sent) => sent !== undefined && sent < (cell.limit ?? 16_384)).length;
        }
      }
      console.log(`budget matrix (${mode}): ${cells.length} cells, ${requests} requests, ${capped} sent with a lowered output limit`);
      expect(capped).toBeGreaterThan(0);
    }, 180_000);

    it('sends a lowered output limit and says so when the cap cannot cover the asked one', async () => {
      const key = await cappedKey('openai', 'lowered');
      const openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key.secret, maxRetries: 0 });
      const before = openaiFake.requests.length;
      // 100,000 output tokens of gpt-4o-mini ($0.60/M) = $0.06 = £0.045, far above the £0.003 cap.
      const { response } = await openai.chat.completions
        .create({ model: 'gpt-4o-mini', max_completion_tokens: 100_000, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      const cap = response.headers.get('x-spendgate-output-cap');
      expect(cap).toMatch(/^\d+; reason=budget$/);
      const tokens = Number(cap!.split(';')[0]);
      // £0.003 = 4,000 micro-USD. The prompt's 9 counted tokens cost 1.35 at $0.15/M, and 6,665 output
      // tokens at $0.60/M 3,999: 4,000.35 micro-USD, which rounds to the 4,000 left (6,666 would not).
      expect(tokens).toBe(6_665);
      expect((openaiFake.requests[before]!.body as { max_completion_tokens: number }).max_completion_tokens).toBe(tokens);
    });

    it('sends a model whose maximum output is unknown the assumed limit under a hard budget', async () => {
      const overrides = await callApi(spendgate.url, 'PUT', '/pricing/overrides', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', model: 'house-model', inputPerMTok: '1', outputPerMTok: '2' },
      });
      expect(overrides.status, JSON.stringify(overrides.body)).toBeLessThan(300);
      const key = await cappedKey('openai', 'house', '10');
      const openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key.secret, maxRetries: 0 });
      const before = openaiFake.requests.length;
      const { response } = await openai.chat.completions.create({ model: 'house-model', messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
      expect(response.headers.get('x-spendgate-output-cap')).toBe('4096; reason=model-limit-unknown');
      expect((openaiFake.requests[before]!.body as { max_completion_tokens: number }).max_completion_tokens).toBe(4096);
    });

    it('uses nearly all of a group cap under a burst of 120 concurrent requests', async () => {
      const burst = await signUpTeam(spendgate.url, 'budget-burst@example.com');
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: burst.token,
        body: { teamId: burst.teamId, provider: 'openai', name: 'openai', apiKey: 'sk-fake-upstream', baseUrl: openaiFake.url },
      });
      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${burst.groupId}`, {
        token: burst.token,
        body: { name: 'burst', kind: 'byok', connectionId: connection.body.data.newConnection.id },
      });
      const budget = await callApi(spendgate.url, 'POST', '/budgets', {
        token: burst.token,
        body: { scope: 'group', scopeId: burst.groupId, amount: '0.01', window: 'total', mode: 'hard' },
      });
      expect(budget.status).toBe(201);
      const openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key.body.data.key, maxRetries: 0 });
      // Streams of 20 ms between words keep every admitted request in flight while the burst arrives.
      openaiFake.controlHeaders['x-fake-stream-interval-ms'] = '20';
      // A 10 KB prompt of 2,503 tokens (as the fake counts) and a 20-word answer: (2,503 × $0.15 + 20 × $0.60) / 1M
      // = £0.000291, so ~34 fit in £0.01. Reserved on the prompt's 10 KB byte bound, only 8–9 would.
      const prompt = 'time '.repeat(2_000);
      const statuses = await Promise.all(
        Array.from({ length: 120 }, () =>
          openai.chat.completions
            .create({ model: 'gpt-4o-mini', max_tokens: 20, messages: [{ role: 'user', content: prompt }], stream: true, stream_options: { include_usage: true } })
            .then(async (stream) => {
              for await (const _ of stream);
              return 200;
            })
            .catch((error: InstanceType<typeof OpenAI.APIError>) => error.status),
        ),
      );
      delete openaiFake.controlHeaders['x-fake-stream-interval-ms'];
      await usageWritten(spendgate);
      const events = await listUsageEvents(spendgate.app.runtime.stores.sql.db, burst.teamId);
      const spent = events.reduce((sum, event) => sum + BigInt(event.budget_spend_micros ?? 0n), 0n);
      const oneRequest = BigInt(events[0]!.budget_spend_micros ?? 0n);
      const admitted = statuses.filter((status) => status === 200).length;
      const share = Number(spent) / 10_000;
      const overshoot = Number(spent - 10_000n) / Number(oneRequest);
      console.log(`burst (${mode}): ${admitted} of 120 admitted, ${(share * 100).toFixed(1)} % of the cap used, overshoot ${overshoot.toFixed(2)} requests`);
      expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);
      expect(events.length).toBe(admitted);
      expect(share).toBeGreaterThanOrEqual(0.9);
      expect(spent).toBeLessThanOrEqual(10_000n + oneRequest);
    }, 60_000);
  });
}

/** The output limit a provider body carried: OpenAI chat or Responses, or Anthropic. */
function outputLimitOf(body: unknown): number | undefined {
  const { max_tokens, max_completion_tokens, max_output_tokens } = (body ?? {}) as Record<string, number | undefined>;
  return max_completion_tokens ?? max_tokens ?? max_output_tokens;
}
