/**
 * The control-plane reads the console's AI Connections and onboarding screens rely on,
 * in every run mode: what each provider needs (API key required or not, Azure's API
 * version option), testing a keyless self-hosted endpoint before it is saved, each
 * listed connection's requests and cost this month, and a team's overview (setup
 * counts, first request, this month in total and per day) before and after real
 * requests through the gateway to the local fake OpenAI.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueByokKey, recordedEvents, signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

for (const mode of testModes) {
  describe(`the console's connection and overview reads (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let keyless: Server;
    let keylessUrl: string;
    const keylessAuth: (string | undefined)[] = [];

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      // A self-hosted model server that takes no key: it lists its models to anyone.
      keyless = createServer((request, response) => {
        keylessAuth.push(request.headers.authorization);
        response.writeHead(request.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [{ id: 'llama3', object: 'model', created: 0, owned_by: 'me' }] }));
      });
      await new Promise<void>((resolve) => keyless.listen(0, '127.0.0.1', resolve));
      keylessUrl = `http://127.0.0.1:${(keyless.address() as AddressInfo).port}/v1`;
      spendgate = await startSpendgate(mode, 'api-console-reads');
    });

    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
      await new Promise((resolve) => keyless?.close(resolve));
    });

    it('says what a connection to each provider needs', async () => {
      const tenant = await signUpTeam(spendgate.url, 'providers@example.com');
      const answer = await callApi(spendgate.url, 'GET', '/provider', { token: tenant.token });
      expect(answer.status).toBe(200);
      type Listed = { id: string; optionFields: { help: string }[] };
      const byId = new Map((answer.body.data as Listed[]).map((provider) => [provider.id, provider]));
      expect(byId.get('azure-openai')).toMatchObject({
        authFields: [{ name: 'apiKey', required: true }],
        baseUrl: { default: null, required: true },
        optionFields: [{ name: 'apiVersion', label: 'API version', placeholder: '2024-10-21' }],
      });
      expect(byId.get('azure-openai')!.optionFields[0]!.help).toContain('deployment');
      expect(byId.get('openai-compatible')).toMatchObject({ authFields: [{ name: 'apiKey', required: false }], baseUrl: { required: true }, optionFields: [] });
      expect(byId.get('openai')).toMatchObject({ authFields: [{ required: true }], baseUrl: { default: 'https://api.openai.com/v1', required: false }, optionFields: [] });
    });

    it('tests a keyless self-hosted endpoint before it is saved; other providers still need a key', async () => {
      const tenant = await signUpTeam(spendgate.url, 'keyless@example.com');
      const tested = await callApi(spendgate.url, 'POST', '/provider/test/connection', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai-compatible', baseUrl: keylessUrl },
      });
      expect(tested.status, JSON.stringify(tested.body)).toBe(200);
      expect(tested.body.data).toMatchObject({ ok: true, provider: 'openai-compatible', baseUrl: keylessUrl });
      expect(keylessAuth.length).toBeGreaterThan(0);
      const keyNeeded = await callApi(spendgate.url, 'POST', '/provider/test/connection', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', baseUrl: fake.url },
      });
      expect([keyNeeded.status, keyNeeded.body.field]).toEqual([400, 'apiKey']);
    });

    it("lists each connection with this month's requests and cost, and the overview follows the team's setup", async () => {
      const tenant: Tenant = await signUpTeam(spendgate.url, 'overview@example.com');
      const overview = () => callApi(spendgate.url, 'GET', `/usage/team?teamId=${tenant.teamId}`, { token: tenant.token });
      const today = isoDay(new Date());
      const monthStart = `${today.slice(0, 7)}-01`;

      const before = await overview();
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      expect(before.body.data.setup).toEqual({ connections: 0, groups: 1, keys: 0, firstRequestAt: null });
      expect(before.body.data.thisMonth).toMatchObject({ startDate: monthStart, endDate: today, requests: 0, totalCostMicros: '0' });
      expect(before.body.data.daily).toHaveLength(Number(today.slice(8, 10)));
      expect(before.body.data.daily[0]).toEqual({ date: monthStart, requests: 0, totalCostMicros: '0' });

      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      for (const text of ['hello there', 'a second request']) {
        const sent = await fetch(`${spendgate.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: text }] }),
        });
        expect(sent.status).toBe(200);
      }
      const events = await recordedEvents(spendgate, tenant.teamId, 2);
      const costMicros = events.reduce((sum, event) => sum + BigInt(event.cost_micros ?? 0), 0n);
      expect(costMicros).toBeGreaterThan(0n);

      // A second connection, unused: its month is zero, the first's unchanged.
      const idle = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', name: 'Idle', apiKey: 'sk-idle', baseUrl: fake.url },
      });
      expect(idle.status).toBe(201);
      const listed = await callApi(spendgate.url, 'GET', '/provider/connections', { token: tenant.token });
      expect(listed.status).toBe(200);
      const months = Object.fromEntries((listed.body.data as { name: string; thisMonth: unknown }[]).map((connection) => [connection.name, connection.thisMonth]));
      expect(months).toEqual({
        'openai test': { startDate: monthStart, requests: 2, currency: 'USD', totalCostMicros: costMicros.toString() },
        Idle: { startDate: monthStart, requests: 0, currency: 'USD', totalCostMicros: '0' },
      });

      const after = (await overview()).body.data;
      expect(after.setup).toMatchObject({ connections: 2, groups: 1, keys: 1 });
      expect(Date.parse(after.setup.firstRequestAt)).toBeLessThanOrEqual(Date.now());
      expect(after.thisMonth).toMatchObject({ requests: 2, totalCostMicros: costMicros.toString() });
      expect(after.daily.at(-1)).toEqual({ date: today, requests: 2, totalCostMicros: costMicros.toString() });
      expect(after.daily.reduce((sum: number, day: { requests: number }) => sum + day.requests, 0)).toBe(2);
    });

    it("keeps a team's overview to its members and names a missing or wrong teamId", async () => {
      const owner = await signUpTeam(spendgate.url, 'owner@example.com');
      const outsider = await signUpTeam(spendgate.url, 'outsider@example.com');
      expect((await callApi(spendgate.url, 'GET', `/usage/team?teamId=${owner.teamId}`, { token: outsider.token })).status).toBe(404);
      const missing = await callApi(spendgate.url, 'GET', '/usage/team', { token: owner.token });
      expect([missing.status, missing.body.field]).toEqual([400, 'teamId']);
      const wrong = await callApi(spendgate.url, 'GET', '/usage/team?teamId=nope', { token: owner.token });
      expect([wrong.status, wrong.body.field]).toEqual([400, 'teamId']);
      expect((await callApi(spendgate.url, 'GET', `/usage/team?teamId=${owner.teamId}`)).status).toBe(401);
    });
  });
}
