/**
 * The subscription screen and the checkout round trip in Debian's Chromium against a whole
 * Spendgate and the Stripe fake, in each run mode: a team admin on a new trial sees its plan
 * and days left with no card; "Choose a plan and pay" opens the plan-required modal, whose
 * checkout goes to the fake's hosted page and back to the success page, which says what the
 * server answers; the screen then shows the plan chosen and the card; a second card is
 * added through a SetupIntent, made the default, and the first removed. And a newcomer's
 * whole way in: a plan on /pricing, registration keeping it, the mailed code, then the
 * subscription screen's checkout and back. An invoice whose lines adjust the period before
 * (usage recorded after its invoice) shows them apart, naming the invoice they adjust. What
 * the screens show is checked against the API's own answers.
 */
import { periodEndAfter } from '@spendgate/core';
import { insertUsageEvents, type NewUsageEvent, startBillingPeriod } from '@spendgate/store';
import { usageEvent } from '@spendgate/store/testing';
import { createInvoiceBuildProcessor } from '@spendgate/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeStripe, startFakeStripe } from '../fakes/stripe.ts';
import { freePort } from '../support/free-port.ts';
import { mailedCode } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

describe.skipIf(!hasChromium)('the subscription screen', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let fake: FakeStripe;
    let spendgate: RunningSpendgate;
    let profiles: BrowserProfiles;
    let admin: TeamAdmin;

    beforeAll(async () => {
      fake = await startFakeStripe();
      // The fake's hosted checkout sends the browser back to PUBLIC_URL: this Spendgate's own address.
      const port = await freePort();
      spendgate = await startSpendgate(mode, `browser-subscription-${mode}`, {
        consoleDir: suite.consoleDir,
        port,
        env: { STRIPE_API_URL: fake.url, STRIPE_SECRET_KEY: fake.apiKey, STRIPE_WEBHOOK_SECRET: fake.webhookSecret, PUBLIC_URL: `http://127.0.0.1:${port}` },
      });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `subscription-${mode}@example.com`, { name: 'Bea Billing', team: { name: 'Finance', description: '' } });
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
      await fake?.close();
    });

    const current = async () => (await callApi(spendgate.url, 'GET', '/subscription/current', { token: admin.token })).body.data;

    it('checks out from the plan-required modal through the hosted page and back, then manages cards', async () => {
      const before = await current();
      expect(before).toMatchObject({ status: 'trialing', hasPaymentMethod: false });
      const page = await profiles.open('/dashboard/settings/subscription', { as: admin });
      await page.getByRole('heading', { name: 'Subscription', level: 1 }).waitFor();
      await page.getByText(before.planName, { exact: true }).first().waitFor();
      await page.getByText('No card saved', { exact: false }).first().waitFor();
      await checkPage(page, `subscription-trial-${mode}`);

      await page.getByRole('button', { name: 'Choose a plan and pay' }).click();
      const modal = page.getByRole('dialog', { name: 'Choose a plan' });
      await modal.getByRole('radio', { name: /Growth/ }).check();
      await checkPage(page, `subscription-plan-required-${mode}`);
      await modal.getByRole('button', { name: 'Continue to checkout' }).click();

      // The fake's hosted page, then back to the console's success page.
      await page.getByRole('heading', { name: 'Checkout (fake Stripe)' }).waitFor();
      await page.getByRole('button', { name: /^Save card|^Subscribe/ }).click();
      await page.waitForURL(/\/dashboard\/billing\/success\?session_id=/);
      await page.getByRole('heading', { name: 'No payment needed', level: 1 }).waitFor();
      await checkPage(page, `subscription-success-${mode}`);
      const after = await current();
      expect(after).toMatchObject({ plan: 'growth', status: 'trialing', hasPaymentMethod: true });

      await page.goto(`${spendgate.url}/dashboard/settings/subscription`);
      await page.getByText(after.planName, { exact: true }).first().waitFor();
      const cards = page.getByRole('list', { name: 'Saved cards' });
      await cards.getByRole('listitem').filter({ hasText: 'ending 4242' }).waitFor();

      // A second card through a SetupIntent, made the default; the first removed.
      await page.getByRole('button', { name: 'Add a card' }).click();
      const form = page.getByRole('form', { name: 'Add a card' });
      await form.getByLabel('Card').selectOption({ index: 1 });
      await form.getByRole('button', { name: 'Save card' }).click();
      await expect.poll(async () => (await callApi(spendgate.url, 'GET', '/subscription/payment-methods', { token: admin.token })).body.data.length, { timeout: 15_000 }).toBe(2);
      const saved = (await callApi(spendgate.url, 'GET', '/subscription/payment-methods', { token: admin.token })).body.data as { id: string; last4: string; isDefault: boolean }[];
      const second = saved.find((card) => !card.isDefault)!;
      await cards.getByRole('listitem').filter({ hasText: `ending ${second.last4}` }).waitFor();
      await cards.getByRole('listitem').filter({ hasText: `ending ${second.last4}` }).getByRole('button', { name: 'Make default' }).click();
      await expect
        .poll(async () => ((await callApi(spendgate.url, 'GET', '/subscription/payment-methods', { token: admin.token })).body.data as { id: string; isDefault: boolean }[]).find((card) => card.isDefault)?.id, { timeout: 15_000 })
        .toBe(second.id);
      const first = saved.find((card) => card.id !== second.id)!;
      await cards.getByRole('listitem').filter({ hasText: `ending ${first.last4}` }).getByRole('button', { name: /^Remove/ }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove card' }).click();
      await expect.poll(async () => (await callApi(spendgate.url, 'GET', '/subscription/payment-methods', { token: admin.token })).body.data.map((card: { id: string }) => card.id), { timeout: 15_000 }).toEqual([second.id]);
      await checkPage(page, `subscription-cards-${mode}`);

      const phone = await profiles.open('/dashboard/settings/subscription', { as: admin, width: 390, theme: 'dark' });
      await phone.getByRole('list', { name: 'Saved cards' }).getByRole('listitem').filter({ hasText: `ending ${second.last4}` }).waitFor();
      await checkPage(phone, `subscription-phone-${mode}`);
      expect(profiles.pageErrors).toEqual([]);
      expect(profiles.consoleErrors).toEqual([]);
    }, 180_000);

    it("lists an invoice's adjustment lines (usage of the period before, recorded after its invoice) apart, at 1280 and 390 px", async () => {
      const db = spendgate.app.runtime.stores.sql.db;
      const build = (at: Date) =>
        createInvoiceBuildProcessor({ sql: spendgate.app.runtime.stores.sql, log: { info: () => {} }, invalidateKey: spendgate.app.runtime.stores.invalidateKey, usageEventRetentionDays: 400, now: () => at })();
      const byomRequests = (count: number, at: Date, prefix: string): NewUsageEvent[] =>
        Array.from({ length: count }, (_, index) =>
          usageEvent({ teamId: admin.teamId, groupId: null, keyId: null }, at, {
            request_id: `${prefix}-${mode}-${index}`,
            provider: 'openai-compatible',
            model: 'llama3.1:8b',
            cost_micros: 0n,
            price_version: null,
            key_kind: 'byom',
            billing_rule: 'byom-routing-fee',
            billed_micros: 4_000n,
            budget_spend_micros: 4_000n,
          }),
        );
      // Billing since two periods ago: the first period's requests, its invoice, two of its requests recorded late, the next invoice.
      const first = new Date(Math.floor((Date.now() - 70 * 86_400_000) / 86_400_000) * 86_400_000);
      const second = periodEndAfter(first, first);
      const third = periodEndAfter(first, second);
      const subscriptionId = (await current()).id as string;
      await startBillingPeriod(db, { subscriptionId, anchor: first, start: first, end: second });
      await insertUsageEvents(db, byomRequests(250, new Date(first.getTime() + 86_400_000), 'on-time'));
      await build(new Date(second.getTime() + 7_200_000));
      await insertUsageEvents(db, byomRequests(25, new Date(first.getTime() + 86_400_000), 'late'));
      await build(new Date(third.getTime() + 7_200_000));
      const [latest, earlier] = (await callApi(spendgate.url, 'GET', '/subscription/billing', { token: admin.token })).body.data as { number: string }[];

      for (const width of [1280, 390] as const) {
        const page = await profiles.open('/dashboard/settings/subscription', { as: admin, width });
        await page.getByRole('button', { name: `Show lines of ${latest!.number}` }).click();
        const lines = page.getByRole('table', { name: `Lines of invoice ${latest!.number}` });
        await lines.getByText('Adjustments: usage of earlier periods recorded after their invoices').waitFor();
        // 25 late requests × £0.004 = 10p, marked as adjusting the earlier invoice.
        const adjustment = lines.getByRole('row').filter({ hasText: `Adjusts ${earlier!.number}` });
        expect(await adjustment.textContent()).toContain('£0.10');
        await checkPage(page, `subscription-adjustments-${width}-${mode}`);
      }
      expect(profiles.pageErrors).toEqual([]);
      expect(profiles.consoleErrors).toEqual([]);
    }, 180_000);

    it('takes a newcomer from a plan on /pricing through registration to a paid checkout', async () => {
      const email = `pricing-${mode}@example.com`;
      const page = await profiles.open('/pricing');
      await page.locator('[data-plan="developers"]').getByRole('link').click();
      await page.waitForURL(/\/register\?plan=/);
      const register = page.getByRole('form', { name: 'Register' });
      await register.getByLabel('Full name').fill('Pat Pricing');
      await register.getByLabel('Work email').fill(email);
      await register.getByLabel('Password').fill('a long and unusual passphrase');
      await register.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
      await page.getByLabel('Verification code').fill(await mailedCode(spendgate.url, email));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL(`${spendgate.url}/dashboard`);
      const token = (await page.evaluate(() => localStorage.getItem('token')))!;
      // The plan chosen on /pricing, on a trial without a card.
      const trial = (await callApi(spendgate.url, 'GET', '/subscription/current', { token })).body.data;
      expect(trial).toMatchObject({ plan: 'developers', status: 'trialing', hasPaymentMethod: false });

      await page.getByRole('link', { name: 'Subscription' }).click();
      await page.getByText(trial.planName, { exact: true }).first().waitFor();
      await page.getByRole('button', { name: 'Choose a plan and pay' }).click();
      const modal = page.getByRole('dialog', { name: 'Choose a plan' });
      await modal.getByRole('radio', { name: /Developers/ }).check();
      await modal.getByRole('button', { name: 'Continue to checkout' }).click();
      await page.getByRole('heading', { name: 'Checkout (fake Stripe)' }).waitFor();
      await page.getByRole('button', { name: /^Save card|^Subscribe/ }).click();
      await page.waitForURL(/\/dashboard\/billing\/success\?session_id=/);
      await page.getByRole('heading', { name: 'No payment needed', level: 1 }).waitFor();
      expect((await callApi(spendgate.url, 'GET', '/subscription/current', { token })).body.data).toMatchObject({ plan: 'developers', status: 'trialing', hasPaymentMethod: true });
      expect(profiles.pageErrors).toEqual([]);
      expect(profiles.consoleErrors).toEqual([]);
    }, 180_000);
  });
});
