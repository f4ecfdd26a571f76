/**
 * The alerts screen as a team admin uses it, in Debian's Chromium against a whole
 * Spendgate with a real SMTP server and the Slack fake, in each run mode: add an e-mail
 * channel and a Slack one (a private webhook address refused with the server's reason),
 * send a test and watch its delivery turn Sent, see a budget's threshold alert with its
 * deliveries, and choose a weekly spend digest and have a sample mailed; screenshots at 1280 and 390 px in light and dark with no sideways scroll and
 * no critical or serious axe-core violation.
 */
import { insertUsageEvents } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MailSink, startMailSink } from '../api/support.ts';
import { type FakeSlackWebhook, startFakeSlackWebhook } from '../fakes/slack-webhook.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { usageEvent } from '../support/usage-events.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

describe.skipIf(!hasChromium)('the alerts screen', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let mail: MailSink;
    let slack: FakeSlackWebhook;
    let admin: TeamAdmin;
    let profiles: BrowserProfiles;

    beforeAll(async () => {
      [mail, slack] = await Promise.all([startMailSink(), startFakeSlackWebhook()]);
      spendgate = await startSpendgate(mode, `browser-alerts-${mode}`, { consoleDir: suite.consoleDir, env: { SMTP_URL: mail.url } });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `alerts-${mode}@example.com`, { name: 'Fiona Finance', team: { name: 'Platform', description: '' }, plan: 'enterprise' });
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
      await Promise.all([mail?.close(), slack?.close()]);
    });

    it('adds channels, sends a test that arrives, and shows each alert with its deliveries', async () => {
      const page = await profiles.open('/dashboard/alerts', { as: admin });
      await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
      await page.getByText('No channel yet', { exact: false }).waitFor();
      await page.getByText('No alert yet', { exact: false }).waitFor();
      await checkPage(page, `alerts-empty-${mode}-1280-light`);

      await page.getByRole('button', { name: 'Add channel' }).click();
      const form = page.getByRole('form', { name: 'Add an alert channel' });
      await form.getByLabel('Name').fill('Finance');
      await form.getByLabel('Addresses').fill('fin@example.com');
      await form.getByRole('button', { name: 'Add channel' }).click();
      await page.getByRole('listitem').filter({ hasText: 'fin@example.com' }).waitFor();

      await page.getByRole('button', { name: 'Add channel' }).click();
      await form.getByLabel('Kind').selectOption('slack');
      await form.getByLabel('Name').fill('Ops');
      await form.getByLabel('Webhook URL').fill('http://10.1.2.3/hook');
      await form.getByRole('button', { name: 'Add channel' }).click();
      await form.getByText('webhookUrl: must not point to a private, loopback or link-local address').waitFor();
      await checkPage(page, `alerts-form-${mode}-1280-light`);
      await form.getByLabel('Webhook URL').fill(slack.webhookUrl);
      await form.getByRole('button', { name: 'Add channel' }).click();
      await page.getByText(`webhook at ${new URL(slack.webhookUrl).host}`).waitFor();

      await page.getByRole('button', { name: 'Send test to Finance' }).click();
      const history = page.getByRole('region', { name: 'History' });
      await history.getByRole('heading', { name: 'Spendgate test alert' }).waitFor();
      await history.getByText('Sent', { exact: true }).waitFor({ timeout: 20_000 });
      expect((await mail.next('fin@example.com')).subject).toBe('Spendgate test alert');

      // A group budget's 50 % threshold, reached by recorded usage, fires to both channels.
      const group = await callApi(spendgate.url, 'POST', '/synthetic-group', { token: admin.token, body: { name: 'Research', description: '', teamId: admin.teamId } });
      const keyId = crypto.randomUUID();
      const db = spendgate.app.runtime.stores.sql.db;
      await db
        .insertInto('issued_keys')
        .values({ id: keyId, team_id: admin.teamId, group_id: group.body.data.id, connection_id: null, kind: 'optimised', name: 'research-prod', key_hash: `hash-${keyId}`, key_prefix: 'sg_live_abcde', created_by: admin.userId, settings: '{}' })
        .execute();
      const budget = await callApi(spendgate.url, 'POST', '/budgets', { token: admin.token, body: { scope: 'group', scopeId: group.body.data.id, amount: '0.01', window: 'month', mode: 'hard', alertAt: [50] } });
      expect(budget.status).toBe(201);
      await insertUsageEvents(db, [usageEvent({ teamId: admin.teamId, groupId: group.body.data.id, keyId }, 0, { budget_spend_micros: 6_000n })]);
      await spendgate.app.runtime.stores.queue.enqueue('alert-check', {}, { jobId: 'browser-check' });
      // The history refreshes itself only while a delivery is under way: reload, as a person would.
      const thresholdHeading = page.getByRole('heading', { name: 'Research has spent 60% of its £0.01 monthly budget' });
      await expect
        .poll(
          async () => {
            await page.reload();
            await history.getByRole('heading', { name: 'Spendgate test alert' }).waitFor();
            return thresholdHeading.count();
          },
          { timeout: 30_000, interval: 1_000 },
        )
        .toBe(1);
      const threshold = history.getByRole('listitem').filter({ has: thresholdHeading });
      await expect.poll(() => threshold.getByText('Sent', { exact: true }).count(), { timeout: 20_000 }).toBe(2);

      // The admin's own spend digest: chosen here, saved at once, with when the next one goes (a Monday, 08:00 in the team's zone).
      const digest = page.getByRole('region', { name: 'Spend digest' });
      await digest.getByText('No digest is sent to you.').waitFor();
      await digest.getByLabel('Send me').selectOption('weekly');
      await digest.getByRole('status').getByText(/^Next: Mon.* 08:00 \(UTC\), for /).waitFor();
      expect((await callApi(spendgate.url, 'GET', `/alerts/spend-digest?teamId=${admin.teamId}`, { token: admin.token })).body.data.frequency).toBe('weekly');
      const seen = mail.countTo(admin.email);
      await digest.getByRole('button', { name: 'Send me a sample now' }).click();
      await digest.getByText(`is on its way to ${admin.email}.`).waitFor();
      expect((await mail.next(admin.email, seen)).subject).toMatch(/^Sample: Platform: £/);
      await checkPage(page, `alerts-digest-sample-${mode}-1280-light`);

      for (const width of [1280, 390]) {
        for (const theme of ['light', 'dark'] as const) {
          const shot = await profiles.open('/dashboard/alerts', { as: admin, width, theme });
          await shot.getByRole('heading', { name: 'Research has spent 60% of its £0.01 monthly budget' }).waitFor();
          await checkPage(shot, `alerts-${mode}-${width}-${theme}`);
        }
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 180_000);
  });
});
