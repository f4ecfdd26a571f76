/**
 * Group roles in the console (spec §6), in Debian's Chromium against a whole Spendgate,
 * in each run mode: an Observer and a Maintainer, who joined through the e-mailed
 * invitation link, see on a group's details only what their role lets them do — and the
 * API, called directly with their own session, still refuses the rest (403). The group's
 * admin sees every control, so the absences below are of controls that exist. (Keys are
 * the group's admins' and maintainers'; budgets its team admins'.)
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, invitationToken, type SignedUpUser, signUpTeamAdmin, signUpUser, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

describe.skipIf(!hasChromium)('group roles in the console', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let maintainer: SignedUpUser;
    let observer: SignedUpUser;
    let groupId: string;
    let profiles: BrowserProfiles;

    const emailOf = (name: string) => `${name.toLowerCase()}-${mode}@example.com`;
    /** A fresh browser profile at `route`, signed in as `who` unless null. */
    const openAs = (who: SignedUpUser | null, route: string, width = 1280) => profiles.open(route, { width, ...(who ? { as: who } : {}) });
    const detailsOf = (id: string) => `/dashboard/synthetic-groups?group=${id}`;
    const api = (who: SignedUpUser, method: string, route: string, body?: unknown) =>
      callApi(spendgate.url, method, route, { token: who.token, ...(body === undefined ? {} : { body }) });

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-roles-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      // A paid plan: the trial's two seats would refuse the second invitation.
      admin = await signUpTeamAdmin(spendgate.url, emailOf('Ada'), { name: 'Ada', plan: 'growth' });
      maintainer = await signUpUser(spendgate.url, emailOf('Max'), { name: 'Max' });
      observer = await signUpUser(spendgate.url, emailOf('Olive'), { name: 'Olive' });
      const group = await api(admin, 'POST', '/synthetic-group', { teamId: admin.teamId, name: 'Search', description: 'Spend of the search team' });
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      groupId = group.body.data.id;
      for (const [invited, role] of [
        [maintainer, 'MAINTAINER'],
        [observer, 'OBSERVER'],
      ] as const) {
        const sent = await api(admin, 'POST', `/synthetic-group/${groupId}/invite`, { email: invited.email, role });
        expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      }
      // The maintainer accepts through the API; the observer, below, in the browser.
      const accepted = await api(maintainer, 'POST', '/synthetic-group/accept-invite', { token: await invitationToken(spendgate.url, maintainer.email) });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    /** The controls a role may or may not be shown on a group's details. */
    const controls = (page: Page) => ({
      edit: page.getByRole('button', { name: 'Edit group' }),
      delete: page.getByRole('button', { name: 'Delete group' }),
      roleSelects: page.getByRole('combobox', { name: /^Role of / }),
      removeMember: page.getByRole('button', { name: /^Remove / }),
      addMember: page.getByRole('button', { name: 'Add member' }),
      invitations: page.getByRole('heading', { name: 'Invitations' }),
      sendInvitations: page.getByRole('button', { name: 'Send invitations' }),
      issueKey: page.getByRole('button', { name: 'Issue key' }),
      addBudget: page.getByRole('button', { name: 'Add budget' }),
    });
    const groupBudget = () => ({ scope: 'group', scopeId: groupId, amount: '10', window: 'month', mode: 'hard' });

    it('the admin sees every control of the group', async () => {
      const page = await openAs(admin, detailsOf(groupId));
      await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
      await page.getByText('Your role: Admin').waitFor();
      const shown = controls(page);
      await shown.sendInvitations.waitFor();
      expect(await shown.edit.count()).toBe(1);
      expect(await shown.delete.count()).toBe(1);
      expect(await shown.invitations.count()).toBe(1);
      expect(await shown.issueKey.count()).toBe(1);
      await shown.addBudget.waitFor();
      // Maintainer and (once accepted) observer rows: the admin's own row has no controls.
      expect(await shown.roleSelects.count()).toBe(1);
      expect(await shown.removeMember.count()).toBe(1);
      // Everyone in the team is in the group already: no one to add (the form only lists team members outside it).
      const invitationRows = page.getByRole('table', { name: 'Invitations sent' }).getByRole('row');
      await expect.poll(() => invitationRows.count()).toBe(3);
      await checkPage(page, `groups-details-admin-${mode}-1280`);
    });

    it('an Observer joins through the invitation link, sees the group read-only, and the API refuses every change', async () => {
      // Opened signed out: logging in from the invitation comes back to it.
      const invitation = `/groups/accept-invite?token=${await invitationToken(spendgate.url, observer.email)}`;
      const page = await openAs(null, invitation);
      await page.getByRole('link', { name: 'Log in' }).click();
      const login = page.getByRole('form', { name: 'Login' });
      await login.getByLabel('Email').fill(observer.email);
      await login.getByLabel('Password').fill('a long enough password');
      await login.getByRole('button', { name: /Log in/ }).click();
      await page.waitForURL(`**${invitation}`);
      await page.getByRole('button', { name: 'Accept invitation' }).click();
      await page.getByRole('link', { name: 'Open Search' }).click();
      await page.waitForURL(`**${detailsOf(groupId)}`);
      await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
      await page.getByText('Your role: Observer').waitFor();
      // Everything is there to read: members with their roles, the usage.
      const members = page.getByRole('table', { name: 'Members' });
      for (const who of [admin, maintainer, observer]) await members.getByRole('cell', { name: who.email }).waitFor();
      expect(await members.getByRole('row').filter({ hasText: maintainer.email }).getByRole('cell', { name: 'Maintainer' }).count()).toBe(1);
      await page.getByRole('heading', { name: 'Usage' }).waitFor();
      await page.getByRole('heading', { name: 'Group budgets' }).waitFor();
      // No control it may not use, once every call the page makes has answered.
      await page.waitForLoadState('networkidle');
      const shown = controls(page);
      for (const [name, control] of Object.entries(shown)) expect(await control.count(), name).toBe(0);
      await checkPage(page, `groups-details-observer-${mode}-1280`);

      // The group is in its list, reached from the sidebar.
      await page.getByRole('link', { name: 'All groups' }).click();
      await page.getByRole('list', { name: 'Synthetic groups' }).getByRole('link', { name: 'Search' }).waitFor();

      // The API refuses the rest with 403, whatever the screen shows.
      expect((await api(observer, 'GET', `/synthetic-group/${groupId}`)).status).toBe(200);
      const refused: [string, string, unknown?][] = [
        ['PUT', `/synthetic-group/${groupId}`, { name: 'Renamed' }],
        ['DELETE', `/synthetic-group/${groupId}`],
        ['POST', `/synthetic-group/member/${groupId}`, { users: [{ userId: maintainer.userId, role: 'ADMIN' }] }],
        ['PATCH', `/synthetic-group/member/${groupId}/${maintainer.userId}`, { role: 'OBSERVER' }],
        ['DELETE', `/synthetic-group/member/${groupId}/${maintainer.userId}`],
        ['POST', `/synthetic-group/${groupId}/invite`, { email: 'someone@example.com', role: 'OBSERVER' }],
        ['GET', `/synthetic-group/${groupId}/invitations`],
        ['POST', `/synthetic-group/provider-key/create/${groupId}`, { name: 'mine', kind: 'optimised' }],
        ['POST', '/budgets', groupBudget()],
      ];
      for (const [method, route, body] of refused) {
        const answer = await api(observer, method, route, body);
        expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.body)}`).toBe(403);
      }
      expect((await api(admin, 'GET', `/synthetic-group/${groupId}`)).body.data.name).toBe('Search');
    });

    it('a Maintainer edits the group but cannot touch members, and the API refuses member changes and deletion', async () => {
      const page = await openAs(maintainer, detailsOf(groupId), 390);
      await page.getByText('Your role: Maintainer').waitFor();
      const shown = controls(page);
      await shown.edit.waitFor();
      await shown.issueKey.waitFor();
      await page.getByRole('heading', { name: 'Group budgets' }).waitFor();
      await page.waitForLoadState('networkidle');
      for (const name of ['delete', 'roleSelects', 'removeMember', 'addMember', 'invitations', 'sendInvitations', 'addBudget'] as const) {
        expect(await shown[name].count(), name).toBe(0);
      }
      await checkPage(page, `groups-details-maintainer-${mode}-390`);

      // Editing is theirs: the new name shows at once and is stored.
      await shown.edit.click();
      const form = page.getByRole('form', { name: 'Edit group' });
      await form.getByLabel('Group name').fill('Search & Ads');
      await form.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Search & Ads', level: 1 }).waitFor();
      expect((await api(admin, 'GET', `/synthetic-group/${groupId}`)).body.data.name).toBe('Search & Ads');

      const refused: [string, string, unknown?][] = [
        ['DELETE', `/synthetic-group/${groupId}`],
        ['POST', `/synthetic-group/member/${groupId}`, { users: [{ userId: observer.userId, role: 'ADMIN' }] }],
        ['PATCH', `/synthetic-group/member/${groupId}/${observer.userId}`, { role: 'ADMIN' }],
        ['DELETE', `/synthetic-group/member/${groupId}/${observer.userId}`],
        ['POST', `/synthetic-group/${groupId}/invite`, { email: 'someone@example.com', role: 'OBSERVER' }],
        ['GET', `/synthetic-group/${groupId}/invitations`],
        ['POST', '/budgets', groupBudget()],
      ];
      for (const [method, route, body] of refused) {
        const answer = await api(maintainer, method, route, body);
        expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.body)}`).toBe(403);
      }
      const members = (await api(admin, 'GET', `/synthetic-group/member/${groupId}`)).body.data as { user: { id: string }; role: string }[];
      expect(members.find((member) => member.user.id === observer.userId)?.role).toBe('OBSERVER');
    });
  });
});
