/**
 * The GPU screen in Debian's Chromium against a whole Spendgate, in each run mode: an
 * Enterprise team whose agent pushed the real H200 capture (slowed 60 times, a 5-minute
 * window, H200s at £3.50 an hour) sees the idle list with python3 holding 38.4 GiB for
 * £0.583333, £2.916667 wasted in all, the heat map and its Show data table, and issues an
 * ingest key shown once; a team on the free trial sees the plan-required message.
 * Screenshots at 1280 and 390 px in light and dark, no sideways scroll, no critical or
 * serious axe-core violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushCaptureAsAgent } from '../support/gpu-capture.ts';
import { type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

describe.skipIf(!hasChromium)('the GPU screen', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let trial: TeamAdmin;
    let profiles: BrowserProfiles;

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-gpu-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `gpu-${mode}@example.com`, { name: 'Gita Platform', team: { name: 'Training fleet', description: '' }, plan: 'enterprise' });
      trial = await signUpTeamAdmin(spendgate.url, `gpu-trial-${mode}@example.com`, { name: 'Tom Trial', team: { name: 'Small lab', description: '' } });

      await pushCaptureAsAgent(spendgate.url, admin.token, admin.teamId);
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    it('shows the fleet, the idle GPU holding memory and what it cost, and issues an ingest key', async () => {
      const page = await profiles.open('/dashboard/gpu', { as: admin });
      await page.getByRole('heading', { name: 'GPU infrastructure', level: 1 }).waitFor();
      const idle = page.getByRole('region', { name: 'Idle GPUs' });
      const held = idle.getByRole('row').filter({ hasText: 'python3 (pid 607)' });
      await held.waitFor();
      expect(await held.textContent()).toContain('38.4 GiB');
      expect(await held.textContent()).toContain('£0.583333');
      await page.getByText('£2.916667 in this range').waitFor();
      const heatmap = page.getByRole('region', { name: 'GPUs by hour' });
      await heatmap.getByRole('img', { name: 'Mean utilisation of 1 GPUs per hour' }).locator('svg').first().waitFor();
      await heatmap.getByText('Show data').click();
      expect(await heatmap.getByRole('row').count()).toBe(3); // the header and the replay's two hours
      await checkPage(page, `gpu-${mode}-1280-light`);

      const settings = page.getByRole('region', { name: 'Settings' });
      await settings.getByLabel('Key name').fill('inference agents');
      await settings.getByRole('button', { name: 'Issue key' }).click();
      const issued = settings.getByLabel('Ingest key inference agents (shown once)', { exact: true });
      await issued.waitFor();
      expect(await issued.inputValue()).toMatch(/^sg_gpu_[0-9A-Za-z]{49}$/);
      await settings.getByRole('button', { name: 'Revoke inference agents' }).waitFor();

      for (const width of [1280, 390]) {
        for (const theme of ['light', 'dark'] as const) {
          const shot = await profiles.open('/dashboard/gpu', { as: admin, width, theme });
          await shot.getByRole('region', { name: 'Idle GPUs' }).getByText('python3 (pid 607)').waitFor();
          await shot.getByRole('region', { name: 'GPUs by hour' }).locator('svg').first().waitFor();
          // The £ wasted table fits its panel: its £ column is in view without scrolling sideways.
          const wasteTable = shot.getByRole('region', { name: '£ wasted by cluster' });
          await wasteTable.getByText('£2.916667').waitFor();
          await checkPage(shot, `gpu-${mode}-${width}-${theme}`);
          expect(await wasteTable.evaluate((table) => table.scrollWidth - table.clientWidth), `£ wasted table at ${width} px`).toBeLessThanOrEqual(0);
        }
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 180_000);

    it('tells a team on the free trial that GPU analytics is on the Enterprise plan', async () => {
      for (const width of [1280, 390]) {
        const page = await profiles.open('/dashboard/gpu', { as: trial, width });
        await page.getByRole('heading', { name: 'GPU analytics is on the Enterprise plan' }).waitFor();
        await page.getByText('GPU infrastructure analytics is part of the Enterprise plan; the Free Trial plan does not include it').waitFor();
        await checkPage(page, `gpu-plan-required-${mode}-${width}-light`);
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 120_000);
  });
});
