/**
 * The forecast panel of the overview in Debian's Chromium, in each run mode: a demo team
 * opened on the overview while its 90 days are still being recorded says it has no
 * forecast yet; once the last day lands the worker makes the first, and the panel, asking
 * again soon while it has none, shows it without a reload — the month's projection, the
 * track record, the chart and its table as GET /usage/cost/forecast answers them.
 * Screenshots at 1280 and 390 px, light and dark, with no sideways scroll and no critical
 * or serious axe-core violation.
 */
import path from 'node:path';
import { formatMoney, money } from '@spendgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, demoFilled, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium, SCREENSHOT_DIR } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const gbp = (micros: string) => formatMoney(money(BigInt(micros), 'GBP'));

describe.skipIf(!hasChromium)('the forecast panel', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let profiles: BrowserProfiles;
    let demoTeamId = '';
    const open = (options: { width?: number; theme?: 'light' | 'dark' } = {}) => profiles.open(`/dashboard?team=${demoTeamId}`, { ...options, as: admin });

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-forecast-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `forecast-browser-${mode}@example.com`, { name: 'Fay Forecast', plan: 'growth' });
      const demo = await callApi(spendgate.url, 'POST', '/demo/team', { token: admin.token });
      expect(demo.status, JSON.stringify(demo.body)).toBe(201);
      demoTeamId = demo.body.data.teamId;
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    it('shows the month’s forecast as the API stores it, in both themes and widths', async () => {
      const page = await open();
      const panel = page.getByRole('region', { name: /^Forecast/ });
      // Opened while the sample is still landing: no forecast yet (the last day asks for the first).
      await panel.getByText(/No forecast yet/).waitFor({ timeout: 60_000 });
      await demoFilled(spendgate, demoTeamId, admin.token);
      const stored = (await callApi(spendgate.url, 'GET', `/usage/cost/forecast?teamId=${demoTeamId}`, { token: admin.token })).body.data;
      expect(stored.forecast).not.toBeNull();
      // The same page, not reloaded: the panel asks again within seconds while it has none.
      await panel.getByText('Projected month-end').waitFor({ timeout: 60_000 });
      const projected = panel.getByText('Projected month-end').locator('xpath=..').getByRole('definition');
      expect(await projected.textContent()).toContain(gbp(stored.forecast.projectedMicros));
      expect(await panel.getByText('Spent so far').locator('xpath=..').getByRole('definition').textContent()).toBe(gbp(stored.forecast.actualMicros));
      expect(await panel.getByRole('img', { name: /Daily spend in/ }).count()).toBe(1);
      if (stored.backtest) await panel.getByText(/over the last \d+ weeks/).waitFor();
      await panel.getByText('The forecast as a table').click();
      expect(await panel.getByRole('row').count()).toBe(stored.forecast.days.length + 1);
      await page.context().close();

      for (const width of [1280, 390]) {
        for (const theme of ['light', 'dark'] as const) {
          const shot = await open({ width, theme });
          const shown = shot.getByRole('region', { name: /^Forecast/ });
          await shown.getByText('Projected month-end').waitFor({ timeout: 30_000 });
          await checkPage(shot, `forecast-${mode}-${theme}-${width}`);
          // The panel alone, to look at closely.
          await shown.screenshot({ path: path.join(SCREENSHOT_DIR, `forecast-panel-${mode}-${theme}-${width}.png`) });
          await shot.context().close();
        }
      }
    }, 420_000);

  });
});
