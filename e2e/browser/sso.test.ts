/**
 * Single sign-on in Debian's Chromium against a whole Spendgate and a real OpenID Provider
 * on loopback (e2e/fakes/oidc-idp.ts, oidc-provider), in each run mode: an Enterprise team's
 * admin sets the IdP up in the Team screen's Single sign-on panel (issuer, client, secret,
 * domain, a group mapped to Admin), sees the domain "Not verified" with the DNS TXT record to
 * publish (each field with a Copy button that fills the clipboard), is told what DNS answered when Verify finds nothing, publishes the record on a local
 * DNS server (e2e/fakes/dns-server.ts, the gateway's DNS_SERVERS) and verifies it; then a person of the domain, in a fresh browser, chooses
 * "Sign in with SSO" on /login, enters their work address, signs in on the IdP's own login
 * and consent pages, comes back through /sso/callback and lands on the dashboard, signed in,
 * an admin of the team as the mapping says; the admin then sees that person's linked identity
 * and unlinks it after a confirmation. Enforced, a password sign-in for the domain is
 * refused with the spec's message and the SSO form opens with the address kept. A team on
 * the free trial is told SSO is on the Enterprise plan. Screenshots at 1280 and 390 px, no
 * sideways scroll, no critical or serious axe-core violation.
 */
import { SSO_REQUIRED_MESSAGE } from '@spendgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDns, startFakeDns } from '../fakes/dns-server.ts';
import { type FakeIdp, startFakeIdp } from '../fakes/oidc-idp.ts';
import { freePort } from '../support/free-port.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage, signUpTeamAdmin, signUpUser, type TeamAdmin } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

