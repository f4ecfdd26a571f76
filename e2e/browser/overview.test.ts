/**
 * The overview dashboard as a newcomer meets it, in Debian's Chromium against a whole
 * Spendgate, in each run mode: an empty team is offered demo data; "Load demo data"
 * makes the user's demo team and switches to it at once, showing how many of its 90
 * days have been recorded (through the meter, in the background) while the panels fill
 * in without a reload; once it is all recorded, the panels' figures equal the usage
 * calls' answers (totals, tokens by category, top keys, the request log linking each
 * request to its detail); filters put in the URL reach every panel; Export downloads the
 * CSV and the FOCUS file with the session's token. The forecast panel shows the month the
 * API answers once the worker has forecast the new team. A team member who is not its
 * admin sees their group's usage (as the API answers it to them), not a refusal.
 * Screenshots of the empty, the filling and the demo overview at 1280 and 390 px, light
 * and dark (and the member's), with no sideways scroll and no critical or serious
 * axe-core violation.
 */
import { readFile, } from 'node:fs/promises';
import { type Currency, decimalToMicros, formatMoney, money } from '@spendgate/core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, demoFilled, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, invitationToken, signUpTeamAdmin, signUpUser, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const WIDTHS = [1280, 390] as const;
const THEMES = ['light', 'dark'] as const;

/** An API amount as the console writes it: exact, its currency's symbol. */
const amount = (decimal: string, currency: Currency) => formatMoney(money(decimalToMicros(decimal)!, currency));
const count = (value: number) => value.toLocaleString('en-GB');
const gbpMicros = (micros: string) => formatMoney(money(BigInt(micros), 'GBP'));

