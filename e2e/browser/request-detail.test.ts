/**
 * The request detail screen and the team's prompt capture settings, in Debian's Chromium
 * against a whole Spendgate and the OpenAI fake, in each run mode: a request captured
 * after the admin turned capture on (on the Team screen) shows its usage, cost and its
 * prompt and answer redacted; a request of a group that does not capture says so.
 * Screenshots at 1280 and 390 px in light and dark, no sideways scroll, no critical or
 * serious axe-core violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const PROMPT = 'Write to jane.roe@example.com about card 4111 1111 1111 1111 and ticket ACME-88231';

describe.skipIf(!hasChromium)('the request detail screen', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let admin: TeamAdmin;
    let profiles: BrowserProfiles;
    const groups = { capturing: '', quiet: '' };
    const keys = { capturing: '', quiet: '' };

    const api = (method: string, path: string, body?: unknown) => callApi(spendgate.url, method, path, { token: admin.token, body });
    const chat = async (key: string) => {
      const answer = await fetch(`${spendgate.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] }),
      });
      expect(answer.status).toBe(200);
      return answer.headers.get('x-spendgate-request-id')!;
    };

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, `browser-requests-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `requests-${mode}@example.com`, { name: 'Rita Reviewer' });
      const connection = await api('POST', '/provider/connections', { teamId: admin.teamId, provider: 'openai', name: 'OpenAI', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      for (const name of ['capturing', 'quiet'] as const) {
        groups[name] = (await api('POST', '/synthetic-group', { name: name === 'capturing' ? 'Support bot' : 'Research', description: '', teamId: admin.teamId })).body.data.id;
        const key = await api('POST', `/synthetic-group/provider-key/create/${groups[name]}`, { name: `${name}-key`, kind: 'byok', connectionId: connection.body.data.newConnection.id });
        keys[name] = key.body.data.key;
      }
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
      await fake?.close();
    });

    it('turns capture on from the Team screen, then shows a captured request redacted and says when one was not captured', async () => {
      const team = await profiles.open('/dashboard/settings/team', { as: admin });
      const form = team.getByRole('form', { name: 'Prompt capture' });
      await form.getByRole('heading', { name: 'Prompt capture' }).waitFor();
      await form.getByLabel('Capture prompts for this team').check();
      await form.getByLabel('Your redaction patterns').fill('ACME-[0-9]+');
      await form.getByRole('button', { name: 'Save prompt capture' }).click();
      await form.getByText('Prompt capture saved.').waitFor();
      // Checked once the server answers (the box shows the stored setting).
      await form.getByLabel('Support bot').click();
      await expect.poll(() => form.getByLabel('Support bot').isChecked()).toBe(true);
      await expect.poll(async () => (await api('GET', `/capture/teams/${admin.teamId}`)).body.data.groups).toEqual([{ groupId: groups.capturing, enabled: true }]);
      await form.getByLabel('Your redaction patterns').fill('(a)\\1');
      await form.getByRole('button', { name: 'Save prompt capture' }).click();
      await form.getByText('back references and look-arounds are not supported', { exact: false }).waitFor();
      await form.getByLabel('Your redaction patterns').fill('ACME-[0-9]+');
      for (const width of [1280, 390]) {
        for (const theme of ['light', 'dark'] as const) {
          const shot = await profiles.open('/dashboard/settings/team', { as: admin, width, theme });
          await shot.getByRole('form', { name: 'Prompt capture' }).getByLabel('Support bot').waitFor();
          await checkPage(shot, `team-capture-${mode}-${width}-${theme}`);
        }
      }

      const captured = await chat(keys.capturing);
      const quiet = await chat(keys.quiet);
      await usageWritten(spendgate);
      await spendgate.app.runtime.capture.settled();

      for (const width of [1280, 390]) {
        for (const theme of ['light', 'dark'] as const) {
          const page = await profiles.open(`/dashboard/requests/${captured}`, { as: admin, width, theme });
          await page.getByRole('heading', { name: `Request ${captured.slice(0, 8)}`, level: 1 }).waitFor();
          const prompt = page.getByRole('region', { name: 'Request body', exact: true });
          await prompt.getByText('[REDACTED:email]', { exact: false }).waitFor();
          await expect.poll(() => page.getByText('jane.roe', { exact: false }).count()).toBe(0);
          expect(await page.getByText('4111', { exact: false }).count()).toBe(0);
          await page.getByRole('region', { name: 'Answer', exact: true }).getByText('[REDACTED:team-pattern]', { exact: false }).waitFor();
          await page.getByText('Support bot').waitFor();
          await checkPage(page, `request-captured-${mode}-${width}-${theme}`);
        }
      }

      const page = await profiles.open(`/dashboard/requests/${quiet}`, { as: admin, width: 390 });
      await page.getByText('Not captured: prompt capture was off', { exact: false }).waitFor();
      await checkPage(page, `request-not-captured-${mode}-390-light`);

      // Each view is audited (reading the log is an Enterprise feature; this team is on its trial).
      const viewed = await spendgate.app.runtime.stores.sql.db
        .selectFrom('audit_log')
        .select('action')
        .where('team_id', '=', admin.teamId)
        .where('action', '=', 'prompt_capture.viewed')
        .execute();
      expect(viewed.length).toBeGreaterThanOrEqual(4);
      expect(profiles.pageErrors).toEqual([]);
    }, 240_000);
  });
});