describe.skipIf(!hasChromium)('single sign-on in the console', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let idp: FakeIdp;
    let dns: FakeDns;
    let admin: TeamAdmin;
    let trial: TeamAdmin;
    let profiles: BrowserProfiles;

    beforeAll(async () => {
      const port = await freePort();
      const publicUrl = `http://127.0.0.1:${port}`;
      idp = await startFakeIdp({ redirectUri: `${publicUrl}/sso/callback`, people: [{ email: 'ada@acme.example', name: 'Ada Lovelace', groups: ['platform'] }] });
      dns = await startFakeDns();
      spendgate = await startSpendgate(mode, `browser-sso-${mode}`, { consoleDir: suite.consoleDir, port, env: { PUBLIC_URL: publicUrl, DNS_SERVERS: dns.server } });
      profiles = browserProfiles(suite.browser, spendgate.url);
      admin = await signUpTeamAdmin(spendgate.url, `owner-${mode}@spendgate-tests.example`, { name: 'Olive Owner', team: { name: 'Acme', description: '' }, plan: 'enterprise' });
      trial = await signUpTeamAdmin(spendgate.url, `trial-${mode}@spendgate-tests.example`, { name: 'Tom Trial', team: { name: 'Small lab', description: '' } });
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
      await idp?.close();
      await dns?.close();
    });

    it('lets an Enterprise admin set the identity provider up in the Team screen', async () => {
      const page = await profiles.open('/dashboard/settings/team', { as: admin });
      const panel = page.getByRole('form', { name: 'Single sign-on' });
      await panel.getByLabel('Issuer URL').fill(idp.issuer);
      await panel.getByLabel('Client ID').fill(idp.clientId);
      await panel.getByLabel('Client secret').fill(idp.clientSecret);
      await panel.getByLabel('E-mail domains').fill('acme.example');
      await panel.getByRole('button', { name: 'Add a group mapping' }).click();
      await panel.getByLabel('IdP group').fill('platform');
      await panel.getByLabel('Team role').selectOption('ADMIN');
      await panel.getByRole('button', { name: 'Save single sign-on' }).click();
      await panel.getByText('Single sign-on saved.').waitFor();
      await panel.getByText(`${spendgate.url}/sso/callback`).waitFor();
      expect(await panel.getByLabel('Client secret').inputValue()).toBe('');
      const saved = await callApi(spendgate.url, 'GET', `/sso?teamId=${admin.teamId}`, { token: admin.token });
      expect(saved.body.data.provider).toMatchObject({ issuer: idp.issuer, domains: ['acme.example'], mappings: [{ idpGroup: 'platform', teamRole: 'ADMIN', groupId: null, groupRole: null }] });
      const { record } = saved.body.data.provider.domainVerification[0];
      expect(record).toEqual({ type: 'TXT', name: '_spendgate-challenge.acme.example', value: expect.stringMatching(/^spendgate-domain-verification=/) });
      const domainState = panel.getByRole('region', { name: 'Domain verification' }).getByRole('listitem');
      await domainState.getByText('Not verified').waitFor();
      expect(await domainState.getByLabel('TXT name for acme.example', { exact: true }).inputValue()).toBe(record.name);
      expect(await domainState.getByLabel('TXT value for acme.example', { exact: true }).inputValue()).toBe(record.value);
      // Copy puts the value on the clipboard and says so, as the key and snippet fields do.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await domainState.getByRole('button', { name: 'Copy TXT value for acme.example' }).click();
      await domainState.getByRole('status').getByText('Copied', { exact: true }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(record.value);
      await domainState.getByRole('button', { name: 'Verify acme.example' }).click();
      await domainState
        .getByRole('alert')
        .getByText(`domain: acme.example is not verified: ${record.name} does not exist (NXDOMAIN); publish the TXT record ${record.value} there, then verify again`)
        .waitFor();
      for (const width of [1280, 390]) {
        const shot = await profiles.open('/dashboard/settings/team', { as: admin, width });
        await shot.getByRole('form', { name: 'Single sign-on' }).getByText('Not verified').waitFor();
        await checkPage(shot, `sso-${mode}-team-${width}`);
      }
      dns.set(record.name, { txt: [record.value] });
      await domainState.getByRole('button', { name: 'Verify acme.example' }).click();
      await domainState.getByText('Verified', { exact: true }).waitFor();
      expect(await domainState.getByRole('button', { name: 'Verify acme.example' }).count()).toBe(0);
      const verified = await profiles.open('/dashboard/settings/team', { as: admin, width: 390 });
      await verified.getByRole('form', { name: 'Single sign-on' }).getByText('Verified', { exact: true }).waitFor();
      await checkPage(verified, `sso-${mode}-team-verified-390`);
      const onTrial = await profiles.open('/dashboard/settings/team', { as: trial, width: 390 });
      await onTrial.getByText('Single sign-on is part of the Enterprise plan; the Free Trial plan does not include it.').waitFor();
      await checkPage(onTrial, `sso-${mode}-team-trial-390`);
      expect(profiles.pageErrors).toEqual([]);
    }, 180_000);

    it('signs a person of the domain in through the IdP’s own pages and opens the dashboard', async () => {
      for (const width of [1280, 390]) {
        const shot = await profiles.open('/login', { width });
        await shot.getByRole('button', { name: 'Sign in with SSO' }).click();
        await shot.getByLabel('Work email').fill('ada@acme.example');
        await checkPage(shot, `sso-${mode}-login-${width}`);
      }
      const page = await profiles.open('/login');
      await page.getByRole('button', { name: 'Sign in with SSO' }).click();
      await page.getByLabel('Work email').fill('ada@acme.example');
      await page.getByRole('button', { name: 'Continue with SSO' }).click();
      await page.waitForURL((url) => url.origin === idp.issuer);
      await page.locator('input[name="login"]').fill('ada@acme.example');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${spendgate.url}/dashboard`);
      const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? 'null'));
      expect(stored).toMatchObject({ email: 'ada@acme.example', name: 'Ada Lovelace', emailVerified: true });
      await page.goto(`${spendgate.url}/dashboard/settings/account`);
      const methods = page.getByRole('region', { name: 'Sign-in methods' });
      await methods.getByText('Single sign-on for Acme').waitFor();
      expect((await methods.getByRole('listitem').allTextContents()).map((text) => text.trim())).toEqual([
        'Password Not set',
        expect.stringMatching(new RegExp(`^Single sign-on for Acme Linked at ${new URL(idp.issuer).host.replace(/\./g, '\\.')} since \\d{1,2} [A-Z][a-z]{2} \\d{4}$`)),
      ]);
      await page.setViewportSize({ width: 390, height: 900 });
      await checkPage(page, `sso-${mode}-account-390`);
      const members = await callApi(spendgate.url, 'GET', `/team/members/${admin.teamId}`, { token: admin.token });
      expect(JSON.stringify(members.body.data)).toContain('ada@acme.example');
      expect(profiles.pageErrors).toEqual([]);
    }, 180_000);

    it("shows an admin a member's linked identity and unlinks it after a confirmation", async () => {
      const ada = (await callApi(spendgate.url, 'GET', `/team/members/${admin.teamId}`, { token: admin.token })).body.data.find((member: { email: string }) => member.email === 'ada@acme.example');
      for (const width of [1280, 390]) {
        const shot = await profiles.open('/dashboard/settings/team', { as: admin, width });
        const section = shot.getByRole('region', { name: 'Linked identities' });
        await section.getByLabel('Member').selectOption(ada.id);
        await section.getByRole('button', { name: 'Unlink ada@acme.example' }).waitFor();
        await checkPage(shot, `sso-${mode}-identities-${width}`);
      }
      const page = await profiles.open('/dashboard/settings/team', { as: admin, width: 390 });
      const section = page.getByRole('region', { name: 'Linked identities' });
      await section.getByLabel('Member').selectOption(ada.id);
      await section.getByRole('button', { name: 'Unlink ada@acme.example' }).click();
      const dialog = page.getByRole('dialog', { name: 'Unlink this identity?' });
      await dialog.getByText(`ada@acme.example will no longer be linked to ada@acme.example at ${idp.issuer}.`).waitFor();
      await checkPage(page, `sso-${mode}-unlink-390`);
      await dialog.getByRole('button', { name: 'Unlink identity' }).click();
      await section.getByText('ada@acme.example is not linked to an identity at your identity provider.').waitFor();
      const linked = await callApi(spendgate.url, 'GET', `/sso/identities?teamId=${admin.teamId}&userId=${ada.id}`, { token: admin.token });
      expect(linked.body.data.identities).toEqual([]);
      expect(profiles.pageErrors).toEqual([]);
    }, 180_000);

    it('enforced, answers a password sign-in with the SSO form and the reason', async () => {
      const bob = await signUpUser(spendgate.url, `bob-${mode}@acme.example`, { password: 'bob has a long password' });
      const provider = (await callApi(spendgate.url, 'GET', `/sso?teamId=${admin.teamId}`, { token: admin.token })).body.data.provider;
      const { teamId, issuer, clientId, domains, groupsClaim, defaultTeamRole, mappings } = provider;
      expect(provider.domainVerification[0].verifiedAt).not.toBeNull();
      expect((await callApi(spendgate.url, 'PUT', '/sso', { token: admin.token, body: { teamId, issuer, clientId, domains, groupsClaim, defaultTeamRole, mappings, enforced: true } })).status).toBe(200);
      const page = await profiles.open('/login', { width: 390 });
      await page.getByLabel('Email').fill(bob.email);
      await page.getByLabel('Password').fill('bob has a long password');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').getByText(SSO_REQUIRED_MESSAGE).waitFor();
      expect(await page.getByLabel('Work email').inputValue()).toBe(bob.email);
      await checkPage(page, `sso-${mode}-enforced-390`);
    }, 120_000);
  });
});
