/**
 * Sign in with Google in Debian's Chromium against a whole Spendgate and a local Google
 * (e2e/fakes/google.ts: its keys and Google Identity Services' client library, whose button
 * is a frame and whose account chooser is a popup), in each run mode. A person picks the
 * Growth plan, presses "Sign up with Google" on /register, chooses their Google account in
 * the popup and lands on the dashboard, signed in, on Growth's trial; later "Sign in with
 * Google" on /login signs the same account in, and registering that address with a password
 * points to /login as soon as the e-mail field is left; the Account screen lists Google as the
 * account's way in, and no password, with how to set one. A Google account whose address Google has not
 * verified is refused with the server's reason on the screen. The page's CSP lets the frame
 * load (it is the server's, with Google's places added). Screenshots at 1280 and 390 px, no
 * sideways scroll, no critical or serious axe-core violation.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeGoogle, GOOGLE_CLIENT_ID, startFakeGoogle } from '../fakes/google.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { browserSuite, CHROMIUM_PATH, hasChromium } from './support/chromium.ts';
import { type BrowserProfiles, browserProfiles, checkPage } from './support/session.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

describe.skipIf(!hasChromium)('Sign in with Google in the console', () => {
  const suite = browserSuite();

  describe.each(testModes)('%s', (mode) => {
    let spendgate: RunningSpendgate;
    let google: FakeGoogle;
    let profiles: BrowserProfiles;
    const gina = { sub: `google-gina-${mode}`, email: `gina-${mode}@gmail.example`, name: 'Gina Google' };

    /** Presses Google's button (in its frame) and chooses `name` in the popup it opens. */
    async function chooseGoogleAccount(page: Page, button: string, name: string) {
      const popup = page.context().waitForEvent('page');
      await page.frameLocator('iframe[title="Sign in with Google Button"]').getByRole('button', { name: button }).click();
      const chooser = await popup;
      await chooser.getByRole('link', { name: new RegExp(`^${name} `) }).click();
    }

    beforeAll(async () => {
      google = await startFakeGoogle();
      google.accounts.push(gina, { sub: `google-unverified-${mode}`, email: `una-${mode}@gmail.example`, name: 'Una Unverified', email_verified: false });
      spendgate = await startSpendgate(mode, `browser-google-${mode}`, {
        consoleDir: suite.consoleDir,
        env: { GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl, GOOGLE_SIGN_IN_SCRIPT_URL: google.scriptUrl },
      });
      profiles = browserProfiles(suite.browser, spendgate.url);
    }, 120_000);

    afterAll(async () => {
      await profiles?.closeAll();
      await spendgate?.close();
      await google?.close();
    });

    it('signs a new person up with Google on the plan they chose, and signs them in again from /login', async () => {
      const plans = (await callApi(spendgate.url, 'GET', '/subscription/plans')).body.data as { id: string; slug: string }[];
      const growth = plans.find((plan) => plan.slug === 'growth')!;
      for (const [route, button] of [[`/register?plan=${growth.id}`, 'Sign up with Google'], ['/login', 'Sign in with Google']] as const) {
        for (const width of [1280, 390]) {
          const shot = await profiles.open(route, { width });
          await shot.frameLocator('iframe[title="Sign in with Google Button"]').getByRole('button', { name: button }).waitFor();
          await checkPage(shot, `google-${mode}${new URL(route, spendgate.url).pathname.replace('/', '-')}-${width}`);
        }
      }

      const signUp = await profiles.open(`/register?plan=${growth.id}`);
      await chooseGoogleAccount(signUp, 'Sign up with Google', 'Gina Google');
      await signUp.waitForURL(`${spendgate.url}/dashboard`);
      const stored = await signUp.evaluate(() => ({ token: localStorage.getItem('token'), user: JSON.parse(localStorage.getItem('user') ?? 'null') }));
      expect(stored.user).toMatchObject({ email: gina.email, name: 'Gina Google', emailVerified: true });
      const profile = await callApi(spendgate.url, 'GET', '/auth/profile', { token: stored.token! });
      expect(profile.body.data.user.subscription).toMatchObject({ plan: 'growth', status: 'trialing' });

      const signIn = await profiles.open('/login');
      await chooseGoogleAccount(signIn, 'Sign in with Google', 'Gina Google');
      await signIn.waitForURL(`${spendgate.url}/dashboard`);
      expect(await signIn.evaluate(() => JSON.parse(localStorage.getItem('user') ?? 'null').id)).toBe(stored.user.id);

      // The Account screen says how the account signs in: Google, no password, and how to set one.
      for (const width of [1280, 390]) {
        const account = await profiles.open('/dashboard/settings/account', { as: { token: stored.token!, user: stored.user }, width });
        const methods = account.getByRole('region', { name: 'Sign-in methods' });
        await methods.getByText('Linked', { exact: true }).waitFor();
        expect((await methods.getByRole('listitem').allTextContents()).map((text) => text.trim())).toEqual(['Password Not set', 'Google Linked']);
        await account.getByRole('link', { name: 'Set a password' }).waitFor();
        await checkPage(account, `google-${mode}-account-${width}`);
      }

      // Registering the address again with a password: the form points to /login as soon as the field is left.
      const again = await profiles.open('/register', { width: 390 });
      await again.getByLabel('Work email').fill(gina.email);
      await again.getByLabel('Password').focus();
      await again.getByRole('status').getByText('An account with this e-mail already exists.').waitFor();
      await checkPage(again, `google-${mode}-register-taken-390`);
      expect(profiles.pageErrors).toEqual([]);
      expect(profiles.consoleErrors, 'the CSP let Google’s library, frame and popup work').toEqual([]);
    }, 180_000);

    it('shows why a Google account whose address Google has not verified is refused, and stays on /login', async () => {
      const page = await profiles.open('/login', { width: 390 });
      await chooseGoogleAccount(page, 'Sign in with Google', 'Una Unverified');
      await page.getByRole('alert').getByText('Google sign-in failed: the token is not valid').waitFor();
      expect(new URL(page.url()).pathname).toBe('/login');
      expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
      await checkPage(page, `google-${mode}-refused-390`);
    }, 120_000);
  });
});
