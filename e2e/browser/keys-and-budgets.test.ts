/**
 * Keys and budgets as a team admin uses them, in Debian's Chromium against a whole
 * Spendgate, in each run mode: issue a BYOK key in a group's details (the plaintext read
 * from the screen, shown once), call the gateway with it through the real `openai` SDK
 * against a local fake, see it listed as used, set a hard budget in the screen and see the
 * next request refused (402), revoke the key in the screen and see the next call answered
 * 401. Screenshots of the keys and budgets at 1280 and 390 px, light and dark, checked
 * for sideways overflow and by axe-core (no critical or serious WCAG 2.1 AA violation).
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { axeViolations, blockingViolations, describeViolations } from './support/axe.ts';
import { buildConsole, CHROMIUM_PATH, hasChromium, launchChromium, SCREENSHOT_DIR } from './support/chromium.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const WIDTHS = [1280, 390] as const;
const THEMES = ['light', 'dark'] as const;

describe.skipIf(!hasChromium)('the keys and budgets of a group', () => {
  let consoleDir: string;
  let browser: Browser;
  let fake: FakeOpenAI;

  beforeAll(async () => {
    [consoleDir, browser, fake] = await Promise.all([buildConsole(), launchChromium(), startFakeOpenAI()]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await fake?.close();
    if (consoleDir) await rm(consoleDir, { recursive: true, force: true });
  });

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let tenant: Tenant;
    let user: unknown;
    const contexts: BrowserContext[] = [];
    const pageErrors: string[] = [];
    const api = (method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token: tenant.token, ...(body === undefined ? {} : { body }) });

    async function open(route: string, options: { width?: number; theme?: 'light' | 'dark' } = {}): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
      contexts.push(context);
      context.setDefaultTimeout(20_000);
      await context.addInitScript(
        (seed) => {
          localStorage.setItem('spendgate.theme', seed.theme);
          if (sessionStorage.getItem('seeded')) return;
          localStorage.setItem('token', seed.token);
          localStorage.setItem('user', JSON.stringify(seed.user));
          sessionStorage.setItem('seeded', 'yes');
        },
        { token: tenant.token, user, theme: options.theme ?? 'light' },
      );
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${spendgate.url}${route}`);
      return page;
    }

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-keys-${mode}`, { consoleDir });
      tenant = await signUpTeam(spendgate.url, `keys-${mode}@example.com`);
      user = (await api('GET', '/auth/profile')).body.data.user;
      const connection = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'openai', name: 'Fake OpenAI', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      expect(connection.status, JSON.stringify(connection.body)).toBe(201);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(contexts.splice(0).map((context) => context.close()));
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
      await form.getByLabel('Name').fill('Checkout service');
      await form.getByLabel('Connection').selectOption({ label: 'Fake OpenAI (openai, ••••ream)' });
      await form.getByRole('button', { name: 'Issue key' }).click();
      const plaintext = await page.getByRole('textbox', { name: 'Your new key' }).inputValue();
      expect(plaintext).toMatch(/^sg_live_/);
      await page.getByText('Copy it now: it will not be shown again.').waitFor();
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
          await shown.getByRole('form', { name: 'Settings of Checkout service' }).waitFor();
          await shown.getByRole('article', { name: '£0.000001 daily budget' }).waitFor();
          await shown.getByText('No budget: spend here is not capped.').waitFor();
          await shown.evaluate(() => document.fonts.ready);
          await shown.screenshot({ path: path.join(SCREENSHOT_DIR, `keys-and-budgets-${mode}-${theme}-${width}.png`), fullPage: true });
          const overflow = await shown.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow, `keys at ${width}px (${theme}) scroll sideways`).toBeLessThanOrEqual(0);
          const violations = blockingViolations(await axeViolations(shown));
          expect(violations, `${theme} ${width}px\n${describeViolations(violations)}`).toEqual([]);
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
      expect(pageErrors).toEqual([]);
    }, 240_000);
  });
});