describe.skipIf(!hasChromium)('the overview dashboard', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let profiles: BrowserProfiles;
    const api = async (route: string, as: { token: string } = admin) => {
      const answer = await callApi(spendgate.url, 'GET', route, { token: as.token });
      expect(answer.status, `${route}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body.data;
    };
    const open = (route: string, options: { width?: number; theme?: 'light' | 'dark' } = {}) => profiles.open(route, { ...options, as: admin });
    /** The figure a panel shows under `term`. */
    const figure = (page: Page, panel: string, term: string) =>
      page
        .getByRole('region', { name: panel })
        .locator('.figures__item')
        .filter({ has: page.getByRole('term').filter({ hasText: new RegExp(`^${term}$`) }) })
        .getByRole('definition')
        .textContent();

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-overview-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      // Growth: 90 days of look-back, so last month and the demo's whole range show.
      admin = await signUpTeamAdmin(spendgate.url, `overview-${mode}@example.com`, { name: 'Olga Overview', plan: 'growth' });
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    it('offers an empty team demo data, then shows the demo team’s figures as the API answers them', async () => {
      for (const width of WIDTHS) {
        for (const theme of THEMES) {
          const page = await open('/dashboard', { width, theme });
          await page.getByRole('heading', { name: 'No usage yet' }).waitFor();
          await checkPage(page, `overview-empty-${mode}-${theme}-${width}`);
          await page.context().close();
        }
      }

      const page = await open('/dashboard');
      await page.getByRole('button', { name: 'Load demo data' }).click();
      // The team is made at once; its usage is recorded in the background, a day at a time, and the page shows how far.
      await page.waitForURL((url) => url.searchParams.has('team') && url.searchParams.get('team') !== admin.teamId, { timeout: 30_000 });
      const demoTeamId = new URL(page.url()).searchParams.get('team')!;
      const progress = page.getByRole('progressbar', { name: 'Loading demo data' });
      await progress.waitFor();
      expect(await page.getByRole('button', { name: 'Load demo data' }).count()).toBe(0);
      for (const [width, theme] of [[1280, 'light'], [390, 'dark']] as const) {
        const filling = await open(`/dashboard?team=${demoTeamId}`, { width, theme });
        await filling.getByRole('progressbar', { name: 'Loading demo data' }).waitFor();
        await checkPage(filling, `overview-demo-filling-${mode}-${theme}-${width}`);
        await filling.context().close();
      }

      // The panels appear by themselves as the days land, beside the progress; once all are in, the progress goes and, reloaded, every figure is of the whole recording.
      await page.getByRole('heading', { name: 'Usage in this range' }).waitFor({ timeout: 60_000 });
      await demoFilled(spendgate, demoTeamId, admin.token);
      await progress.waitFor({ state: 'detached', timeout: 20_000 });
      await page.reload();
      const totals = await api(`/usage/group/specific?teamId=${demoTeamId}`);
      // The last 30 days (the default range) of the 90.
      expect(totals.requests).toBeGreaterThan(1_000);
      const spend = page.getByRole('region', { name: 'Usage in this range' });
      await spend.getByText(amount(totals.totalCost, 'GBP'), { exact: true }).waitFor();
      expect(await figure(page, 'Usage in this range', 'Spend')).toBe(amount(totals.totalCost, 'GBP'));
      expect(await figure(page, 'Usage in this range', 'List price')).toBe(amount(totals.totalCostUsd, 'USD'));
      expect(await figure(page, 'Usage in this range', 'Requests')).toBe(count(totals.requests));
      expect(await figure(page, 'Usage in this range', 'Tokens')).toBe(count(totals.totalTokens));

      // Tokens by category, from the same answer, in the chart's data table.
      const tokens = page.getByRole('region', { name: 'Tokens by category' });
      await tokens.getByText('Show data').click();
      for (const [name, field] of [
        ['Input', 'inputTokens'],
        ['Cached read', 'cachedReadTokens'],
        ['Output', 'outputTokens'],
      ] as const) {
        await tokens.getByRole('row', { name: `${name} ${count(totals[field])}`, exact: true }).waitFor();
      }

      // Top keys: each of the demo's keys, as the distribution answers it, largest first.
      const byKey = await api(`/usage/distribution/group?teamId=${demoTeamId}&by=key`);
      expect(byKey.items).toHaveLength(6);
      const keys = page.getByRole('region', { name: 'Top keys' });
      await keys.getByText('Show data').click();
      const rows = keys.getByRole('row');
      await expect.poll(() => rows.count()).toBe(byKey.items.length + 1);
      const top = byKey.items[0] as { label: string; cost: string; requests: number };
      expect((await rows.nth(1).textContent())?.startsWith(`${top.label}${amount(top.cost, 'GBP')}`)).toBe(true);
      expect(await rows.nth(1).textContent()).toContain(count(top.requests));

      // The request log: newest first, as the API lists them, each linking to its detail.
      const log = await api(`/usage/requests?teamId=${demoTeamId}&limit=20`);
      const firstLink = page.getByRole('region', { name: 'Requests' }).getByRole('link').first();
      expect(await firstLink.getAttribute('href')).toBe(`/dashboard/requests/${encodeURIComponent(log.items[0].requestId)}`);

      // The forecast: a demo team's first is made once its last day lands.
      const forecastPanel = (shown: Page) => shown.getByRole('region', { name: /^Forecast/ });
      await forecastPanel(page).waitFor();
      const { forecast } = await api(`/usage/cost/forecast?teamId=${demoTeamId}`);
      expect(forecast).not.toBeNull();
      const forecastFigure = (term: string) => forecastPanel(page).locator('.forecast-figures > div').filter({ has: page.getByRole('term').filter({ hasText: term }) }).getByRole('definition');
      await forecastFigure('Spent so far').waitFor();
      expect(await forecastFigure('Spent so far').textContent()).toBe(gbpMicros(forecast.actualMicros));
      expect((await forecastFigure('Projected month-end').textContent())?.startsWith(`${gbpMicros(forecast.projectedMicros)}80 %: ${gbpMicros(forecast.lower80Micros)}`)).toBe(true);

      // Screenshots of the demo overview, both widths and themes, its charts drawn.
      for (const width of WIDTHS) {
        for (const theme of THEMES) {
          const shown = await open(`/dashboard?team=${demoTeamId}`, { width, theme });
          await shown.getByRole('region', { name: 'Spend over time' }).locator('figure.chart svg text').first().waitFor({ state: 'attached' });
          await shown.getByRole('region', { name: 'Top keys' }).locator('figure.chart svg text').first().waitFor({ state: 'attached' });
          await forecastPanel(shown).locator('figure.chart svg text').first().waitFor({ state: 'attached' });
          await shown.getByRole('region', { name: 'Requests' }).getByRole('link').first().waitFor();
          await checkPage(shown, `overview-demo-${mode}-${theme}-${width}`);
          await shown.context().close();
        }
      }

      // Filters in the URL reach every panel: a provider and a range.
      const byProvider = await api(`/usage/distribution/group?teamId=${demoTeamId}&by=provider`);
      const provider = (byProvider.items as { key: string }[]).find((item) => item.key === 'anthropic')!.key;
      const range = `startDate=${totals.startDate}&endDate=${totals.endDate}`;
      const filtered = await api(`/usage/group/specific?teamId=${demoTeamId}&provider=${provider}&${range}`);
      expect(filtered.requests).toBeLessThan(totals.requests);
      const narrowed = await open(`/dashboard?team=${demoTeamId}&provider=${provider}&start=${totals.startDate}&end=${totals.endDate}`);
      await narrowed.getByRole('region', { name: 'Usage in this range' }).getByText(amount(filtered.totalCost, 'GBP'), { exact: true }).waitFor();
      expect(await figure(narrowed, 'Usage in this range', 'Requests')).toBe(count(filtered.requests));
      expect(await narrowed.getByLabel('Provider', { exact: true }).inputValue()).toBe(provider);
      const models = await api(`/usage/distribution/group?teamId=${demoTeamId}&by=model&provider=${provider}&${range}`);
      const modelPanel = narrowed.getByRole('region', { name: 'Spend by model' });
      await modelPanel.getByText('Show data').click();
      const modelRows = modelPanel.getByRole('row');
      await expect.poll(() => modelRows.count()).toBe(models.items.length + 1);
      // Changing a filter on the page writes it to the URL.
      await narrowed.getByLabel('Granularity', { exact: true }).selectOption('hour');
      await narrowed.waitForURL((url) => url.searchParams.get('granularity') === 'hour' && url.searchParams.get('provider') === provider);

      // Export: the CSV and the FOCUS file of the filtered range, downloaded with the session's token.
      for (const [button, header] of [
        ['Export CSV', /^date,/i],
        ['Export FOCUS', /BilledCost/],
      ] as const) {
        const [download] = await Promise.all([narrowed.waitForEvent('download'), narrowed.getByRole('button', { name: button }).click()]);
        expect(download.suggestedFilename()).toMatch(/\.csv$/);
        const file = await readFile((await download.path())!, 'utf8');
        const lines = file.trim().split('\n');
        expect(lines[0]).toMatch(header);
        expect(lines.length).toBeGreaterThan(1);
        await narrowed.getByText(`Downloaded ${download.suggestedFilename()}.`).waitFor();
      }

      // A team member who is not its admin, an observer of one of the demo's groups: their group's usage, not the team's refusal.
      const member = await signUpUser(spendgate.url, `overview-member-${mode}@example.com`, { name: 'Mo Member' });
      const watched = (await api(`/synthetic-group?teamId=${demoTeamId}`))[1] as { id: string; name: string };
      const invited = await callApi(spendgate.url, 'POST', `/synthetic-group/${watched.id}/invite`, { token: admin.token, body: { email: member.email, role: 'OBSERVER' } });
      expect(invited.status, JSON.stringify(invited.body)).toBe(201);
      const accepted = await callApi(spendgate.url, 'POST', '/synthetic-group/accept-invite', { token: member.token, body: { token: await invitationToken(spendgate.url, member.email) } });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect((await callApi(spendgate.url, 'GET', `/usage/group/specific?teamId=${demoTeamId}`, { token: member.token })).status).toBe(403);
      const theirs = await api(`/usage/group/specific?teamId=${demoTeamId}&groupId=${watched.id}`, member);
      expect(theirs.requests).toBeLessThan(totals.requests);
      for (const [width, theme] of [
        [1280, 'light'],
        [390, 'dark'],
      ] as const) {
        const seen = await profiles.open(`/dashboard?team=${demoTeamId}`, { width, theme, as: member });
        await seen.getByRole('region', { name: 'Usage in this range' }).getByText(amount(theirs.totalCost, 'GBP'), { exact: true }).waitFor();
        expect(await figure(seen, 'Usage in this range', 'Requests')).toBe(count(theirs.requests));
        expect(await seen.getByLabel('Group', { exact: true }).inputValue()).toBe(watched.id);
        expect(await seen.getByLabel('Group', { exact: true }).locator('option').allTextContents()).toEqual([watched.name]);
        await forecastPanel(seen).waitFor();
        await seen.getByRole('region', { name: 'Requests' }).getByRole('link').first().waitFor();
        expect(await seen.getByText(/Only team admins/).count()).toBe(0);
        await checkPage(seen, `overview-member-${mode}-${theme}-${width}`);
        await seen.context().close();
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 600_000);
  });
});
