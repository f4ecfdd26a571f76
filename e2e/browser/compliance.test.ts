/**
 * Compliance readiness in Debian's Chromium against a whole Spendgate, in each run mode. An
 * Enterprise team whose agent pushed the real H200 capture generates AI advisor tips: the
 * idle-GPU tip says what python3's held memory and the idle time cost (£2.916667 this week
 * at £3.50 an hour) with its idle periods as evidence. On the Team screen its admin sets the
 * Data retention, the audit log's included (a value out of bounds is refused on its field before anything is sent;
 * the saved values are what the API then answers) and downloads the access review as a CSV
 * file; a team on the free trial is told the access review is on the Enterprise plan.
 * Screenshots at 1280 and 390 px in light and dark, no sideways scroll, no critical or
 * serious axe-core violation.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushCaptureAsAgent } from '../support/gpu-capture.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

describe.skipIf(!hasChromium)('compliance readiness', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let trial: TeamAdmin;
    let profiles: BrowserProfiles;

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-compliance-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `compliance-${mode}@example.com`, { name: 'Cora Compliance', team: { name: 'Training fleet', description: '' }, plan: 'enterprise' });
      trial = await signUpTeamAdmin(spendgate.url, `compliance-trial-${mode}@example.com`, { name: 'Tom Trial', team: { name: 'Small lab', description: '' } });
      await pushCaptureAsAgent(spendgate.url, admin.token, admin.teamId);
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    it('shows the idle-GPU tip with what it wasted and its idle periods', async () => {
      const page = await profiles.open(`/dashboard/advisor?team=${admin.teamId}`, { as: admin });
      await page.getByRole('button', { name: 'Generate tips' }).click();
      const title = 'GPU 0 on host gpu-node-1 held 38.4 GiB at 0 % for 10 minutes, £2.916667 wasted this week';
      const tip = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) });
      await tip.waitFor();
      expect(await tip.textContent()).toContain('£12.500001 a month');
      expect(await tip.textContent()).toContain('Stop python3 (pid 607) on host gpu-node-1');
      await tip.getByText('Evidence').click();
      const periods = tip.getByRole('region', { name: 'Idle periods of GPU 0 on host gpu-node-1' });
      const held = periods.getByRole('row').filter({ hasText: 'python3 (pid 607)' });
      await held.waitFor();
      expect(await held.textContent()).toContain('£0.583333');
      expect(await periods.getByRole('row').count()).toBe(4); // the header and the three idle periods
      for (const width of [1280, 390]) {
        for (const theme of ['light', 'dark'] as const) {
          const shot = await profiles.open(`/dashboard/advisor?team=${admin.teamId}`, { as: admin, width, theme });
          const shown = shot.getByRole('listitem').filter({ has: shot.getByRole('heading', { name: title }) });
          await shown.getByText('Evidence').click();
          await shown.getByRole('region', { name: 'Idle periods of GPU 0 on host gpu-node-1' }).waitFor();
          await checkPage(shot, `compliance-advisor-gpu-${mode}-${width}-${theme}`);
        }
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 180_000);

    it('sets the data retention and downloads the access review on the Team screen', async () => {
      const page = await profiles.open(`/dashboard/settings/team?team=${admin.teamId}`, { as: admin });
      const retention = page.getByRole('form', { name: 'Data retention' });
      await retention.getByLabel('Keep raw usage events for (days)').fill('30');
      await retention.getByRole('button', { name: 'Save retention' }).click();
      await retention.getByText('Enter a whole number of days from 90 to 400, or leave it empty').waitFor();
      await retention.getByLabel('Keep raw usage events for (days)').fill('120');
      await retention.getByLabel('Keep raw GPU samples for (hours)').fill('24');
      await retention.getByLabel('Keep the audit log for (days)').fill('730');
      await retention.getByRole('button', { name: 'Save retention' }).click();
      await retention.getByText('Retention saved.').waitFor();
      await retention.getByText('Now: 120 days.', { exact: false }).waitFor();
      const saved = (await callApi(spendgate.url, 'GET', `/teams/${admin.teamId}/retention`, { token: admin.token })).body.data;
      expect(saved).toMatchObject({ usageEvents: { days: 120 }, promptCaptures: { days: null }, gpuSamples: { hours: 24 }, auditLog: { days: 730 } });

      const review = page.getByRole('region', { name: 'Access review' });
      const [download] = await Promise.all([page.waitForEvent('download'), review.getByRole('button', { name: 'Export access review (CSV)' }).click()]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`^access-review-${admin.teamId}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
      const lines = (await readFile((await download.path())!, 'utf8')).trimEnd().split('\n');
      expect(lines[0]).toBe('email,name,scope,groupId,groupName,role,joinedAt,lastSignedInAt');
      expect(lines[1]).toMatch(new RegExp(`^compliance-${mode}@example\\.com,Cora Compliance,team,,,ADMIN,\\d{4}-[^,]+Z,\\d{4}-[^,]+Z$`));
      await review.getByText(`Saved ${download.suggestedFilename()}.`).waitFor();

      for (const width of [1280, 390]) {
        for (const theme of ['light', 'dark'] as const) {
          const shot = await profiles.open(`/dashboard/settings/team?team=${admin.teamId}`, { as: admin, width, theme });
          await shot.getByRole('form', { name: 'Data retention' }).getByText('Now: 120 days.', { exact: false }).waitFor();
          await shot.getByRole('button', { name: 'Export access review (CSV)' }).waitFor();
          await checkPage(shot, `compliance-team-${mode}-${width}-${theme}`);
        }
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 180_000);

    it('tells a team on the free trial that the access review is on the Enterprise plan', async () => {
      for (const width of [1280, 390]) {
        const page = await profiles.open(`/dashboard/settings/team?team=${trial.teamId}`, { as: trial, width });
        const review = page.getByRole('region', { name: 'Access review' });
        await review.getByText('ISO/SOC2 readiness (the access review) is part of the Enterprise plan; the Free Trial plan does not include it.').waitFor();
        await review.getByRole('link', { name: 'Contact Sales' }).waitFor();
        await checkPage(page, `compliance-team-trial-${mode}-${width}-light`);
      }
      expect(profiles.pageErrors).toEqual([]);
      expect(profiles.consoleErrors).toEqual([]);
    }, 120_000);
  });
});
