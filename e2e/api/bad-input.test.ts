/**
 * What the control plane answers to input it cannot take, in every run mode: NUL and
 * control characters in text, amounts past what the ledger holds, JSON nested too deep,
 * bodies too large. Each is a 4xx in the API envelope naming the field, nothing is
 * stored, and the server goes on answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

for (const mode of testModes) {
  describe(`bad input on the control plane (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let tenant: Tenant;
    const api = (method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token: tenant.token, body });

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, 'api-bad-input');
      tenant = await signUpTeam(spendgate.url, 'api-bad-input@example.com');
    });
    afterAll(async () => {
      await spendgate?.close();
    });

    it.each([
      ['a NUL in a team name', 'POST', '/team/', { name: 'Ops\u0000team' }, 'name', 'name: must not contain control characters'],
      ['a line break in a team name', 'POST', '/team/', { name: 'Ops\r\nteam' }, 'name', 'name: must not contain control characters'],
      ['an escape sequence in a description', 'POST', '/team/', { name: 'Ops', description: 'red \u001b[31m' }, 'description', 'description: must not contain control characters other than tabs and line breaks'],
      ['a lone surrogate in a team name', 'POST', '/team/', { name: 'Ops\ud800' }, 'name', 'name: must not contain control characters'],
    ])('refuses %s, naming the field', async (_what, method, route, body, field, message) => {
      const answer = await api(method, route, body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, field, message });
    });

    it('takes tabs and line breaks in a description, and refuses control characters in names everywhere', async () => {
      const created = await api('POST', '/team/', { name: 'Multi-line', description: 'First line\n\tSecond line' });
      expect(created.status).toBe(201);
      expect(created.body.data.description).toBe('First line\n\tSecond line');

      const group = await api('POST', '/synthetic-group', { teamId: tenant.teamId, name: 'Bell\u0007' });
      expect(group.body).toMatchObject({ field: 'name', message: 'name: must not contain control characters' });
      const override = await api('PUT', '/pricing/overrides', { teamId: tenant.teamId, provider: 'openai', model: 'gpt-4o\u0000', inputPerMTok: 1, outputPerMTok: 2 });
      expect(override.body).toMatchObject({ field: 'model', message: 'model: must be printable ASCII without spaces or control characters' });
      const audit = await api('GET', `/audit?teamId=${tenant.teamId}&action=${encodeURIComponent('key.created\u0000')}`);
      expect(audit.status).toBe(400);
      expect(audit.body.field).toBe('action');
    });

    it.each([
      ['provider', { provider: 'openai\u0000' }],
      ['apiKey', { apiKey: 'sk-\u0000' }],
      ['options.deployment', { options: { deployment: 'gpt\u0000' } }],
      ['options.deploy\nment', { options: { 'deploy\nment': 'gpt' } }],
    ])('refuses control characters in a connection’s %s', async (field, change) => {
      const answer = await api('POST', '/provider/connections', { teamId: tenant.teamId, name: 'Odd', provider: 'openai', apiKey: 'sk-test', baseUrl: 'http://127.0.0.1:9/v1', ...change });
      expect(answer.status).toBe(400);
      expect(answer.body.field).toBe(field);
    });

    it('refuses budget amounts past £1,000,000,000 (as text or as a number) and takes that maximum', async () => {
      const budget = (amount: unknown) => api('POST', '/budgets', { scope: 'team', scopeId: tenant.teamId, amount, window: 'month', mode: 'soft' });
      for (const amount of ['99999999999999999999', 1e20, '1000000000.000001', `1${'0'.repeat(5000)}`]) {
        const refused = await budget(amount);
        expect(refused.status, String(amount).slice(0, 30)).toBe(400);
        expect(refused.body).toMatchObject({ field: 'amount', message: 'amount: must be a positive GBP amount with at most 6 decimals, at most 1000000000' });
      }
      const largest = await budget('1000000000');
      expect(largest.status).toBe(201);
      expect(largest.body.data.amount).toBe('1000000000.000000');

      const price = await api('PUT', '/pricing/overrides', { teamId: tenant.teamId, provider: 'openai', model: 'gpt-4o', inputPerMTok: '99999999999999999999', outputPerMTok: 1 });
      expect(price.body).toMatchObject({ field: 'inputPerMTok', message: 'inputPerMTok: must be a non-negative USD amount with at most 6 decimals, at most 100000' });
    });

    it('refuses JSON nested past 64 levels (and 100k deep, past the size limit) and NUL in stored JSON, naming the field', async () => {
      const nested = (depth: number) => `{"metadata":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      const tooDeep = await api('PATCH', '/auth/update-metadata', nested(1000));
      expect(tooDeep.status).toBe(400);
      expect(tooDeep.body).toMatchObject({ field: 'body', message: 'body: JSON may nest at most 64 levels deep' });
      expect((await api('PATCH', '/auth/update-metadata', nested(100_000))).status).toBe(413);

      const withNul = await api('PATCH', '/auth/update-metadata', { metadata: { note: 'a\u0000b' } });
      expect(withNul.body).toMatchObject({ field: 'metadata', message: 'metadata: must not contain control characters other than tabs and line breaks' });
      const lone = await api('PATCH', '/auth/update-metadata', '{"metadata":{"note":"\\ud800"}}');
      expect(lone.body.field).toBe('metadata');
      const contact = await callApi(spendgate.url, 'POST', '/contact-form', { body: { name: 'Ada\u0000' } });
      expect(contact.status).toBe(400);

      const kept = await api('PATCH', '/auth/update-metadata', { metadata: { note: 'line one\nline two', depth: [[[1]]] } });
      expect(kept.status).toBe(200);
    });

    it('refuses a body over 64 KiB with 413 in the envelope', async () => {
      const answer = await api('POST', '/team/', { name: 'Big', description: 'x'.repeat(70_000) });
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({ success: false, field: 'body', message: 'Request body is too large' });
    });

    it('stored none of it and still answers', async () => {
      const teams = await api('GET', '/team/');
      expect(teams.body.data.map((team: { name: string }) => team.name).sort()).toEqual(['Multi-line', 'Platform']);
      const profile = await api('GET', '/auth/profile');
      expect(profile.body.data.user.metadata).toEqual({ note: 'line one\nline two', depth: [[[1]]] });
      expect((await fetch(`${spendgate.url}/healthz`)).status).toBe(200);
    });
  });
}
