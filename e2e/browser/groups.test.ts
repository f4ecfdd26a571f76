/**
 * The synthetic-group screens as a group admin uses them, in Debian's Chromium against a
 * whole Spendgate, in each run mode: create a group with a team member and their role
 * (the form's checks first), change the role, send several invitations at once (one
 * fails: its message is reported, the failed row stays), resend and revoke one, remove
 * the member, search the list, delete the group — each checked in the API too.
 * A request made with one of its keys shows in its usage and in the list.
 * Screenshots of the list, the form and the details at 1280 and 390 px, light and dark,
 * each without a critical or serious axe-core (WCAG 2.1 AA) violation or sideways scroll.
 */
import { formatMoney, money } from '@spendgate/core';
import { listOutboxMail, listUsageEvents } from '@spendgate/store';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const WIDTHS = [1280, 390] as const;
const THEMES = ['light', 'dark'] as const;

describe.skipIf(!hasChromium)('the synthetic-group screens', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let teammate: { email: string; userId: string };
    let teamId: string;
    let fake: FakeOpenAI;
    let profiles: BrowserProfiles;

    const api = (method: string, route: string, body?: unknown) => callApi(spendgate.url, method, route, { token: admin.token, ...(body === undefined ? {} : { body }) });
    const mailsTo = async (email: string) => listOutboxMail(spendgate.app.runtime.stores.sql.db, email);
    const open = (route: string, options: { width?: number; theme?: 'light' | 'dark' } = {}) => profiles.open(route, { ...options, as: admin });

    async function screenshots(route: string, name: string, ready: (page: Page) => Promise<unknown>) {
      for (const width of WIDTHS) {
        for (const theme of THEMES) {
          const page = await open(route, { width, theme });
          await ready(page);
          await checkPage(page, `${name}-${theme}-${width}`);
          await page.context().close();
        }
      }
    }

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-groups-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      fake = await startFakeOpenAI();
      // gpt-4o: 600 uncached × 2.5 + 400 cached × 1.25 + 200 output × 10 = 4,000 micro-USD.
      fake.controlHeaders['x-fake-usage'] = JSON.stringify({ prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 400 });
      admin = await signUpTeamAdmin(spendgate.url, `ada-${mode}@example.com`, { name: 'Ada', plan: 'growth' });
      teamId = admin.teamId;
      // A colleague joins the team through its e-mailed invitation.
      const teammateEmail = `tom-${mode}@example.com`;
      expect((await api('POST', '/team/invite', { teamId, email: teammateEmail, role: 'MEMBER' })).status).toBe(201);
      const token = /invite=([A-Za-z0-9_-]+)/.exec((await mailsTo(teammateEmail)).at(-1)!.text_body)![1];
      const joined = await callApi(spendgate.url, 'POST', '/team/accept', { body: { token, password: 'a long enough password', name: 'Tom' } });
      expect(joined.status, JSON.stringify(joined.body)).toBe(200);
      teammate = { email: teammateEmail, userId: joined.body.data.user.id };
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
      await fake?.close();
    });

    it('an admin creates, changes, invites to and deletes a group, and the API agrees at each step', async () => {
      await screenshots('/dashboard/synthetic-groups', `groups-empty-${mode}`, (page) => page.getByText('No groups yet').waitFor());
      const page = await open('/dashboard/synthetic-groups');
      await page.getByText('No groups yet').waitFor();
      await page.getByRole('link', { name: 'Create a group' }).click();
      await page.waitForURL('**/dashboard/addgroup');

      // The form's checks, then the group with the teammate as a Maintainer.
      const form = page.getByRole('form', { name: 'New synthetic group' });
      await form.getByRole('checkbox', { name: /Tom/ }).waitFor();
      await form.getByRole('button', { name: 'Create group' }).click();
      await form.getByText('Group name is required').waitFor();
      expect(await form.getByLabel('Group name').getAttribute('aria-invalid')).toBe('true');
      await form.getByLabel('Group name').fill('Search');
      await form.getByLabel('Description').fill('Spend of the search team');
      await form.getByRole('checkbox', { name: /Tom/ }).check();
      await form.getByLabel('Role of Tom').selectOption('MAINTAINER');
      await form.getByRole('button', { name: 'Create group' }).click();
      await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
      const groupId = new URL(page.url()).searchParams.get('group')!;
      const members = page.getByRole('table', { name: 'Members' });
      expect(await members.getByLabel('Role of Tom').inputValue()).toBe('MAINTAINER');
      const stored = (await api('GET', `/synthetic-group/${groupId}`)).body.data;
      expect(stored).toMatchObject({ name: 'Search', description: 'Spend of the search team', teamId });
      expect(stored.syntheticGroupUsers.map((member: { user: { email: string }; role: string }) => `${member.user.email}:${member.role}`).sort()).toEqual(
        [`${admin.email}:ADMIN`, `${teammate.email}:MAINTAINER`].sort(),
      );

      // A request with a key of the group shows in its usage.
      const connection = await api('POST', '/provider/connections', { teamId, provider: 'openai', name: 'Fake OpenAI', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      const key = await api('POST', `/synthetic-group/provider-key/create/${groupId}`, { name: 'search-backend', kind: 'byok', connectionId: connection.body.data.newConnection.id });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const completion = await fetch(`${spendgate.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.body.data.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] }),
      });
      expect(completion.status).toBe(200);
      await usageWritten(spendgate);
      // The panel shows what the meter recorded: the team's GBP (a BYOK key: the list price at the recorded FX rate) and the USD list price.
      const [event] = await listUsageEvents(spendgate.app.runtime.stores.sql.db, teamId);
      const gbp = formatMoney(money(event!.budget_spend_micros!, 'GBP'));
      const usd = formatMoney(money(event!.cost_micros!, 'USD'));
      await page.reload();
      const usagePanel = page.getByRole('region', { name: 'Usage' });
      await usagePanel.getByText(gbp).waitFor();
      expect((await usagePanel.textContent())?.replace(/\s+/g, '')).toContain(`Requests1Inputtokens600Cachedinputtokens400Outputtokens200Cost${gbp}Providerlistprice${usd}`);

      // A role change applies at once.
      await members.getByLabel('Role of Tom').selectOption('OBSERVER');
      await page.getByText('Tom is now Observer').waitFor();
      const roleOf = async (userId: string) =>
        ((await api('GET', `/synthetic-group/member/${groupId}`)).body.data as { user: { id: string }; role: string }[]).find((member) => member.user.id === userId)?.role;
      expect(await roleOf(teammate.userId)).toBe('OBSERVER');

      // Several invitations at once: the teammate's fails (already a member), its message is reported and its row stays.
      const invite = page.getByRole('form', { name: 'Invite by e-mail' });
      await invite.getByRole('button', { name: 'Send invitations' }).click();
      await invite.getByText('E-mail is required').waitFor();
      await invite.getByLabel('E-mail 1').fill(`new-${mode}@example.com`);
      await invite.getByRole('button', { name: 'Add another' }).click();
      await invite.getByLabel('E-mail 2').fill('not an address');
      await invite.getByRole('button', { name: 'Send invitations' }).click();
      await invite.getByText('Enter a valid e-mail address').waitFor();
      await invite.getByLabel('E-mail 2').fill(teammate.email);
      await invite.getByLabel('Role 1').selectOption('MAINTAINER');
      await invite.getByRole('button', { name: 'Send invitations' }).click();
      await invite.getByRole('alert').filter({ hasText: `${teammate.email} is already a member of this group` }).waitFor();
      expect(await invite.getByLabel('E-mail 1').inputValue()).toBe(teammate.email);
      expect(await invite.getByLabel('E-mail 2').count()).toBe(0);
      const sent = page.getByRole('table', { name: 'Invitations sent' });
      const row = sent.getByRole('row').filter({ hasText: `new-${mode}@example.com` });
      await row.getByText('Pending').waitFor();
      expect(await row.getByRole('cell', { name: 'Maintainer' }).count()).toBe(1);
      await screenshots(`/dashboard/synthetic-groups?group=${groupId}`, `groups-details-${mode}`, (shown) => shown.getByRole('table', { name: 'Invitations sent' }).waitFor());

      // Resend mails a new link; revoke asks first, then the invitation shows revoked.
      expect(await mailsTo(`new-${mode}@example.com`)).toHaveLength(1);
      await row.getByRole('button', { name: /^Resend/ }).click();
      await page.getByText(`Invitation resent to new-${mode}@example.com`).waitFor();
      await expect.poll(async () => (await mailsTo(`new-${mode}@example.com`)).length).toBe(2);
      await row.getByRole('button', { name: /^Revoke/ }).click();
      const revokeDialog = page.getByRole('dialog', { name: `Revoke the invitation of new-${mode}@example.com?` });
      await revokeDialog.getByRole('button', { name: 'Revoke invitation' }).click();
      await row.getByText('Revoked').waitFor();
      expect(await row.getByRole('button').count()).toBe(0);
      const invitations = (await api('GET', `/synthetic-group/${groupId}/invitations`)).body.data as { email: string; status: string }[];
      expect(invitations.map((invitation) => `${invitation.email}:${invitation.status}`)).toEqual([`new-${mode}@example.com:revoked`]);

      // Removing a member asks first.
      await members.getByRole('button', { name: 'Remove Tom' }).click();
      await page.getByRole('dialog', { name: 'Remove Tom?' }).getByRole('button', { name: 'Remove member' }).click();
      await members.getByText(teammate.email).waitFor({ state: 'detached' });
      expect(await roleOf(teammate.userId)).toBeUndefined();

      // The list, its search, then deleting from the details (cancel first, then confirm).
      await page.getByRole('link', { name: 'All groups' }).click();
      const list = page.getByRole('list', { name: 'Synthetic groups' });
      // The cards cover the group's default range: 30 days, or the plan's look-back when shorter.
      const { startDate, endDate } = (await api('GET', `/synthetic-group/${groupId}`)).body.data.usage;
      const days = (Date.parse(endDate) - Date.parse(startDate)) / 86_400_000 + 1;
      await list.getByRole('link', { name: 'Search' }).waitFor();
      expect(await list.getByText('Spend of the search team').count()).toBe(1);
      expect((await list.getByRole('listitem').textContent())?.replace(/\s+/g, '')).toContain(`Keys1Requests(${days}days)1Cost(${days}days)${gbp}`);
      await screenshots('/dashboard/synthetic-groups', `groups-list-${mode}`, (shown) => shown.getByRole('list', { name: 'Synthetic groups' }).waitFor());
      await page.getByRole('searchbox', { name: 'Search groups' }).fill('billing');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('No groups found').waitFor();
      await page.getByRole('searchbox', { name: 'Search groups' }).fill('sea');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await list.getByRole('link', { name: 'Search' }).click();
      await page.getByRole('button', { name: 'Delete group' }).click();
      const deleteDialog = page.getByRole('dialog', { name: 'Delete Search?' });
      await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
      expect((await api('GET', `/synthetic-group/${groupId}`)).status).toBe(200);
      await page.getByRole('button', { name: 'Delete group' }).click();
      await deleteDialog.getByRole('button', { name: 'Delete group' }).click();
      await page.getByText('No groups yet').waitFor();
      expect(new URL(page.url()).searchParams.get('group')).toBeNull();
      expect((await api('GET', `/synthetic-group/${groupId}`)).status).toBe(404);
      expect(profiles.pageErrors).toEqual([]);
      expect(profiles.consoleErrors).toEqual([]);
    }, 240_000);

    it('the add-group form in both themes and widths', async () => {
      await screenshots('/dashboard/addgroup', `groups-add-${mode}`, (page) => page.getByRole('checkbox', { name: /Tom/ }).waitFor());
    }, 60_000);
  });
});
