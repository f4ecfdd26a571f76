/**
 * Settings that steer the data plane, through the API: a key's rate limits, timeout and
 * routing policy (validated field by field, routing only for optimised keys), and the
 * team's time zone, which moves its budget windows to local calendar boundaries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

for (const mode of testModes) {
  describe(`key and team settings (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let tenant: Tenant;
    let connectionId: string;
    const api = (method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token: tenant.token, body });

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, 'api-settings');
      tenant = await signUpTeam(spendgate.url, 'settings@example.com');
      const connection = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      connectionId = connection.body.data.newConnection.id;
    });
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    it('issues a key with settings and changes them later', async () => {
      const settings = { rateLimit: { requestsPerMinute: 60, tokensPerMinute: 100_000 }, timeoutMs: 10_000 };
      const created = await api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { name: 'limited', kind: 'byok', connectionId, settings });
      expect(created.status).toBe(201);
      expect(created.body.data.providerKey.settings).toEqual(settings);

      const keyId = created.body.data.providerKey.id;
      const changed = await api('PATCH', `/synthetic-group/provider-key/${keyId}`, { settings: { rateLimit: { requestsPerMinute: 5 } } });
      expect(changed.status).toBe(200);
      expect(changed.body.data).toMatchObject({ id: keyId, name: 'limited', settings: { rateLimit: { requestsPerMinute: 5 } } });
      const group = await api('GET', `/synthetic-group/${tenant.groupId}`);
      expect(group.body.data.syntheticGroupProviderKeys.find((key: { id: string }) => key.id === keyId).settings).toEqual({ rateLimit: { requestsPerMinute: 5 } });

      const audit = await api('GET', `/audit?teamId=${tenant.teamId}`);
      expect(JSON.stringify(audit.body.data)).toContain('key.updated');
    });

    it('refuses bad settings, naming the field', async () => {
      const create = (settings: unknown, kind = 'byok') =>
        api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { name: 'bad', kind, ...(kind === 'byok' ? { connectionId } : {}), settings });
      const cases: [unknown, string][] = [
        [{ rateLimit: { requestsPerMinute: 0 } }, 'settings.rateLimit.requestsPerMinute'],
        [{ rateLimit: { requestsPerMinute: 1.5 } }, 'settings.rateLimit.requestsPerMinute'],
        [{ rateLimit: { tokensPerMinute: 'many' } }, 'settings.rateLimit.tokensPerMinute'],
        [{ timeoutMs: 10 }, 'settings.timeoutMs'],
        [{ retries: 3 }, 'settings'],
        [{ routing: { weights: { cost: 1, speed: 0, accuracy: 0 } } }, 'settings.routing'],
      ];
      for (const [settings, field] of cases) {
        const refused = await create(settings);
        expect([refused.status, refused.body.field], JSON.stringify(settings)).toEqual([400, field]);
      }
      const allZero = await create({ routing: { weights: { cost: 0, speed: 0, accuracy: 0 } } }, 'optimised');
      expect([allZero.status, allZero.body.field]).toEqual([400, 'settings.routing.weights']);
      const nothing = await api('PATCH', `/synthetic-group/provider-key/${crypto.randomUUID()}`, {});
      expect(nothing.status).toBe(400);
    });

    it('sets the team’s time zone, and budget windows follow it', async () => {
      const refused = await api('PATCH', `/team/${tenant.teamId}`, { timeZone: 'Mars/Olympus_Mons' });
      expect([refused.status, refused.body.field]).toEqual([400, 'timeZone']);

      const updated = await api('PATCH', `/team/${tenant.teamId}`, { timeZone: 'Asia/Tokyo' });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({ id: tenant.teamId, timeZone: 'Asia/Tokyo' });
      expect((await api('GET', '/team/')).body.data[0].timeZone).toBe('Asia/Tokyo');

      const budget = await api('POST', '/budgets', { scope: 'team', scopeId: tenant.teamId, amount: 5, window: 'day', mode: 'soft' });
      expect(budget.status).toBe(201);
      // Tokyo is UTC+9 all year: its days end at 15:00 UTC.
      const resetsAt = new Date(budget.body.data.resetsAt);
      expect(resetsAt.getUTCHours()).toBe(15);
      expect(resetsAt.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
      expect(resetsAt.getTime()).toBeGreaterThan(Date.now());
    });
  });
}
