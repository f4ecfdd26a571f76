/**
 * Settings that steer the data plane, through the API: a key's rate limits, timeout,
 * output cap, model overrides (to a model its connection, or the team connection named,
 * lists in the price catalog or the team's own prices) and routing policy (validated field
 * by field, routing only for optimised keys), and the team's time zone, which moves its
 * budget windows to local calendar boundaries.
 */
import { listAudit } from '@spendgate/store';
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
    let anthropicConnectionId: string;
    const api = (method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token: tenant.token, body });

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, 'api-settings');
      tenant = await signUpTeam(spendgate.url, 'settings@example.com');
      const connection = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      connectionId = connection.body.data.newConnection.id;
      const anthropic = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'anthropic', name: 'claude', apiKey: 'sk-ant-fake', baseUrl: fake.url });
      anthropicConnectionId = anthropic.body.data.newConnection.id;
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

      const audit = await listAudit(spendgate.app.runtime.stores.sql.db, tenant.teamId);
      expect(audit.find((entry) => entry.action === 'key.updated' && entry.target_id === keyId)).toMatchObject({
        before: { settings: { rateLimit: { requestsPerMinute: 60, tokensPerMinute: 100_000 }, timeoutMs: 10_000 } },
        after: { settings: { rateLimit: { requestsPerMinute: 5 } } },
      });
    });

    it('stores model overrides and an output cap, to models the connection serves or the team prices', async () => {
      const settings = {
        maxOutputTokens: 1024,
        modelOverrides: [
          { replace: 'gpt-4o', with: 'gpt-4o-mini' },
          { replace: 'gpt-4.1', with: 'claude-haiku-4-5', connectionId: anthropicConnectionId },
        ],
      };
      const created = await api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { name: 'overridden', kind: 'byok', connectionId, settings });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.data.providerKey.settings).toEqual(settings);
      const keyId = created.body.data.providerKey.id;

      // A model the catalog does not list is refused until the team prices it for that provider.
      const ownModel = { modelOverrides: [{ replace: 'gpt-4o', with: 'ft:gpt-4o-mini:acme:support:9xYz' }, { replace: 'support', with: 'acme-support-v2' }] };
      const refused = await api('PATCH', `/synthetic-group/provider-key/${keyId}`, { settings: ownModel });
      expect([refused.status, refused.body.field, refused.body.message]).toEqual([
        400,
        'settings.modelOverrides.1.with',
        'settings.modelOverrides.1: "acme-support-v2" is not a model the price catalog lists for OpenAI (a team admin can add a price for it)',
      ]);
      const priced = await api('PUT', '/pricing/overrides', { teamId: tenant.teamId, provider: 'openai', model: 'acme-support-v2', inputPerMTok: '1', outputPerMTok: '2' });
      expect(priced.status, JSON.stringify(priced.body)).toBe(200);
      const changed = await api('PATCH', `/synthetic-group/provider-key/${keyId}`, { settings: ownModel });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(changed.body.data.settings).toEqual(ownModel);
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
        [{ maxOutputTokens: 0 }, 'settings.maxOutputTokens'],
        [{ maxOutputTokens: 1.5 }, 'settings.maxOutputTokens'],
        [{ maxOutputTokens: 10_000_001 }, 'settings.maxOutputTokens'],
        [{ maxOutputTokens: 'lots' }, 'settings.maxOutputTokens'],
        [{ modelOverrides: 'gpt-4o=gpt-4o-mini' }, 'settings.modelOverrides'],
        [{ modelOverrides: Array.from({ length: 21 }, (_, index) => ({ replace: `m${index}`, with: 'gpt-4o-mini' })) }, 'settings.modelOverrides'],
        [{ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini', weight: 1 }] }, 'settings.modelOverrides.0'],
        [{ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt 4o mini' }] }, 'settings.modelOverrides.0.with'],
        [{ modelOverrides: [{ with: 'gpt-4o-mini' }] }, 'settings.modelOverrides.0.replace'],
        [{ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini', connectionId: 'conn-1' }] }, 'settings.modelOverrides.0.connectionId'],
        [{ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o' }] }, 'settings.modelOverrides.0.with'],
        [{ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini' }, { replace: 'gpt-4o', with: 'gpt-4.1-nano' }] }, 'settings.modelOverrides.1.replace'],
        [{ modelOverrides: [{ replace: 'gpt-4o', with: 'claude-haiku-4-5' }] }, 'settings.modelOverrides.0.with'],
        [{ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini', connectionId: crypto.randomUUID() }] }, 'settings.modelOverrides.0.connectionId'],
        [{ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini', connectionId: anthropicConnectionId }] }, 'settings.modelOverrides.0.connectionId'],
      ];
      for (const [settings, field] of cases) {
        const refused = await create(settings);
        expect([refused.status, refused.body.field], JSON.stringify(settings)).toEqual([400, field]);
      }
      // Optimised keys are sent to Spendgate's accounts (none serve this test), never through a team connection.
      const notServed = await create({ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini' }] }, 'optimised');
      expect([notServed.status, notServed.body.field, notServed.body.message]).toEqual([
        400,
        'settings.modelOverrides.0.with',
        'settings.modelOverrides.0: "gpt-4o-mini" is not a model Spendgate\'s accounts serve',
      ]);
      const through = await create({ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini', connectionId }] }, 'optimised');
      expect([through.status, through.body.field]).toEqual([400, 'settings.modelOverrides.0.connectionId']);
      // A change is checked as a new key's settings are.
      const key = await create({});
      const patched = await api('PATCH', `/synthetic-group/provider-key/${key.body.data.providerKey.id}`, { settings: { modelOverrides: [{ replace: 'gpt-4o', with: 'claude-haiku-4-5' }] } });
      expect([patched.status, patched.body.field]).toEqual([400, 'settings.modelOverrides.0.with']);
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
