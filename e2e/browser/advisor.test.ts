/**
 * The AI advisor's tips screen in Debian's Chromium against a whole Spendgate, in each run
 * mode: a team admin whose team has a busy BYOK key on gpt-4o and a key idle for 40 days
 * opens /dashboard/advisor (no tips yet), generates tips — a cheaper model and the idle
 * key, charged £0.03 each on Growth — reads each one's saving, confidence, price and
 * evidence, applies the model tip in one click (the screen says what changed: the key now
 * sends gpt-5-mini for gpt-4o, as its settings read back) and the idle key's (the key is
 * revoked, the tip shows Applied and its realised saving); the wording setting, off by
 * default, is turned on through the team's connection (the fake OpenAI), shows on the Team
 * screen too, words the next run's tips, and its calls appear in the overview's request log
 * as "AI advisor wording". On a demo team the tips are free, and the screen says so
 * instead of a charge. Screenshots at 1280 and 390 px in light and dark, with no
 * sideways scroll and no critical or serious axe-core violation.
 */
import { randomUUID } from 'node:crypto';
import { insertUsageEvents } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { usageEvent } from '../support/usage-events.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const WIDTHS = [1280, 390] as const;
const THEMES = ['light', 'dark'] as const;
const DAY_MS = 86_400_000;

