/**
 * The team and the account as people use them, in Debian's Chromium against a whole
 * Spendgate, in each run mode: a team admin invites a colleague from the Team screen;
 * the colleague opens the link of the e-mail Spendgate sent (read from its outbox),
 * registers through it and lands in the team; the admin sees them and changes their
 * role; an existing account accepts through /login?invite=; the admin revokes a pending
 * invitation and removes a member; the colleague changes their
 * name, avatar (an uploaded picture) and password on the Account screen, and the API
 * answers with the new ones; an unverified session opening /dashboard is sent to /verify.
 * Screenshots of the Team, Account and invited register screens at 1280 and 390 px in
 * light and dark, with no sideways scroll and no critical or serious axe-core violation.
 */
import { crc32, deflateSync } from 'node:zlib';
import { listOutboxMail } from '@spendgate/store';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, type OpenOptions, signUpTeamAdmin, signUpUser, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const WIDTHS = [1280, 390] as const;
const THEMES = ['light', 'dark'] as const;
const PASSWORD = 'a long and unusual passphrase';

/** A PNG of `width` × `height` px in one colour, as a file a user would pick for their avatar. */
function solidPng(width: number, height: number, [red, green, blue]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [red, green, blue]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

describe.skipIf(!hasChromium)('the team and the account', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let admin: TeamAdmin;
    let teamId: string;
    let profiles: BrowserProfiles;
    const api = (method: string, route: string, options: { token?: string; body?: unknown } = {}) => callApi(spendgate.url, method, route, options);
    /** A fresh browser profile at `route`, signed in as `as` when given. */
    const open = (route: string, options: OpenOptions = {}) => profiles.open(route, options);

    /** The link of the newest invitation Spendgate mailed to `email`, as a path on this Spendgate. */
    async function invitationLink(email: string): Promise<string> {
      const mails = await listOutboxMail(spendgate.app.runtime.stores.sql.db, email);
      const invitation = mails.filter((mail) => mail.subject.startsWith('You are invited')).at(-1);
      const link = invitation && /https?:\/\/\S+/.exec(invitation.text_body)?.[0];
      if (!link) throw new Error(`no invitation mailed to ${email}`);
      const url = new URL(link);
      return `${url.pathname}${url.search}`;
    }

    beforeAll(async () => {
      spendgate = await startSpendgate(mode, `browser-team-${mode}`, { consoleDir: suite.consoleDir });
      profiles = browserProfiles(suite.browser, spendgate.url);
      // A paid plan: the trial's two free seats would stop the third member.
      admin = await signUpTeamAdmin(spendgate.url, `lead-${mode}@example.com`, {
        password: PASSWORD,
        name: 'Lena Lead',
        team: { name: 'Platform', description: 'The platform team' },
        plan: 'growth',
      });
      teamId = admin.teamId;
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
    });

    it('a colleague invited from the Team screen registers through the e-mailed link and lands in the team', async () => {
      const colleague = `colleague-${mode}@example.com`;
      const page = await open('/dashboard/settings/team', { as: admin });
      await page.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
      await page.getByRole('listitem', { name: 'Lena Lead' }).waitFor();
      await page.getByText('1 of 5 seats free on your Growth plan taken. Each seat past them costs £8.00 a month.').waitFor();

      const invite = page.getByRole('form', { name: 'Invite a member' });
      expect(await invite.getByLabel('Role').inputValue()).toBe('MEMBER');
      await invite.getByLabel('E-mail').fill('not an address');
      await invite.getByRole('button', { name: 'Send invitation' }).click();
      await invite.getByText('Enter a valid e-mail address').waitFor();
      await invite.getByLabel('E-mail').fill(colleague);
      await invite.getByRole('button', { name: 'Send invitation' }).click();
      await invite.getByText(`Invitation sent to ${colleague}.`, { exact: false }).waitFor();
      await page.getByText('2 of 5 seats free on your Growth plan taken (1 by pending invitation).', { exact: false }).waitFor();
      const pending = page.getByRole('region', { name: /Pending invitations/ });
      await pending.getByRole('listitem', { name: colleague }).getByText('Invited as Member').waitFor();

      // The colleague, in a browser of their own, follows the e-mail's link.
      const link = await invitationLink(colleague);
      expect(link).toMatch(/^\/register\?invite=[\w-]{40,}$/);
      const invited = await open(link);
      await invited.getByText("You're invited to join Platform as Member.").waitFor();
      expect(await invited.getByLabel('Work email').inputValue()).toBe(colleague);
      expect(await invited.getByLabel('Work email').getAttribute('readonly')).not.toBeNull();
      await checkPage(invited, `team-invited-register-${mode}-1280`);
      await invited.getByLabel('Full name').fill('Colin Colleague');
      await invited.getByLabel('Password').fill(PASSWORD);
      await invited.getByRole('button', { name: 'Create account and join' }).click();

      await invited.waitForURL((url) => url.pathname === '/dashboard/settings/team' && url.searchParams.get('team') === teamId);
      await invited.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
      await invited.getByRole('listitem', { name: 'Colin Colleague' }).getByText('You').waitFor();
      await invited.getByRole('listitem', { name: 'Lena Lead' }).waitFor();
      // A member: no invitations, no role changes.
      expect(await invited.getByRole('form', { name: 'Invite a member' }).count()).toBe(0);
      expect(await invited.getByRole('combobox', { name: /^Role of/ }).count()).toBe(0);

      // The API agrees: the colleague is a verified member of the team.
      const members = await api('GET', `/team/members/${teamId}`, { token: admin.token });
      expect(members.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ email: colleague, name: 'Colin Colleague', role: 'MEMBER' })]));
      const session = await invited.evaluate(() => JSON.parse(localStorage.getItem('user') ?? 'null'));
      expect(session).toMatchObject({ email: colleague, emailVerified: true });

      // The admin sees them arrive (no longer pending) and makes them an admin.
      await page.reload();
      await pending.getByText('No invitation is waiting for an answer.').waitFor();
      const role = page.getByRole('combobox', { name: 'Role of Colin Colleague' });
      await role.selectOption('ADMIN');
      await expect.poll(async () => (await api('GET', `/team/members/${teamId}`, { token: admin.token })).body.data.find((m: { email: string }) => m.email === colleague)?.role).toBe('ADMIN');
      await page.getByText('2 of 5 seats free on your Growth plan taken.', { exact: false }).waitFor();
      expect(profiles.pageErrors).toEqual([]);
    });

    it('an existing account accepts through /login?invite= and lands in the team; the admin revokes an invitation and removes a member after confirming', async () => {
      const existing = `existing-${mode}@example.com`;
      await signUp(spendgate.url, existing, { password: PASSWORD, name: 'Eve Existing' });
      await api('POST', '/team/invite', { token: admin.token, body: { teamId, email: existing } });
      const link = await invitationLink(existing);
      const page = await open(link);
      await page.getByRole('link', { name: 'Log in to join' }).click();
      await page.waitForURL((url) => url.pathname === '/login');
      expect(await page.getByLabel('Email').inputValue()).toBe(existing);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Log in and join' }).click();
      await page.getByRole('alert').getByText('Invalid email or password').waitFor();
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in and join' }).click();
      await page.waitForURL((url) => url.pathname === '/dashboard/settings/team');
      await page.getByRole('listitem', { name: 'Eve Existing' }).waitFor();

      const team = await open('/dashboard/settings/team', { as: admin });
      // An invitation not wanted any more is withdrawn; its link stops working.
      const stranger = `stranger-${mode}@example.com`;
      const invite = team.getByRole('form', { name: 'Invite a member' });
      await invite.getByLabel('E-mail').fill(stranger);
      await invite.getByRole('button', { name: 'Send invitation' }).click();
      const pending = team.getByRole('region', { name: /Pending invitations/ }).getByRole('listitem', { name: stranger });
      await pending.getByRole('button', { name: 'Revoke' }).click();
      await team.getByRole('dialog', { name: `Revoke the invitation to ${stranger}?` }).getByRole('button', { name: 'Revoke invitation' }).click();
      await pending.waitFor({ state: 'detached' });
      const revokedLink = await invitationLink(stranger);
      expect((await api('POST', '/team/invitation', { body: { token: new URL(revokedLink, spendgate.url).searchParams.get('invite') } })).status).toBe(400);

      const row = team.getByRole('listitem', { name: 'Eve Existing' });
      await row.getByRole('button', { name: 'Remove' }).click();
      const dialog = team.getByRole('dialog', { name: 'Remove Eve Existing?' });
      await dialog.getByRole('button', { name: 'Remove member' }).click();
      await row.waitFor({ state: 'detached' });
      const members = await api('GET', `/team/members/${teamId}`, { token: admin.token });
      expect(members.body.data.map((member: { email: string }) => member.email)).not.toContain(existing);
      expect(profiles.pageErrors).toEqual([]);
    });

    it('the account screen changes the name, the avatar and the password', async () => {
      const email = `account-${mode}@example.com`;
      const account = await signUpUser(spendgate.url, email, { password: PASSWORD, name: 'Ann Account' });
      const page = await open('/dashboard/settings/account', { as: account });

      const profile = page.getByRole('form', { name: 'Profile' });
      expect(await profile.getByLabel('Name').inputValue()).toBe('Ann Account');
      await page.getByRole('heading', { name: /E-mail verification/ }).getByText('Verified').waitFor();
      await profile.getByLabel('Name').fill('');
      await profile.getByRole('button', { name: 'Save name' }).click();
      await profile.getByText('Name is required').waitFor();
      await profile.getByLabel('Name').fill('Ann Newname');
      await profile.getByRole('button', { name: 'Save name' }).click();
      await profile.getByText('Your name has been saved.').waitFor();

      await page.getByLabel('Upload a picture').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: solidPng(600, 400, [200, 30, 60]) });
      await page.getByText('Your new avatar has been saved.').waitFor();
      await page.getByRole('img', { name: 'Your avatar' }).waitFor();

      const password = page.getByRole('form', { name: 'Change password' });
      await password.getByLabel('Current password', { exact: true }).fill(PASSWORD);
      await password.getByLabel('New password', { exact: true }).fill('an even longer passphrase');
      await password.getByLabel('Confirm new password').fill('an even longer passphras');
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.getByText('The passwords do not match').waitFor();
      await password.getByLabel('Confirm new password').fill('an even longer passphrase');
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.getByText('Your password has been changed.').waitFor();

      // What the API now holds; the old password (and the old session) no longer work.
      expect((await api('POST', '/auth/login', { body: { email, password: PASSWORD } })).status).toBe(401);
      const login = await api('POST', '/auth/login', { body: { email, password: 'an even longer passphrase' } });
      expect(login.status).toBe(200);
      expect(login.body.data.user.name).toBe('Ann Newname');
      expect(login.body.data.user.avatar).toMatch(/^data:image\/(webp|jpeg|png);base64,/);
      expect((await api('GET', '/auth/profile', { token: account.token })).status).toBe(401);

      // This browser kept its session: the new token was stored.
      await page.reload();
      await page.getByRole('form', { name: 'Profile' }).getByLabel('Name').waitFor();
      expect(await page.getByRole('form', { name: 'Profile' }).getByLabel('Name').inputValue()).toBe('Ann Newname');
      expect(new URL(page.url()).pathname).toBe('/dashboard/settings/account');
      expect(profiles.pageErrors).toEqual([]);
    });

    it('sends a session whose e-mail is not verified from /dashboard to /verify', async () => {
      const email = `unverified-${mode}@example.com`;
      const registered = await api('POST', '/auth/register', { body: { email, password: PASSWORD, name: 'Uma Unverified' } });
      expect(registered.status).toBe(201);
      const page = await open('/dashboard/settings/team', { as: registered.body.data });
      await page.waitForURL((url) => url.pathname === '/verify');
      expect(new URL(page.url()).searchParams.get('email')).toBe(email);
      await page.getByText(`We sent a six-digit code to ${email}.`, { exact: false }).waitFor();
    });

    it("the Team screen's sub-navigation leads to each section, and stays in view beside them on a wide screen", async () => {
      /** Whether `locator`'s top is inside the window. */
      const inView = (locator: Locator) => locator.evaluate((element) => element.getBoundingClientRect().top >= 0 && element.getBoundingClientRect().top < window.innerHeight);
      for (const width of WIDTHS) {
        const page = await open(`/dashboard/settings/team?team=${teamId}`, { as: admin, width });
        const nav = page.getByRole('navigation', { name: 'Team settings' });
        const sso = page.getByRole('heading', { name: 'Single sign-on', level: 2 });
        await sso.waitFor();
        expect(await nav.getByRole('link').allTextContents()).toEqual(['Members', 'Budget', 'Capture & retention', 'Access review', 'AI advisor', 'Single sign-on']);
        expect(await inView(sso)).toBe(false);
        await nav.getByRole('link', { name: 'Single sign-on' }).click();
        await expect.poll(() => inView(sso)).toBe(true);
        const url = new URL(page.url());
        expect([url.pathname, url.searchParams.get('team'), url.hash]).toEqual(['/dashboard/settings/team', teamId, '#team-sso']);
        // Beside the sections (sticky) at 1280 px; above them, scrolled away, on a phone.
        expect(await inView(nav)).toBe(width === 1280);
        await nav.getByRole('link', { name: 'Members' }).click();
        await expect.poll(() => inView(page.getByRole('form', { name: 'Invite a member' }))).toBe(true);
      }
      expect(profiles.pageErrors).toEqual([]);
    });

    it('shows the Settings, Team (with and without a team) and Account screens at 1280 and 390 px, light and dark, without overflow or axe violations', async () => {
      const alone = await signUpUser(spendgate.url, `newcomer-${mode}@example.com`, { password: PASSWORD, name: 'Nia Newcomer' });
      for (const width of WIDTHS) {
        for (const theme of THEMES) {
          const settings = await open('/dashboard/settings', { as: admin, width, theme });
          for (const [name, href] of [['Account', '/dashboard/settings/account'], ['Team', '/dashboard/settings/team'], ['Subscription', '/dashboard/settings/subscription']]) {
            expect(await settings.getByRole('main').getByRole('link', { name: new RegExp(`^${name}`) }).getAttribute('href')).toBe(href);
          }
          await checkPage(settings, `settings-${mode}-${theme}-${width}`);

          const setup = await open('/dashboard/settings/team', { as: alone, width, theme });
          await setup.getByRole('form', { name: 'Create a team' }).waitFor();
          await setup.getByRole('form', { name: 'Join a team' }).waitFor();
          await checkPage(setup, `team-none-${mode}-${theme}-${width}`);

          const team = await open('/dashboard/settings/team', { as: admin, width, theme });
          await team.getByRole('listitem', { name: 'Colin Colleague' }).waitFor();
          await team.getByText(/seats free on your Growth plan/).waitFor();
          await team.getByRole('heading', { name: 'Team budgets' }).waitFor();
          await checkPage(team, `team-${mode}-${theme}-${width}`);

          const account = await open('/dashboard/settings/account', { as: admin, width, theme });
          await account.getByRole('form', { name: 'Change password' }).waitFor();
          await checkPage(account, `account-${mode}-${theme}-${width}`);
        }
      }
      const link = await invitationLink(`colleague-${mode}@example.com`);
      // Used: the link now leaves the ordinary form, with the reason.
      const used = await open(link, { width: 390 });
      await used.getByRole('alert').getByText("This invitation link is invalid, has been used or has expired. Ask the team's admin for a new one.").waitFor();
      await used.getByRole('button', { name: 'Create account' }).waitFor();
      await checkPage(used, `team-used-invitation-${mode}-390`);
      expect(profiles.pageErrors).toEqual([]);
    }, 120_000);
  });
});
