/**
 * Keys and budgets as a team admin uses them, in Debian's Chromium against a whole
 * Spendgate, in each run mode: issue a BYOK key in a group's details (the plaintext read
 * from the screen, shown once), call the gateway with it through the real `openai` SDK
 * against a local fake, see it listed as used, set a hard budget in the screen and see the
 * next request refused (402), revoke the key in the screen and see the next call answered
 * 401. Screenshots of the keys and budgets at 1280 and 390 px, light and dark, checked
 * for sideways overflow and by axe-core (no critical or serious WCAG 2.1 AA violation).
 * Then the roles (spec §6): an Observer reads keys and budgets only, a Maintainer manages
 * keys but not budgets (a team admin's), and the API refuses each the rest (403). Last, a
 * BYOM key issued in the screen on the team's own endpoint serves the SDK. The first test
 * revokes its key and deletes its budget, so each test can also run on its own.
 */
import OpenAI from 'openai';
import { listOutboxMail, upsertSubscription } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, type OpenOptions, signUpTeamAdmin, signUpUser, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const WIDTHS = [1280, 390] as const;
const THEMES = ['light', 'dark'] as const;

describe.skipIf(!hasChromium)('the keys and budgets of a group', () => {
  const suite = browserSuite();
  let fake: FakeOpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
  }, 180_000);

  afterAll(async () => {
    await fake?.close();
  });

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let tenant: TeamAdmin & { groupId: string };
    let profiles: BrowserProfiles;
    const callAs = (token: string, method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token, ...(body === undefined ? {} : { body }) });
    const api = (method: string, route: string, body?: unknown) => callAs(tenant.token, method, route, body);
    /** A fresh browser profile signed in (as the team's admin unless `as` says who), at `route`. */
    const open = (route: string, options: OpenOptions = {}) => profiles.open(route, { as: tenant, ...options });

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-keys-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      const admin = await signUpTeamAdmin(spendgate.url, `keys-${mode}@example.com`, { password: 'a long and unusual passphrase', name: 'Data plane' });
      const group = await callAs(admin.token, 'POST', '/synthetic-group', { name: 'Gateway tests', description: '', teamId: admin.teamId });
      expect(group.status).toBe(201);
      tenant = { ...admin, groupId: group.body.data.id };
      const connection = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'openai', name: 'Fake OpenAI', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      expect(connection.status, JSON.stringify(connection.body)).toBe(201);
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    it('issues a key, meters it, caps it with a hard budget and revokes it, all from the screen', async () => {
      const page = await open(`/dashboard/synthetic-groups?group=${tenant.groupId}`);
      const keys = page.getByRole('region', { name: 'API keys' });
      await keys.getByText('No keys yet. Issue one to call the gateway for this group.').waitFor();

      // Issue: the form's checks first, then a BYOK key on the fake's connection.
      await keys.getByRole('button', { name: 'Issue key' }).click();
      const form = page.getByRole('form', { name: 'Issue a key' });
      await form.getByRole('button', { name: 'Issue key' }).click();
      await form.getByText('Name is required').waitFor();
      await form.getByText('Choose the connection the key uses').waitFor();
      await checkPage(page, `keys-issue-form-${mode}-1280`);
      await form.getByLabel('Name').fill('Checkout service');
      await form.getByLabel('Connection').selectOption({ label: 'Fake OpenAI (openai, ••••ream)' });
      await form.getByRole('button', { name: 'Issue key' }).click();
      const plaintext = await page.getByRole('textbox', { name: 'Your new key' }).inputValue();
      expect(plaintext).toMatch(/^sg_live_/);
      await page.getByText('Copy it now: it will not be shown again.').waitFor();
      await checkPage(page, `keys-new-key-${mode}-1280`);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      expect(await page.getByRole('textbox', { name: 'Your new key' }).count()).toBe(0);
      expect(await page.locator('body').textContent()).not.toContain(plaintext);
      const row = keys.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Checkout service' }) });
      await row.getByText('BYOK').waitFor();
      expect(await row.getByRole('cell', { name: 'Never' }).count()).toBe(1);

      // The real SDK calls the gateway with the key read from the screen.
      const client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: plaintext, maxRetries: 0 });
      const ask = () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'How much did this cost?' }], max_tokens: 20 });
      expect((await ask()).choices[0]?.message.content).toBe('echo: How much did this cost?');
      await usageWritten(spendgate);
      await page.reload();
      await row.getByText('Checkout service').waitFor();
      expect(await row.getByRole('cell', { name: 'Never' }).count()).toBe(0);

      // A model override and an output cap set in the key's settings: the next gpt-4o request is sent as gpt-4o-mini, 16 tokens at most.
      await row.getByRole('button', { name: 'Open settings and budget of Checkout service' }).click();
      const settings = page.getByRole('form', { name: 'Settings of Checkout service' });
      await settings.getByLabel('Max output tokens').fill('16');
      await settings.getByRole('button', { name: 'Add a model override' }).click();
      const override = settings.getByRole('group', { name: 'Override 1' });
      await override.getByLabel('Requested model').fill('gpt-4o');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await override.getByText('Name the model to send instead').waitFor();
      await override.getByLabel('Send instead').fill('gpt-4o-mini');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await settings.getByText('Settings saved. Gateways apply them to the next request.').waitFor();
      const overridden = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Which model?' }], max_tokens: 100 }).withResponse();
      expect(overridden.response.headers.get('x-spendgate-route')).toBe('override: gpt-4o -> gpt-4o-mini');
      expect(fake.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 16 });
      await row.getByRole('button', { name: 'Close settings and budget of Checkout service' }).click();

      // A hard group budget below what is spent: the form's checks, then the next request is refused.
      const budgets = page.getByRole('region', { name: 'Group budgets' });
      await budgets.getByRole('button', { name: 'Add budget' }).click();
      const budgetForm = page.getByRole('form', { name: 'New budget' });
      await budgetForm.getByLabel('Amount (£)').fill('0');
      await budgetForm.getByRole('button', { name: 'Create budget' }).click();
      await budgetForm.getByText('Amount must be more than 0').waitFor();
      await budgetForm.getByLabel('Amount (£)').fill('0.000001');
      await budgetForm.getByLabel('Window').selectOption('day');
      await budgetForm.getByLabel('Mode').selectOption('hard');
      await budgetForm.getByRole('button', { name: 'Create budget' }).click();
      const card = budgets.getByRole('article', { name: '£0.000001 daily budget' });
      await card.getByText('Hard cap').waitFor();
      expect(await card.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
      const stored = (await api('GET', `/budgets?scope=group&scopeId=${tenant.groupId}`)).body.data;
      expect(stored).toMatchObject([{ amount: '0.000001', window: 'day', mode: 'hard', remaining: '0.000000' }]);
      const refused = await ask().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.APIError);
      expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(402);

      // Screenshots of the keys with one open and the budget, at both widths in both themes.
      for (const width of WIDTHS) {
        for (const theme of THEMES) {
          const shown = await open(`/dashboard/synthetic-groups?group=${tenant.groupId}`, { width, theme });
          await shown.getByRole('button', { name: 'Open settings and budget of Checkout service' }).click();
          const shownSettings = shown.getByRole('form', { name: 'Settings of Checkout service' });
          expect(await shownSettings.getByRole('group', { name: 'Override 1' }).getByLabel('Send instead').inputValue()).toBe('gpt-4o-mini');
          await shown.getByRole('article', { name: '£0.000001 daily budget' }).waitFor();
          await shown.getByText('No budget: spend here is not capped.').waitFor();
          await checkPage(shown, `keys-and-budgets-${mode}-${theme}-${width}`);
          // The issue form for an optimised key: kinds, plan terms, limits and routing.
          await shown.getByRole('button', { name: 'Issue key' }).click();
          const issueForm = shown.getByRole('form', { name: 'Issue a key' });
          await issueForm.getByLabel(/Optimised/).check();
          await issueForm.getByText(/^Free Trial plan: base model cost \+ 30% per request/).waitFor();
          await checkPage(shown, `keys-issue-optimised-${mode}-${theme}-${width}`);
          await shown.context().close();
        }
      }

      // Revoke: cancel first, then confirm; the next call is answered 401.
      await row.getByRole('button', { name: 'Revoke Checkout service' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke Checkout service?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/synthetic-group/${tenant.groupId}`)).body.data.syntheticGroupProviderKeys).toHaveLength(1);
      await row.getByRole('button', { name: 'Revoke Checkout service' }).click();
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await keys.getByText('No keys yet. Issue one to call the gateway for this group.').waitFor();
      const rejected = await ask().catch((error: unknown) => error);
      expect((rejected as InstanceType<typeof OpenAI.APIError>).status).toBe(401);

      // The budget is deleted in the screen after a confirmation.
      await budgets.getByRole('button', { name: 'Delete the £0.000001 daily budget' }).click();
      await page.getByRole('dialog', { name: 'Delete the £0.000001 daily budget?' }).getByRole('button', { name: 'Delete budget' }).click();
      await budgets.getByText('No budget: spend here is not capped.').waitFor();
      expect((await api('GET', `/budgets?scope=group&scopeId=${tenant.groupId}`)).body.data).toEqual([]);
      expect(profiles.pageErrors).toEqual([]);
    }, 240_000);

    it('an Observer only reads keys and budgets, a Maintainer manages keys but not budgets, and the API refuses the rest', async () => {
      // A paid plan: the trial's seats would refuse the second colleague.
      await upsertSubscription(spendgate.app.runtime.stores.sql.db, { userId: tenant.userId, planSlug: 'growth', status: 'active', trialEnd: null });
      const colleague = async (name: string, role: 'MAINTAINER' | 'OBSERVER') => {
        const email = `${name.toLowerCase()}-keys-${mode}@example.com`;
        const { token, user } = await signUpUser(spendgate.url, email, { name });
        expect((await api('POST', `/synthetic-group/${tenant.groupId}/invite`, { email, role })).status).toBe(201);
        const link = (await listOutboxMail(spendgate.app.runtime.stores.sql.db, email)).at(-1)!.text_body;
        const invitation = /accept-invite\?token=([A-Za-z0-9_-]+)/.exec(link)![1];
        expect((await callAs(token, 'POST', '/synthetic-group/accept-invite', { token: invitation })).status).toBe(200);
        return { token, user };
      };
      const maintainer = await colleague('Max', 'MAINTAINER');
      const observer = await colleague('Olive', 'OBSERVER');
      const connectionId = (await api('GET', `/provider/connections?teamId=${tenant.teamId}`)).body.data[0].id;
      const issued = await api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { name: 'Search service', kind: 'byok', connectionId });
      const keyId = issued.body.data.providerKey.id;
      expect((await api('POST', '/budgets', { scope: 'key', scopeId: keyId, amount: '20', window: 'week', mode: 'soft' })).status).toBe(201);

      // The observer sees the key, its settings and its budget, and no control.
      const page = await open(`/dashboard/synthetic-groups?group=${tenant.groupId}`, { as: observer, width: 390 });
      await page.getByText('Your role: Observer').waitFor();
      const keys = page.getByRole('region', { name: 'API keys' });
      await keys.getByRole('rowheader', { name: 'Search service' }).waitFor();
      await keys.getByRole('button', { name: 'Open settings and budget of Search service' }).click();
      await keys.getByRole('article', { name: '£20.00 weekly budget' }).waitFor();
      expect(await keys.getByLabel('Requests per minute').isDisabled()).toBe(true);
      for (const control of ['Issue key', 'Revoke Search service', 'Save settings', 'Add budget', 'Edit the £20.00 weekly budget', 'Delete the £20.00 weekly budget']) {
        expect(await page.getByRole('button', { name: control }).count(), control).toBe(0);
      }
      await checkPage(page, `keys-observer-${mode}-390`);
      const observerRefused: [string, string, unknown?][] = [
        ['POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { name: 'mine', kind: 'byok', connectionId }],
        ['PATCH', `/synthetic-group/provider-key/${keyId}`, { settings: { timeoutMs: 5000 } }],
        ['DELETE', `/synthetic-group/provider-key/${keyId}`],
        ['POST', '/budgets', { scope: 'key', scopeId: keyId, amount: '1', window: 'day', mode: 'hard' }],
      ];
      for (const [method, route, body] of observerRefused) {
        const answer = await callAs(observer.token, method, route, body);
        expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.body)}`).toBe(403);
      }

      // The maintainer changes the key's settings in the screen, but sees budgets read-only.
      const asMaintainer = await open(`/dashboard/synthetic-groups?group=${tenant.groupId}`, { as: maintainer });
      const maintained = asMaintainer.getByRole('region', { name: 'API keys' });
      await maintained.getByRole('button', { name: 'Issue key' }).waitFor();
      await maintained.getByRole('button', { name: 'Open settings and budget of Search service' }).click();
      const settings = asMaintainer.getByRole('form', { name: 'Settings of Search service' });
      await settings.getByLabel('Requests per minute').fill('120');
      await settings.getByRole('button', { name: 'Save settings' }).click();
      await settings.getByText('Settings saved. Gateways apply them to the next request.').waitFor();
      const listed = (await api('GET', `/synthetic-group/${tenant.groupId}`)).body.data.syntheticGroupProviderKeys;
      expect(listed.find((key: { id: string }) => key.id === keyId).settings).toEqual({ rateLimit: { requestsPerMinute: 120 } });
      await maintained.getByRole('article', { name: '£20.00 weekly budget' }).waitFor();
      for (const control of ['Add budget', 'Edit the £20.00 weekly budget', 'Delete the £20.00 weekly budget']) {
        expect(await asMaintainer.getByRole('button', { name: control }).count(), control).toBe(0);
      }
      const budgetId = (await api('GET', `/budgets?scope=key&scopeId=${keyId}`)).body.data[0].id;
      const maintainerRefused: [string, string, unknown?][] = [
        ['POST', '/budgets', { scope: 'group', scopeId: tenant.groupId, amount: '1', window: 'day', mode: 'hard' }],
        ['PATCH', `/budgets/${budgetId}?teamId=${tenant.teamId}`, { amount: '1' }],
        ['DELETE', `/budgets/${budgetId}?teamId=${tenant.teamId}`],
      ];
      for (const [method, route, body] of maintainerRefused) {
        const answer = await callAs(maintainer.token, method, route, body);
        expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.body)}`).toBe(403);
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 240_000);

    it('issues a BYOM key on the team’s own model endpoint in the screen, and the SDK is served through it', async () => {
      const endpoint = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'openai-compatible', name: 'Our vLLM', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
      const page = await open(`/dashboard/synthetic-groups?group=${tenant.groupId}`);
      const keys = page.getByRole('region', { name: 'API keys' });
      await keys.getByRole('button', { name: 'Issue key' }).click();
      const form = page.getByRole('form', { name: 'Issue a key' });
      await form.getByLabel(/BYOM/).check();
      await form.getByText(/ plan: £0\.00\d routing fee per request\./).waitFor();
      // Only the team's own endpoint can serve a BYOM key.
      const connection = form.getByLabel('Connection');
      await expect.poll(() => connection.locator('option').allTextContents()).toEqual(['Choose a connection', 'Our vLLM (openai-compatible, ••••ream)']);
      await form.getByLabel('Name').fill('Local model');
      await connection.selectOption({ label: 'Our vLLM (openai-compatible, ••••ream)' });
      await form.getByRole('button', { name: 'Issue key' }).click();
      const plaintext = await page.getByRole('textbox', { name: 'Your new key' }).inputValue();
      await keys.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Local model' }) }).getByText('BYOM').waitFor();

      const client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: plaintext, maxRetries: 0 });
      const answer = await client.chat.completions.create({ model: 'llama3.1:8b', messages: [{ role: 'user', content: 'Hello there' }] });
      expect(answer.choices[0]?.message.content).toBe('echo: Hello there');
      expect(profiles.pageErrors).toEqual([]);
    }, 120_000);
  });
});
