/**
 * The control-plane reads the console's AI Connections and onboarding screens rely on,
 * in every run mode: what each provider needs (API key required or not, Azure's API
 * version option), testing a keyless self-hosted endpoint before it is saved, each
 * listed connection's usage this month and over a range, and a team's overview (setup
 * counts, first request, this month in total and per day) before and after real
 * requests through the gateway to the local fake OpenAI. The amounts come from the
 * rollups and must equal what the meter recorded: GBP at the FX rate it recorded per
 * request, USD at list price, to the micro-unit; a team's usage is its admins' to see.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { microsToDecimalString, planTerms, roundHalfUpDiv } from '@spendgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueByokKey, recordedEvents, signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { daysAgo } from '../support/usage-events.ts';

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
/** A new team is on the free trial: its usage calls show this many days back (today included). */
const LOOK_BACK_DAYS = planTerms('free-trial').lookBackDays!;

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

    it("lists each connection with this month's usage, and the overview follows the team's setup, in GBP as the meter counted it", async () => {
      const tenant: Tenant = await signUpTeam(spendgate.url, 'overview@example.com');
      const overview = () => callApi(spendgate.url, 'GET', `/usage/team?teamId=${tenant.teamId}`, { token: tenant.token });
      // A new team's calendar is UTC; the plan's look-back may start this month's figures after its first day.
      const today = isoDay(new Date());
      const monthStart = `${today.slice(0, 7)}-01`;
      const firstShown = [monthStart, daysAgo(LOOK_BACK_DAYS - 1)].sort().at(-1)!;
      const daysShown = Math.round((Date.parse(today) - Date.parse(firstShown)) / 86_400_000) + 1;

      const before = await overview();
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      expect(before.body.data.setup).toEqual({ connections: 0, groups: 1, keys: 0, firstRequestAt: null });
      expect(before.body.data.thisMonth).toMatchObject({ startDate: firstShown, endDate: today, currency: 'GBP', requests: 0, totalCostMicros: '0', totalCostUsdMicros: '0' });
      expect(before.body.data.daily).toHaveLength(daysShown);
      expect(before.body.data.daily[0]).toEqual({ date: firstShown, requests: 0, totalCostMicros: '0' });

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
      // What the meter recorded: USD at list price, and the team's GBP at the FX rate it recorded for each request (BYOK: list price converted).
      const usdMicros = events.reduce((sum, event) => sum + BigInt(event.cost_micros ?? 0), 0n);
      const gbpMicros = events.reduce((sum, event) => sum + roundHalfUpDiv(BigInt(event.cost_micros!) * BigInt(event.fx_rate_ppm!), 1_000_000n), 0n);
      expect(usdMicros).toBeGreaterThan(0n);
      expect(gbpMicros).toBe(events.reduce((sum, event) => sum + BigInt(event.budget_spend_micros ?? 0), 0n));
      const connectionId = events[0]!.connection_id!;
      const amounts = {
        currency: 'GBP',
        totalCost: microsToDecimalString(gbpMicros),
        totalCostMicros: gbpMicros.toString(),
        costCurrencyUsd: 'USD',
        totalCostUsd: microsToDecimalString(usdMicros),
        totalCostUsdMicros: usdMicros.toString(),
        requests: 2,
        unpricedRequests: 0,
        estimatedRequests: 0,
      };

      // A second connection, unused: its month is zero, the first's unchanged.
      const idle = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: tenant.token,
        body: { teamId: tenant.teamId, provider: 'openai', name: 'Idle', apiKey: 'sk-idle', baseUrl: fake.url },
      });
      expect(idle.status).toBe(201);
      const listed = await callApi(spendgate.url, 'GET', '/provider/connections', { token: tenant.token });
      expect(listed.status).toBe(200);
      const months = Object.fromEntries((listed.body.data as { name: string; thisMonth: unknown }[]).map((connection) => [connection.name, connection.thisMonth]));
      expect(months['openai test']).toMatchObject({ startDate: firstShown, endDate: today, ...amounts });
      expect(months.Idle).toMatchObject({ startDate: firstShown, endDate: today, currency: 'GBP', requests: 0, totalCostMicros: '0', totalCostUsdMicros: '0' });

      const usage = await callApi(spendgate.url, 'GET', `/provider/connections/${connectionId}/usage`, { token: tenant.token });
      expect(usage.status, JSON.stringify(usage.body)).toBe(200);
      expect(usage.body.data).toMatchObject({ teamId: tenant.teamId, connectionId, startDate: daysAgo(LOOK_BACK_DAYS - 1), endDate: today, ...amounts });
      const idleUsage = await callApi(spendgate.url, 'GET', `/provider/connections/${idle.body.data.newConnection.id}/usage`, { token: tenant.token });
      expect(idleUsage.body.data).toMatchObject({ requests: 0, totalCostMicros: '0' });

      const after = (await overview()).body.data;
      expect(after.setup).toMatchObject({ connections: 2, groups: 1, keys: 1 });
      expect(Date.parse(after.setup.firstRequestAt)).toBeLessThanOrEqual(Date.now());
      expect(after.thisMonth).toMatchObject({ startDate: firstShown, endDate: today, ...amounts });
      expect(after.daily.at(-1)).toEqual({ date: today, requests: 2, totalCostMicros: gbpMicros.toString() });
      expect(after.daily.reduce((sum: number, day: { requests: number }) => sum + day.requests, 0)).toBe(2);
    });

    it("keeps a team's usage to its admins: a member sees the setup and the connections without it", async () => {
      const owner = await signUpTeam(spendgate.url, 'usage-owner@example.com');
      await issueByokKey(spendgate.url, owner, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      const member = await signUp(spendgate.url, 'usage-member@example.com');
      await spendgate.app.runtime.stores.sql.db.insertInto('team_members').values({ team_id: owner.teamId, user_id: member.userId, role: 'MEMBER' }).execute();
      const outsider = await signUpTeam(spendgate.url, 'usage-outsider@example.com');
      const listed = await callApi(spendgate.url, 'GET', `/provider/connections?teamId=${owner.teamId}`, { token: member.token });
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([expect.objectContaining({ name: 'openai test', thisMonth: null })]);
      const connectionId = listed.body.data[0].id;

      const overview = await callApi(spendgate.url, 'GET', `/usage/team?teamId=${owner.teamId}`, { token: member.token });
      expect(overview.status).toBe(200);
      expect(overview.body.data).toMatchObject({ setup: { connections: 1 }, thisMonth: null, daily: [] });

      const usage = (token: string, query = '') => callApi(spendgate.url, 'GET', `/provider/connections/${connectionId}/usage${query}`, { token });
      const forbidden = await usage(member.token);
      expect([forbidden.status, forbidden.body.message]).toEqual([403, "Only team admins can see the whole team's usage: ask for a group's"]);
      expect((await usage(outsider.token)).status).toBe(404);
      // The plan's look-back: a 403 naming it and the first day it shows.
      const tooOld = await usage(owner.token, `?startDate=${daysAgo(LOOK_BACK_DAYS)}`);
      expect(tooOld.status).toBe(403);
      expect(tooOld.body.message).toBe(`The Free Trial plan shows usage of the last ${LOOK_BACK_DAYS} days: choose a startDate on or after ${daysAgo(LOOK_BACK_DAYS - 1)}`);
      const reversed = await usage(owner.token, `?startDate=${daysAgo(0)}&endDate=${daysAgo(1)}`);
      expect([reversed.status, reversed.body.field]).toEqual([400, 'endDate']);
      const badDate = await usage(owner.token, '?startDate=2026-02-30');
      expect([badDate.status, badDate.body.field]).toEqual([400, 'startDate']);
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
