/**
 * The walking skeleton end to end, in every run mode under test: an account, a team,
 * an OpenAI connection (pointing at the local fake), a synthetic group and a BYOK key;
 * then the real `openai` SDK calls the gateway — plain, streamed without and with
 * usage — and the group's usage shows each request once, priced by hand.
 *
 * Hand-computed cost: the fake reports 14 prompt and 4 completion tokens for MESSAGES
 * (31 characters → ceil(31/4) = 8, + 3 per message × 2 = 14; reply "echo: Hello there
 * world" = 4 words) and answers as gpt-4o-2024-08-06, priced as gpt-4o on 2026-08-21:
 * $2.50 / $10.00 per million tokens → 14 × 2.5 + 4 × 10 = 35 + 40 = 75 micro-USD.
 */
import { microsToDecimalString, roundHalfUpDiv } from '@spendgate/core';
import { listUsageEvents } from '@spendgate/store';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from './fakes/openai-provider.ts';
import { confirmEmail } from './support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from './support/spendgate.ts';

const MESSAGES = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Hello there world' },
];
const COST_PER_REQUEST_MICROS = 75n;
const TOKENS_PER_REQUEST = 18;

for (const mode of testModes) {
  describe(`walking skeleton (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let token: string;
    let teamId: string;
    let groupId: string;
    let connectionId: string;
    let issuedKey: string;
    let client: OpenAI;
    const today = new Date().toISOString().slice(0, 10);

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, 'walking-skeleton');
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    it('serves health and readiness', async () => {
      expect(await (await fetch(`${spendgate.url}/healthz`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${spendgate.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', mode });
    });

    it('registers, signs in and sets up a team, connection, group and key', async () => {
      const registered = await callApi(spendgate.url, 'POST', '/auth/register', {
        body: { email: 'Ada@Example.com', password: 'correct horse battery', name: 'Ada' },
      });
      expect(registered.status).toBe(201);
      expect(registered.body.data.user.email).toBe('ada@example.com');
      await confirmEmail(spendgate.url, 'ada@example.com', registered.body.data.token);

      const login = await callApi(spendgate.url, 'POST', '/auth/login', {
        body: { email: 'ada@example.com', password: 'correct horse battery' },
      });
      expect(login.status).toBe(200);
      expect(login.body.success).toBe(true);
      token = login.body.data.token;

      const team = await callApi(spendgate.url, 'POST', '/team/', { token, body: { name: 'Research', description: 'R&D' } });
      expect(team.status).toBe(201);
      teamId = team.body.data.id;

      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token,
        body: { teamId, provider: 'openai', name: 'Fake OpenAI', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
      });
      expect(connection.status).toBe(201);
      connectionId = connection.body.data.newConnection.id;
      expect(JSON.stringify(connection.body)).not.toContain('sk-fake-upstream');
      expect(connection.body.data.newConnection.apiKeyTail).toBe('••••ream');

      const group = await callApi(spendgate.url, 'POST', '/synthetic-group', {
        token,
        body: { name: 'Chatbot', description: 'Support bot', teamId },
      });
      expect(group.status).toBe(201);
      groupId = group.body.data.id;

      const key = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${groupId}`, {
        token,
        body: { name: 'prod', kind: 'byok', connectionId },
      });
      expect(key.status).toBe(201);
      issuedKey = key.body.data.key;
      expect(issuedKey).toMatch(/^sg_live_[0-9A-Za-z]{49}$/);
      expect(key.body.data.providerKey.prefix).toBe(issuedKey.slice(0, 14));

      client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: issuedKey, maxRetries: 0 });
    });

    it('proxies a chat completion and prices it', async () => {
      const { data, response } = await client.chat.completions
        .create({ model: 'gpt-4o', messages: MESSAGES })
        .withResponse();
      expect(data.choices[0]?.message.content).toBe('echo: Hello there world');
      expect(data.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 4 });
      expect(response.headers.get('x-spendgate-cost')).toBe('0.000075');
      expect(response.headers.get('x-spendgate-model')).toBe('gpt-4o-2024-08-06');
      expect(response.headers.get('x-spendgate-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers.get('x-spendgate-budget-remaining')).toBe('unlimited');
      const upstream = fake.requests.at(-1)!;
      expect(upstream.headers.authorization).toBe('Bearer sk-fake-upstream');
    });

    it('streams chunk by chunk and hides the usage chunk it added', async () => {
      const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES, stream: true });
      let text = '';
      let usageChunks = 0;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usageChunks++;
      }
      expect(text).toBe('echo: Hello there world');
      expect(usageChunks).toBe(0);
      expect((fake.requests.at(-1)!.body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    });

    it('passes the usage chunk to a caller who asked for it', async () => {
      const stream = await client.chat.completions.create({
        model: 'gpt-4o',
        messages: MESSAGES,
        stream: true,
        stream_options: { include_usage: true },
      });
      const usages = [];
      for await (const chunk of stream) if (chunk.usage) usages.push(chunk.usage);
      expect(usages).toEqual([expect.objectContaining({ prompt_tokens: 14, completion_tokens: 4, total_tokens: 18 })]);
    });

    it('records each request exactly once with its hand-computed cost', async () => {
      await usageWritten(spendgate);
      const usage = await callApi(
        spendgate.url,
        'GET',
        `/usage/group?groupId=${groupId}&startDate=${today}&endDate=${today}`,
        { token },
      );
      expect(usage.status).toBe(200);
      const events = await listUsageEvents(spendgate.app.runtime.stores.sql.db, teamId);
      expect(events).toHaveLength(3);
      expect(new Set(events.map((e) => e.request_id)).size).toBe(3);
      expect(events.map((e) => [e.model, e.streamed, e.cost_micros, e.price_version])).toEqual([
        ['gpt-4o-2024-08-06', false, 75n, '2026-08-21'],
        ['gpt-4o-2024-08-06', true, 75n, '2026-08-21'],
        ['gpt-4o-2024-08-06', true, 75n, '2026-08-21'],
      ]);
      // The team's GBP: each request's list price at the FX rate the meter recorded for it (a BYOK key pays list price).
      const gbpMicros = events.reduce((sum, e) => sum + roundHalfUpDiv(COST_PER_REQUEST_MICROS * BigInt(e.fx_rate_ppm!), 1_000_000n), 0n);
      expect(usage.body.data).toMatchObject({
        requests: 3,
        totalTokens: 3 * TOKENS_PER_REQUEST,
        currency: 'GBP',
        totalCost: microsToDecimalString(gbpMicros),
        totalCostMicros: gbpMicros.toString(),
        totalCostUsd: '0.000225',
        totalCostUsdMicros: String(3n * COST_PER_REQUEST_MICROS),
        estimatedRequests: 0,
        unpricedRequests: 0,
      });
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const otherDay = await callApi(spendgate.url, 'GET', `/usage/group?groupId=${groupId}&startDate=${yesterday}&endDate=${yesterday}`, { token });
      expect(otherDay.body.data).toMatchObject({ requests: 0, totalTokens: 0, totalCost: '0.000000', totalCostUsd: '0.000000' });
      // Beyond the plan's look-back: a 403 that names it.
      const longAgo = await callApi(spendgate.url, 'GET', `/usage/group?groupId=${groupId}&startDate=2020-01-01&endDate=2020-01-31`, { token });
      expect(longAgo.status).toBe(403);
      expect(longAgo.body.message).toContain('plan shows usage of the last');
    });

    it('bills a stream the provider cuts short by estimate, once, and cuts it for the caller too', async () => {
      fake.controlHeaders['x-fake-stream-error-after'] = '2';
      try {
        const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES, stream: true });
        let text = '';
        await expect(
          (async () => {
            for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
          })(),
        ).rejects.toThrow();
        expect(text).toBe('echo: Hello');
      } finally {
        delete fake.controlHeaders['x-fake-stream-error-after'];
      }
      // The caller's stream breaks before the gateway records the request: wait for it.
      const db = spendgate.app.runtime.stores.sql.db;
      await expect.poll(async () => (await listUsageEvents(db, teamId)).length, { timeout: 10_000 }).toBe(4);
      await usageWritten(spendgate);
      const events = await listUsageEvents(db, teamId);
      expect(events).toHaveLength(4);
      // Estimated: prompt by tiktoken (3 + (3 + 4) + (3 + 3) = 16 for MESSAGES), output
      // "echo: Hello" = 3 tokens → 16 × 2.5 + 3 × 10 = 70 micro-USD, priced at the requested model.
      expect(events[3]).toMatchObject({
        streamed: true,
        estimated: true,
        status_code: 502,
        input_tokens: 16n,
        output_tokens: 3n,
        cost_micros: 70n,
      });
    });

    it('refuses calls without a valid key in OpenAI’s error shape', async () => {
      const stranger = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: 'sg_live_nope', maxRetries: 0 });
      await expect(stranger.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES })).rejects.toBeInstanceOf(
        OpenAI.AuthenticationError,
      );
      const response = await fetch(`${spendgate.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': issuedKey },
        body: JSON.stringify({ model: 'gpt-4o' }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { param: 'messages', type: 'invalid_request_error' } });
    });

    it.each([
      ['/auth/register', { password: 'long enough', name: 'x' }, 'email'],
      ['/auth/register', { email: 'not-an-email', password: 'long enough', name: 'x' }, 'email'],
      ['/auth/register', { email: 'b@example.com', password: 'short', name: 'x' }, 'password'],
      ['/auth/login', { email: 'b@example.com' }, 'password'],
    ])('answers 400 naming the field for POST %s %j', async (route, body, field) => {
      const result = await callApi(spendgate.url, 'POST', route, { body });
      expect(result.status).toBe(400);
      expect(result.body).toMatchObject({ success: false, field });
      expect(result.body.message).toContain(field);
    });

    it('answers 400 naming the field on every signed-in endpoint', async () => {
      const cases: [string, string, unknown, string][] = [
        ['POST', '/team/', { description: 'no name' }, 'name'],
        ['POST', '/provider/connections', { teamId, provider: 'openai', name: 'x', apiKey: 'k', baseUrl: 'nope' }, 'baseUrl'],
        ['POST', '/provider/connections', { teamId, provider: 'no-such', name: 'x', apiKey: 'k' }, 'provider'],
        ['POST', '/provider/connections', { teamId, provider: 'openai', name: 'x', apiKey: 'k', baseUrl: 'http://10.0.0.1/v1' }, 'baseUrl'],
        ['POST', '/synthetic-group', { name: 'g', teamId: 'not-a-uuid' }, 'teamId'],
        ['POST', `/synthetic-group/provider-key/create/${groupId}`, { name: 'k', kind: 'byok' }, 'connectionId'],
        ['POST', `/synthetic-group/provider-key/create/${groupId}`, { name: 'k', kind: 'gold' }, 'kind'],
        ['POST', '/synthetic-group/provider-key/create/xyz', { name: 'k', kind: 'byok', connectionId }, 'groupId'],
      ];
      for (const [method, route, body, field] of cases) {
        const result = await callApi(spendgate.url, method, route, { token, body });
        expect([route, result.status, result.body.field]).toEqual([route, 400, field]);
        expect(result.body.message).toContain(field);
      }
      const usage = await callApi(spendgate.url, 'GET', `/usage/group?groupId=${groupId}&startDate=2026-13-01&endDate=${today}`, { token });
      expect([usage.status, usage.body.field]).toEqual([400, 'startDate']);
      const malformed = await callApi(spendgate.url, 'POST', '/team/', { token, body: '{"name":' });
      expect([malformed.status, malformed.body.field]).toEqual([400, 'body']);
    });

    it('keeps tenants apart and needs a session', async () => {
      const unauthenticated = await callApi(spendgate.url, 'POST', '/team/', { body: { name: 'x' } });
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.body.message).toBe('Session expired. Please login again.');

      const other = await callApi(spendgate.url, 'POST', '/auth/register', {
        body: { email: 'eve@example.com', password: 'another long one', name: 'Eve' },
      });
      const eve = await confirmEmail(spendgate.url, 'eve@example.com', other.body.data.token);
      const peek = await callApi(spendgate.url, 'GET', `/usage/group?groupId=${groupId}&startDate=${today}&endDate=${today}`, { token: eve });
      expect(peek.status).toBe(404);
      const steal = await callApi(spendgate.url, 'POST', `/synthetic-group/provider-key/create/${groupId}`, {
        token: eve,
        body: { name: 'k', kind: 'byok', connectionId },
      });
      expect(steal.status).toBe(404);
      const duplicate = await callApi(spendgate.url, 'POST', '/auth/register', {
        body: { email: 'EVE@example.com', password: 'another long one', name: 'Eve' },
      });
      expect(duplicate.status).toBe(409);
    });
  });
}