describe.skipIf(!hasChromium)('the AI advisor’s tips', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let profiles: BrowserProfiles;
    let fake: FakeOpenAI;
    const idleKey = randomUUID();
    const busyKey = randomUUID();

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, `browser-advisor-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `advised-${mode}@example.com`, { plan: 'growth' });
      const group = (await callApi(spendgate.url, 'POST', '/synthetic-group', { token: admin.token, body: { name: 'Support bot', description: '', teamId: admin.teamId } })).body.data.id as string;
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: admin.token,
        body: { teamId: admin.teamId, provider: 'openai', name: 'OpenAI', apiKey: 'sk-never-called', baseUrl: 'http://127.0.0.1:9/v1' },
      });
      const db = spendgate.app.runtime.stores.sql.db;
      const key = (id: string, name: string, createdAt: Date) => ({
        id,
        team_id: admin.teamId,
        group_id: group,
        connection_id: connection.body.data.newConnection.id as string,
        kind: 'byok' as const,
        name,
        key_hash: `hash-${id}`,
        key_prefix: `sg_live_${id.slice(0, 5)}`,
        created_by: admin.userId,
        settings: '{}',
        created_at: createdAt,
      });
      await db.insertInto('issued_keys').values([key(busyKey, 'backend', new Date(Date.now() - 20 * DAY_MS)), key(idleKey, 'forgotten', new Date(Date.now() - 40 * DAY_MS))]).execute();
      await insertUsageEvents(
        db,
        Array.from({ length: 12 }, (_, index) =>
          usageEvent({ teamId: admin.teamId, groupId: group, keyId: busyKey }, 1 + index, {
            key_kind: 'byok',
            input_tokens: 100_000n,
            output_tokens: 10_000n,
            cost_micros: 350_000n,
            billed_micros: 0n,
            budget_spend_micros: 262_500n,
          }),
        ),
      );
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
      await fake?.close();
    });

    it('generates tips, shows their evidence and price, and applies one in a click', async () => {
      const page = await profiles.open('/dashboard/advisor', { as: admin });
      await page.getByRole('heading', { name: 'No tips yet' }).waitFor();
      await checkPage(page, `advisor-empty-${mode}-1280`);
      await page.getByRole('button', { name: 'Generate tips' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toBe('2 found, 2 new, charged £0.06.');
      const modelTip = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Use gpt-5-mini instead of gpt-4o' }) });
      // 12 requests of 100,000 prompt and 10,000 output tokens: gpt-4o £3.15, gpt-5-mini £0.405, over 30 days.
      await expect.poll(() => modelTip.textContent()).toContain('£2.745 a month');
      expect(await modelTip.textContent()).toContain('Low confidence');
      expect(await modelTip.textContent()).toContain('Charged for this tip£0.03');
      await modelTip.getByText('Evidence').click();
      await expect.poll(() => modelTip.textContent()).toContain('12 requests from');
      expect(await modelTip.textContent()).toContain('Change: On key backend, send gpt-5-mini when gpt-4o is asked for');
      await modelTip.getByRole('button', { name: 'Apply: change the key’s settings' }).click();
      await modelTip.getByText('Applied: On key backend, send gpt-5-mini when gpt-4o is asked for. Gateways apply it to the next request.').waitFor();
      await modelTip.getByText(/^Applied \d{4}-\d{2}-\d{2}$/).waitFor();
      const settings = await spendgate.app.runtime.stores.sql.db.selectFrom('issued_keys').select('settings').where('id', '=', busyKey).executeTakeFirstOrThrow();
      expect(settings.settings).toEqual({ modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-5-mini' }] });
      await checkPage(page, `advisor-applied-${mode}-1280`);

      const idleTip = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Key forgotten has been idle 40 days' }) });
      await idleTip.getByRole('button', { name: 'Apply: revoke the key' }).click();
      await idleTip.getByText(/^Applied \d{4}-\d{2}-\d{2}$/).waitFor();
      expect(await idleTip.textContent()).toContain('Realised saving£0.00 a month');
      const revoked = await spendgate.app.runtime.stores.sql.db.selectFrom('issued_keys').select('revoked_at').where('id', '=', idleKey).executeTakeFirstOrThrow();
      expect(revoked.revoked_at).not.toBeNull();

      for (const theme of THEMES) {
        for (const width of WIDTHS) {
          const tips = await profiles.open('/dashboard/advisor', { as: admin, width, theme });
          await tips.getByRole('heading', { name: 'Use gpt-5-mini instead of gpt-4o' }).waitFor();
          // The wording setting below the tips: off, no connection chosen yet.
          const wording = tips.getByRole('form', { name: 'AI advisor wording' });
          expect(await wording.getByRole('checkbox', { name: 'Word tips with a model' }).isChecked()).toBe(false);
          expect(await wording.getByLabel('Connection', { exact: true }).inputValue()).toBe('');
          await checkPage(tips, `advisor-${mode}-${theme}-${width}`);
        }
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 240_000);

    it('turns the wording on through the team’s connection, shows it on the Team screen, and lists its calls in the request log', async () => {
      const connection = await callApi(spendgate.url, 'POST', '/provider/connections', {
        token: admin.token,
        body: { teamId: admin.teamId, provider: 'openai', name: 'Writer', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
      });
      expect(connection.status, JSON.stringify(connection.body)).toBe(201);
      const page = await profiles.open('/dashboard/advisor', { as: admin });
      const wording = page.getByRole('form', { name: 'AI advisor wording' });
      await wording.getByRole('checkbox', { name: 'Word tips with a model' }).check();
      await wording.getByRole('button', { name: 'Save wording' }).click();
      await wording.getByText('Choose one of your connections').waitFor();
      await wording.getByLabel('Connection', { exact: true }).selectOption({ label: 'Writer (openai)' });
      await wording.getByRole('button', { name: 'Save wording' }).click();
      await wording.getByRole('status').waitFor();
      expect(await wording.getByRole('status').textContent()).toBe('Tips will be worded by gpt-4o-mini.');
      const saved = await callApi(spendgate.url, 'GET', `/usage/ai-advisor/wording/${admin.teamId}`, { token: admin.token });
      expect(saved.body.data).toMatchObject({ enabled: true, source: 'connection', connectionId: connection.body.data.newConnection.id, model: 'gpt-4o-mini' });

      // The next run's tips are worded by the model (the fake echoes them, figures and all).
      const before = fake.requests.length;
      await page.getByRole('button', { name: 'Generate tips' }).click();
      const run = page.getByRole('status').filter({ hasText: 'found' });
      await run.waitFor();
      expect(await run.textContent()).toBe('1 found, 0 new, charged £0.00. 1 worded by your model.');
      expect(fake.requests.length - before).toBe(1);

      for (const theme of THEMES) {
        for (const width of WIDTHS) {
          const team = await profiles.open('/dashboard/settings/team', { as: admin, width, theme });
          const panel = team.getByRole('form', { name: 'AI advisor wording' });
          await panel.getByRole('option', { name: 'Writer (openai)' }).waitFor({ state: 'attached' });
          expect(await panel.getByLabel('Connection', { exact: true }).inputValue()).toBe(connection.body.data.newConnection.id);
          expect(await panel.getByRole('checkbox', { name: 'Word tips with a model' }).isChecked()).toBe(true);
          await checkPage(team, `advisor-wording-team-${mode}-${theme}-${width}`);
        }
      }
      // The wording call is the team's usage, in the overview's request log.
      const overview = await profiles.open(`/dashboard?team=${admin.teamId}`, { as: admin });
      await overview.getByRole('cell', { name: /^AI advisor wording/ }).first().waitFor();
      await checkPage(overview, `advisor-wording-request-log-${mode}`);
      expect(profiles.pageErrors).toEqual([]);
    }, 240_000);

    it('says a demo team’s tips are free instead of charging them', async () => {
      // A second team of the admin's, marked as demo (as POST /demo/team marks one), with a busy key on gpt-4o and an idle one.
      const teamId = (await callApi(spendgate.url, 'POST', '/team/', { token: admin.token, body: { name: 'Samples' } })).body.data.id as string;
      const db = spendgate.app.runtime.stores.sql.db;
      await db.updateTable('teams').set({ is_demo: true }).where('id', '=', teamId).execute();
      const group = (await callApi(spendgate.url, 'POST', '/synthetic-group', { token: admin.token, body: { name: 'Support bot', description: '', teamId } })).body.data.id as string;
      const [sampleKey, sampleIdleKey] = [randomUUID(), randomUUID()];
      const key = (id: string, name: string, createdAt: Date) => ({
        id,
        team_id: teamId,
        group_id: group,
        connection_id: null,
        kind: 'byok' as const,
        name,
        key_hash: `hash-${id}`,
        key_prefix: `sg_live_${id.slice(0, 5)}`,
        created_by: admin.userId,
        settings: '{}',
        created_at: createdAt,
      });
      await db.insertInto('issued_keys').values([key(sampleKey, 'backend', new Date(Date.now() - 20 * DAY_MS)), key(sampleIdleKey, 'forgotten', new Date(Date.now() - 40 * DAY_MS))]).execute();
      await insertUsageEvents(
        db,
        Array.from({ length: 12 }, (_, index) =>
          usageEvent({ teamId, groupId: group, keyId: sampleKey }, 1 + index, { key_kind: 'byok', input_tokens: 100_000n, output_tokens: 10_000n, cost_micros: 350_000n, billed_micros: 0n, budget_spend_micros: 262_500n }),
        ),
      );

      const page = await profiles.open(`/dashboard/advisor?team=${teamId}`, { as: admin });
      await page.getByRole('heading', { name: 'No tips yet' }).waitFor();
      await page.getByRole('button', { name: 'Generate tips' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'found' }).textContent()).toBe('2 found, 2 new, free on a demo team.');
      const modelTip = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Use gpt-5-mini instead of gpt-4o' }) });
      await expect.poll(() => modelTip.textContent()).toContain('Charged for this tipNothing: free on a demo team');
      expect(await page.getByText(/^2 tips · free on a demo team$/).count()).toBe(1);
      await page.context().close();
      for (const [width, theme] of [
        [1280, 'light'],
        [390, 'dark'],
      ] as const) {
        const tips = await profiles.open(`/dashboard/advisor?team=${teamId}`, { as: admin, width, theme });
        await tips.getByRole('heading', { name: 'Use gpt-5-mini instead of gpt-4o' }).waitFor();
        await checkPage(tips, `advisor-demo-${mode}-${theme}-${width}`);
      }
      expect(profiles.pageErrors).toEqual([]);
    }, 240_000);
  });
});
