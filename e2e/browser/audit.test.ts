/**
 * The audit log screen in Debian's Chromium against a whole Spendgate, in each run mode:
 * an Enterprise team's admin changes a budget, the team and a connection through the API,
 * then reads the log — who, from where, and each budget field before → after, its amount in
 * pounds with the exact micro-units in the title — narrows it to
 * one action, verifies the hash chain (intact, then broken at the row edited by SQL), and
 * downloads the filtered log as CSV and JSON. A team on the free trial sees the
 * plan-required message. Screenshots at 1280 and 390 px (where each entry is a card of
 * labelled lines: neither the page nor the entries scroll sideways), no critical or serious
 * axe-core violation.
 */
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

describe.skipIf(!hasChromium)('the audit log screen', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let trial: TeamAdmin;
    let profiles: BrowserProfiles;

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-audit-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `audit-${mode}@example.com`, { name: 'Ada Auditor', team: { name: 'Compliance', description: '' }, plan: 'enterprise' });
      trial = await signUpTeamAdmin(spendgate.url, `audit-trial-${mode}@example.com`, { name: 'Tom Trial', team: { name: 'Small lab', description: '' } });
      const api = async (method: string, route: string, body?: unknown) => {
        const answer = await callApi(spendgate.url, method, route, { token: admin.token, body });
        expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
        return answer.body.data;
      };
      const budget = await api('POST', '/budgets', { scope: 'team', scopeId: admin.teamId, amount: '100', window: 'month', mode: 'hard' });
      await api('PATCH', `/budgets/${budget.id}?teamId=${admin.teamId}`, { amount: '250', mode: 'soft' });
      await api('PATCH', `/team/${admin.teamId}`, { name: 'Compliance & Risk' });
      await api('POST', '/provider/connections', { teamId: admin.teamId, provider: 'openai', name: 'Main', apiKey: 'sk-audit-secret-0123456789abcdef' });
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    it('shows who changed what from where, filters, verifies the chain and exports it', async () => {
      const page = await profiles.open('/dashboard/settings/audit', { as: admin });
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      const log = page.getByRole('region', { name: 'Entries', exact: true });
      const budgetRow = log.getByRole('row').filter({ hasText: 'budget.updated' });
      await budgetRow.waitFor();
      const budgetText = await budgetRow.textContent();
      expect(budgetText).toContain(`audit-${mode}@example.com`);
      expect(budgetText).toContain('127.0.0.1');
      expect(budgetText).toContain('amountMicros £100.00 → £250.00');
      expect(await budgetRow.locator('del data').first().getAttribute('title')).toBe('100000000 micro-units');
      expect(await budgetRow.locator('ins data').first().getAttribute('title')).toBe('250000000 micro-units');
      expect(budgetText).toContain('mode hard → soft');
      expect(await log.getByRole('row').filter({ hasText: 'team.updated' }).textContent()).toContain('name Compliance → Compliance & Risk');
      expect(await log.textContent()).not.toContain('sk-audit-secret');
      await checkPage(page, `audit-${mode}-1280-light`);

      await log.getByLabel('Action').fill('budget.updated');
      await log.getByRole('button', { name: 'Apply filters' }).click();
      await log.getByText('1 entry, newest first').waitFor();
      expect(await log.getByRole('row').count()).toBe(2);

      const chain = page.getByRole('region', { name: 'Hash chain' });
      await chain.getByRole('button', { name: 'Verify chain' }).click();
      await chain.getByText(/^Chain verified: \d+ entries intact, up to #\d+\.$/).waitFor();

      for (const [button, format] of [
        ['Export CSV', 'csv'],
        ['Export JSON', 'json'],
      ] as const) {
        const [download] = await Promise.all([page.waitForEvent('download'), chain.getByRole('button', { name: button }).click()]);
        expect(download.suggestedFilename()).toMatch(new RegExp(`^audit-${admin.teamId}-\\d{4}-\\d{2}-\\d{2}\\.${format}$`));
        const file = await readFile((await download.path())!, 'utf8');
        if (format === 'csv') {
          const lines = file.trim().split('\r\n');
          expect(lines[0]).toBe('seq,created_at,actor,actor_user_id,ip,user_agent,action,target_type,target_id,details,before,after,hash');
          expect(lines.length).toBe(2);
          expect(lines[1]).toContain('budget.updated');
        } else {
          const entries = JSON.parse(file) as { action: string; before: unknown; after: unknown }[];
          expect(entries.map((entry) => entry.action)).toEqual(['budget.updated']);
          expect(entries[0]).toMatchObject({ before: { amountMicros: '100000000', mode: 'hard' }, after: { amountMicros: '250000000', mode: 'soft' } });
        }
      }

      // A row edited behind the application's back breaks the chain at that row.
      const { db } = spendgate.app.runtime.stores.sql;
      const edited = await db.selectFrom('audit_log').select('seq').where('team_id', '=', admin.teamId).where('action', '=', 'budget.updated').executeTakeFirstOrThrow();
      await sql`update audit_log set after = jsonb_set(after, '{mode}', '"hard"') where team_id = ${admin.teamId} and seq = ${edited.seq}`.execute(db);
      await chain.getByRole('button', { name: 'Verify chain' }).click();
      await chain.getByText(`Chain broken at entry #${edited.seq}: it was edited after it was written.`).waitFor();

      for (const width of [1280, 390]) {
        const shot = await profiles.open('/dashboard/settings/audit', { as: admin, width });
        await shot.getByRole('region', { name: 'Entries', exact: true }).getByRole('row').filter({ hasText: 'budget.updated' }).waitFor();
        const entries = shot.getByRole('region', { name: 'Audit entries, newest first' });
        expect(await entries.evaluate((element) => element.scrollWidth - element.clientWidth), `entries scroll sideways at ${width} px`).toBeLessThanOrEqual(0);
        await checkPage(shot, `audit-${mode}-${width}-light`);
      }
      const dark = await profiles.open('/dashboard/settings/audit', { as: admin, width: 390, theme: 'dark' });
      await dark.getByRole('region', { name: 'Entries', exact: true }).getByRole('row').filter({ hasText: 'budget.updated' }).waitFor();
      await checkPage(dark, `audit-${mode}-390-dark`);
      expect(profiles.pageErrors).toEqual([]);
    }, 180_000);

    it('tells a team on the free trial that the audit log is on the Enterprise plan', async () => {
      for (const width of [1280, 390]) {
        const page = await profiles.open('/dashboard/settings/audit', { as: trial, width });
        await page.getByRole('heading', { name: 'The audit log is on the Enterprise plan' }).waitFor();
        await page.getByText('The audit log is part of the Enterprise plan; the Free Trial plan records every change but does not include reading, exporting or verifying it').waitFor();
        await checkPage(page, `audit-plan-required-${mode}-${width}-light`);
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 120_000);
  });
});
