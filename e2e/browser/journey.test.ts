/**
 * The whole journey of a new user, in Debian's Chromium against a whole Spendgate, in
 * each run mode, without leaving the browser except to call the gateway from "their
 * terminal" with the real `openai` SDK: register; verify the e-mailed code (read from
 * the outbox); create a team; connect a local fake OpenAI (tested before saving); create
 * a group; issue a BYOK key and read it from the screen; send requests and see them on
 * the dashboard within 5 s without a reload; set a hard budget and see the next request
 * refused (402); invite a colleague who registers through the e-mail's link and lands in
 * the team; revoke the key and see the next call answered 401. The onboarding overview
 * and AI Connections are also shot at 1280 and 390 px in light and dark, checked for
 * sideways scrolling and by axe-core (no critical or serious WCAG 2.1 AA violation).
 */
import { listOutboxMail } from '@spendgate/store';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { mailedCode } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const PASSWORD = 'a long and unusual passphrase';

describe.skipIf(!hasChromium)('the journey from sign-up to a metered, capped and revoked key', () => {
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
    let profiles: BrowserProfiles;
    const shoot = (page: Page, name: string) => checkPage(page, `journey-${name}-${mode}`);

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-journey-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    it('walks a new user from sign-up to a metered request, a hard cap, a colleague and a revoked key', async () => {
      const email = `journey-${mode}@example.com`;

      // 1. Register.
      const page = await profiles.open('/register');
      const register = page.getByRole('form', { name: 'Register' });
      await register.getByLabel('Full name').fill('Ada Journey');
      await register.getByLabel('Work email').fill(email);
      await register.getByLabel('Password').fill(PASSWORD);
      await register.getByRole('button', { name: 'Create account' }).click();

      // 2. Verify the code mailed to the new address (read from the outbox).
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
      await page.getByLabel('Verification code').fill(await mailedCode(spendgate.url, email));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL(`${spendgate.url}/dashboard`);

      // The overview's checklist: nothing done yet; its first step leads to the team screen.
      await page.getByText('0 of 5 done').waitFor();
      await page.getByRole('link', { name: 'Set up your team' }).first().click();

      // 3a. Create a team.
      const teamForm = page.getByRole('form', { name: 'Create a team' });
      await teamForm.getByLabel('Team name').fill('Journey Labs');
      await teamForm.getByRole('button', { name: 'Create team' }).click();
      await page.getByRole('heading', { name: 'Journey Labs' }).waitFor();
      const token = (await page.evaluate(() => localStorage.getItem('token')))!;
      const api = (method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token, ...(body === undefined ? {} : { body }) });
      const teamId = ((await api('GET', '/team/')).body.data as { id: string; name: string }[]).find((team) => team.name === 'Journey Labs')!.id;

      // 3b. Connect the local fake OpenAI from AI Connections, tested before it is saved.
      await page.goto(`${spendgate.url}/dashboard`);
      await page.getByText('1 of 5 done').waitFor();
      await shoot(page, 'checklist-light-1280');
      const session = { token, user: JSON.parse((await page.evaluate(() => localStorage.getItem('user')))!) };
      const phone = await profiles.open('/dashboard', { width: 390, theme: 'dark', as: session });
      await phone.getByText('1 of 5 done').waitFor();
      await shoot(phone, 'checklist-dark-390');
      await phone.goto(`${spendgate.url}/dashboard/ai-connection`);
      await phone.getByRole('heading', { name: 'No connections yet' }).waitFor();
      await shoot(phone, 'connections-empty-dark-390');
      await phone.getByRole('button', { name: 'Add connection' }).first().click();
      await phone.getByRole('form', { name: 'Add a connection' }).getByRole('button', { name: 'Add connection' }).click();
      await phone.getByText('Enter the API key').waitFor();
      await shoot(phone, 'connection-form-errors-dark-390');
      await phone.context().close();
      await page.getByRole('link', { name: 'Connect a provider' }).click();
      await page.getByRole('heading', { name: 'No connections yet' }).waitFor();
      await page.getByRole('button', { name: 'Add connection' }).first().click();
      const connectionForm = page.getByRole('form', { name: 'Add a connection' });
      await connectionForm.getByLabel('Provider').selectOption({ label: 'OpenAI' });
      await connectionForm.getByLabel('Name').fill('Fake OpenAI');
      await connectionForm.getByLabel('API key').fill('sk-wrong-key');
      await connectionForm.getByLabel('Base URL').fill(fake.url);
      await connectionForm.getByRole('button', { name: 'Test connection' }).click();
      await connectionForm.getByText('OpenAI refused the API key (HTTP 401)').waitFor();
      await connectionForm.getByLabel('API key').fill('sk-fake-upstream');
      await connectionForm.getByRole('button', { name: 'Test connection' }).click();
      await connectionForm.getByText(/^Connection works: OpenAI answered in \d+ ms\.$/).waitFor();
      await shoot(page, 'connection-form-tested-light-1280');
      await connectionForm.getByRole('button', { name: 'Add connection' }).click();
      const connectionCard = page.getByRole('article', { name: 'Fake OpenAI' });
      await connectionCard.getByText('••••ream').waitFor();
      await connectionCard.getByText('Active').waitFor();
      expect((await api('GET', '/provider/connections')).body.data).toMatchObject([{ teamId, provider: 'openai', name: 'Fake OpenAI', baseUrl: fake.url }]);

      // 3c. Create a group.
      await page.goto(`${spendgate.url}/dashboard`);
      await page.getByText('2 of 5 done').waitFor();
      await page.getByRole('link', { name: 'Create a group' }).click();
      const groupForm = page.getByRole('form', { name: 'New synthetic group' });
      await groupForm.getByLabel('Group name').fill('Checkout');
      await groupForm.getByRole('button', { name: 'Create group' }).click();
      await page.waitForURL(/\/dashboard\/synthetic-groups\?group=/);

      // 3d. Issue a BYOK key on the connection and read it from the screen.
      const keys = page.getByRole('region', { name: 'API keys' });
      await keys.getByRole('button', { name: 'Issue key' }).click();
      const keyForm = page.getByRole('form', { name: 'Issue a key' });
      await keyForm.getByLabel('Name').fill('Checkout service');
      await keyForm.getByLabel('Connection').selectOption({ label: 'Fake OpenAI (openai, ••••ream)' });
      await keyForm.getByRole('button', { name: 'Issue key' }).click();
      const key = await page.getByRole('textbox', { name: 'Your new key' }).inputValue();
      expect(key).toMatch(/^sg_live_/);

      // The overview's snippets now hold the key just issued, and the gateway's address.
      await page.getByRole('link', { name: 'Overview' }).click();
      await page.getByText('4 of 5 done').waitFor();
      const snippet = await page.getByRole('textbox', { name: 'OpenAI SDK (openai)' }).inputValue();
      expect(snippet).toContain(`new OpenAI({ baseURL: '${spendgate.url}/v1', apiKey: '${key}' })`);

      // 4. Requests with the real openai SDK, as the snippet says.
      const client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      const ask = (content: string) => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], max_tokens: 20 });
      for (const question of ['What does this cost?', 'And this one?', 'A third, please.']) {
        expect((await ask(question)).choices[0]?.message.content).toBe(`echo: ${question}`);
      }

      // 5. The dashboard shows them within 5 s, without a reload.
      const usage = page.getByRole('region', { name: 'Usage in this range' });
      const requestsFigure = usage.locator('.figures__item').filter({ has: page.getByRole('term').filter({ hasText: /^Requests$/ }) });
      await requestsFigure.getByRole('definition').filter({ hasText: /^3$/ }).waitFor({ timeout: 5_000 });
      expect((await api('GET', `/usage/group/specific?teamId=${teamId}`)).body.data.requests).toBe(3);
      await page.getByRole('region', { name: 'Spend over time' }).getByRole('img', { name: /^Spend per day from \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}: £/ }).waitFor();
      expect(await page.getByText('Get started').count()).toBe(0);
      await page.getByRole('link', { name: 'AI Connections' }).click();
      await connectionCard.getByRole('definition').filter({ hasText: /^3$/ }).waitFor();

      // Screenshots of the overview and the connections at both widths in both themes.
      for (const width of [1280, 390]) {
        for (const theme of ['light', 'dark'] as const) {
          for (const [name, route, ready] of [
            ['overview', '/dashboard', 'Usage in this range'],
            ['ai-connections', '/dashboard/ai-connection', 'Fake OpenAI'],
          ] as const) {
            const shown = await profiles.open(route, { width, theme, as: session });
            await shown.getByRole('heading', { name: ready }).waitFor();
            // The chart is drawn once its lazily loaded code has run: its axis labels are then in the page.
            if (name === 'overview') await shown.locator('figure.chart svg text').first().waitFor({ state: 'attached' });
            if (name === 'ai-connections') {
              await shown.getByRole('button', { name: 'Usage' }).click();
              await shown.getByRole('heading', { name: 'Usage of Fake OpenAI' }).waitFor();
              await shown.getByText('Requests', { exact: true }).last().waitFor();
            }
            await shoot(shown, `${name}-${theme}-${width}`);
            await shown.context().close();
          }
        }
      }

      // 6. A hard budget on the group, below what is spent: the next request is refused.
      await page.getByRole('link', { name: 'Synthetic Groups' }).click();
      await page.getByRole('link', { name: /Checkout/ }).first().click();
      const budgets = page.getByRole('region', { name: 'Group budgets' });
      await budgets.getByRole('button', { name: 'Add budget' }).click();
      const budgetForm = page.getByRole('form', { name: 'New budget' });
      await budgetForm.getByLabel('Amount (£)').fill('0.000001');
      await budgetForm.getByLabel('Window').selectOption('day');
      await budgetForm.getByLabel('Mode').selectOption('hard');
      await budgetForm.getByRole('button', { name: 'Create budget' }).click();
      await budgets.getByRole('article', { name: '£0.000001 daily budget' }).getByText('Hard cap').waitFor();
      const capped = await ask('One more?').catch((error: unknown) => error);
      expect(capped).toBeInstanceOf(OpenAI.APIError);
      expect((capped as InstanceType<typeof OpenAI.APIError>).status).toBe(402);

      // 7. Invite a colleague, who registers through the e-mail's link and lands in the team.
      const colleague = `colleague-${mode}@example.com`;
      await page.goto(`${spendgate.url}/dashboard/settings/team`);
      const invite = page.getByRole('form', { name: 'Invite a member' });
      await invite.getByLabel('E-mail').fill(colleague);
      await invite.getByRole('button', { name: 'Send invitation' }).click();
      await expect.poll(async () => (await listOutboxMail(spendgate.app.runtime.stores.sql.db, colleague)).length, { timeout: 10_000 }).toBe(1);
      const mail = (await listOutboxMail(spendgate.app.runtime.stores.sql.db, colleague))[0]!.text_body;
      const link = /https?:\/\/\S+\/register\?invite=([A-Za-z0-9_-]+)/.exec(mail);
      expect(link, mail).not.toBeNull();
      // The link names the operator's PUBLIC_URL; this Spendgate listens on a port of its own.
      const invited = await profiles.open(`/register?invite=${link![1]}`);
      const join = invited.getByRole('form', { name: 'Register' });
      expect(await join.getByLabel('Work email').inputValue()).toBe(colleague);
      await join.getByLabel('Full name').fill('Grace Colleague');
      await join.getByLabel('Password').fill(PASSWORD);
      await join.getByRole('button', { name: 'Create account and join' }).click();
      await invited.waitForURL(/\/dashboard\/settings\/team/);
      await invited.getByRole('heading', { name: 'Journey Labs' }).waitFor();
      const members = (await api('GET', `/team/members/${teamId}`)).body.data as { email: string; role: string }[];
      expect(members.map((member) => [member.email, member.role]).sort()).toEqual([
        [colleague, 'MEMBER'],
        [email, 'ADMIN'],
      ]);

      // 8. Revoke the key in the group's screen: the next call is answered 401.
      await page.getByRole('link', { name: 'Synthetic Groups' }).click();
      await page.getByRole('link', { name: /Checkout/ }).first().click();
      await keys.getByRole('button', { name: 'Revoke Checkout service' }).click();
      await page.getByRole('dialog', { name: 'Revoke Checkout service?' }).getByRole('button', { name: 'Revoke key' }).click();
      await keys.getByText('No keys yet. Issue one to call the gateway for this group.').waitFor();
      const revoked = await ask('Still there?').catch((error: unknown) => error);
      expect((revoked as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
      expect(profiles.pageErrors).toEqual([]);
      expect(profiles.consoleErrors).toEqual([]);
    }, 300_000);
  });
});
