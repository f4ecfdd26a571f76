/**
 * The dashboard's frame and its quality in Debian's Chromium, against a whole Spendgate
 * (embedded) with a team that has a connection, a group, a key and metered requests:
 * - the sidebar beside the page at 1280 px and a drawer at 390 px (menu button,
 *   Escape, backdrop, a link followed), the theme (the system's, then the one chosen,
 *   kept across a reload), and no console error navigating into and out of screens;
 * - the billing pages against the server's answer for a checkout;
 * - axe-core (WCAG 2.1 A and AA) on every public page, every dashboard screen the
 *   screen table (console/src/dashboard/screens.ts) lists and the views a URL opens in
 *   them, and a confirmation dialog, in light and dark: no critical or serious violation;
 * - the same for a new account without a team (the screens' empty states);
 * - a screenshot of every dashboard screen at 1280 and 390 px in both themes, in
 *   e2e/browser/screenshots (git-ignored), with nothing wider than the window.
 * Skipped, with a message, only where /usr/bin/chromium is absent.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_SCREENS, PRIVATE_SCREEN_NAMES } from '../../console/src/dashboard/screens.ts';
import { SITE_PATHS } from '../../console/src/site/paths.ts';
import { issueByokKey, signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, usageWritten } from '../support/spendgate.ts';
import { axeViolations, blockingViolations, describeViolations } from './support/axe.ts';
import { buildConsole, CHROMIUM_PATH, hasChromium, launchChromium, SCREENSHOT_DIR } from './support/chromium.ts';

if (!hasChromium) console.warn(`Browser tests skipped: ${CHROMIUM_PATH} is absent (install it with: apt-get install -y chromium).`);

const DESKTOP = 1280;
const MOBILE = 390;
type Theme = 'light' | 'dark';
const THEMES: Theme[] = ['light', 'dark'];

/** Every page of the site outside the dashboard: its pages, the sign-in screens, the blog and the 404 page. */
const PUBLIC_PATHS = [...SITE_PATHS.filter((route) => !route.startsWith('/dashboard')), '/blog/', '/no-such-page'];
/** Every screen of the table but those showing one object by a path parameter (the request detail: request-detail.test.ts). */
const TABLE_PATHS = PRIVATE_SCREEN_NAMES.map((name) => DASHBOARD_SCREENS[name].path).filter((path) => !path.includes('$'));

describe.skipIf(!hasChromium)('the dashboard frame in Chromium', () => {
  let spendgate: RunningSpendgate;
  let fake: FakeOpenAI;
  let browser: Browser;
  let consoleDir: string;
  let tenant: Tenant;
  let session: { token: string; user: unknown };
  /** A new account that has no team yet: the screens' empty states. */
  let newcomer: { token: string; user: unknown };
  /** Every screen of the table, and the views inside them a URL opens (a group's details, a connection's, the new-connection form). */
  let dashboardRoutes: string[];

  beforeAll(async () => {
    consoleDir = await buildConsole();
    [spendgate, fake, browser] = await Promise.all([startSpendgate('embedded', 'browser-dashboard-frame', { consoleDir }), startFakeOpenAI(), launchChromium()]);
    tenant = await signUpTeam(spendgate.url, `frame-${Date.now()}@example.com`);
    const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
    for (const content of ['Hello', 'Hello again']) {
      const answer = await fetch(`${spendgate.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
      });
      expect(answer.status).toBe(200);
    }
    await usageWritten(spendgate);
    const profile = await callApi(spendgate.url, 'GET', '/auth/profile', { token: tenant.token });
    session = { token: tenant.token, user: profile.body.data.user };
    const { token: newcomerToken } = await signUp(spendgate.url, `newcomer-${Date.now()}@example.com`, { name: 'Newcomer' });
    newcomer = { token: newcomerToken, user: (await callApi(spendgate.url, 'GET', '/auth/profile', { token: newcomerToken })).body.data.user };
    const connections = await callApi(spendgate.url, 'GET', `/provider/connections?teamId=${tenant.teamId}`, { token: tenant.token });
    dashboardRoutes = [
      ...TABLE_PATHS,
      `/dashboard/synthetic-groups?group=${tenant.groupId}`,
      `/dashboard/ai-connection?connection=${connections.body.data[0].id}`,
      '/dashboard/ai-connection?mode=new',
    ];
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await fake?.close();
    await spendgate?.close();
    if (consoleDir) await rm(consoleDir, { recursive: true, force: true });
  });

  interface Opened {
    context: BrowserContext;
    page: Page;
    /** Errors the page logged and uncaught errors in it. */
    errors: string[];
  }

  /** A fresh browser profile, signed in (as the team's owner unless `as` says who) unless `signedOut`, its system theme `colorScheme`. */
  async function openBrowser(options: { width: number; colorScheme: Theme; signedOut?: boolean; as?: { token: string; user: unknown } }): Promise<Opened> {
    const context = await browser.newContext({ viewport: { width: options.width, height: 900 }, colorScheme: options.colorScheme });
    if (!options.signedOut) {
      await context.addInitScript((seed) => {
        if (sessionStorage.getItem('seeded')) return;
        localStorage.setItem('token', seed.token);
        localStorage.setItem('user', JSON.stringify(seed.user));
        sessionStorage.setItem('seeded', 'yes');
      }, options.as ?? session);
    }
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    return { context, page, errors };
  }

  /** Goes to `route` and waits until it has settled: requests answered, no spinner left. */
  async function visit(page: Page, route: string) {
    await page.goto(`${spendgate.url}${route}`);
    await settle(page);
  }

  async function settle(page: Page) {
    await page.waitForLoadState('networkidle');
    await page.locator('.spinner').first().waitFor({ state: 'detached' });
    await page.evaluate(() => document.fonts.ready);
  }

  const sidebar = (page: Page) => page.getByRole('complementary', { name: 'Dashboard' });
  const sidewaysOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

  it('at 390 px the sidebar is a drawer: closed at first, opened by the menu button, closed by Escape, its close button, the backdrop and a link', async () => {
    const { context, page, errors } = await openBrowser({ width: MOBILE, colorScheme: 'light' });
    await visit(page, '/dashboard');
    const menu = page.getByRole('button', { name: 'Open menu' });
    expect(await sidebar(page).isVisible()).toBe(false);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);

    await menu.click();
    expect(await sidebar(page).isVisible()).toBe(true);
    // The page behind the drawer (its top bar too) takes neither focus nor clicks meanwhile.
    expect(await page.locator('.dashboard__main').evaluate((main) => (main as HTMLElement).inert)).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `frame-drawer-${MOBILE}-light.png`) });
    // Focus moves into the drawer; Escape gives it back to the menu button.
    expect(await page.evaluate(() => document.activeElement?.closest('aside')?.getAttribute('aria-label'))).toBe('Dashboard');
    await page.keyboard.press('Escape');
    expect(await sidebar(page).isVisible()).toBe(false);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Open menu');

    await menu.click();
    await sidebar(page).getByRole('button', { name: 'Close menu' }).click();
    expect(await sidebar(page).isVisible()).toBe(false);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Open menu');

    await menu.click();
    await page.mouse.click(MOBILE - 20, 450); // the backdrop, right of the drawer
    expect(await sidebar(page).isVisible()).toBe(false);

    await menu.click();
    await sidebar(page).getByRole('link', { name: 'AI Connections', exact: true }).click();
    await page.waitForURL('**/dashboard/ai-connection');
    await page.getByRole('heading', { name: 'AI Connections', exact: true }).waitFor();
    expect(await sidebar(page).isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('at 1280 px the sidebar is open beside the page and the toggle hides it', async () => {
    const { context, page } = await openBrowser({ width: DESKTOP, colorScheme: 'light' });
    await visit(page, '/dashboard');
    expect(await sidebar(page).isVisible()).toBe(true);
    const main = await page.locator('.dashboard__main').boundingBox();
    const aside = await sidebar(page).boundingBox();
    expect(main!.x).toBeGreaterThanOrEqual(aside!.x + aside!.width);
    await page.getByRole('button', { name: 'Hide sidebar' }).click();
    expect(await sidebar(page).isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Show sidebar' }).click();
    expect(await sidebar(page).isVisible()).toBe(true);
    await context.close();
  });

  it("follows the system's theme until one is chosen, then keeps the choice across a reload", async () => {
    const { context, page } = await openBrowser({ width: DESKTOP, colorScheme: 'dark' });
    await visit(page, '/dashboard');
    const shell = page.locator('.dashboard');
    expect(await shell.getAttribute('class')).toContain('theme-dark');
    expect(await shell.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(11, 16, 38)');
    // The keyboard's focus ring, in the dark theme's brand ink.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Spendgate home');
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outline)).toBe('rgb(196, 181, 253) solid 2px');
    await page.getByRole('button', { name: 'Use light theme' }).click();
    expect(await shell.getAttribute('class')).toContain('theme-light');
    expect(await shell.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(246, 247, 251)');
    await page.reload();
    await settle(page);
    expect(await page.locator('.dashboard').getAttribute('class')).toContain('theme-light');
    expect(await page.evaluate(() => localStorage.getItem('spendgate.theme'))).toBe('light');
    await context.close();
  });

  it('navigating into, between and out of dashboard screens logs no error', async () => {
    const { context, page, errors } = await openBrowser({ width: DESKTOP, colorScheme: 'light' });
    await visit(page, '/pricing');
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Dashboard' }).click();
    await page.waitForURL('**/dashboard');
    await settle(page);
    const labels = await sidebar(page).getByRole('navigation').getByRole('link').allTextContents();
    expect(labels.length).toBeGreaterThan(3);
    for (const label of labels) {
      await sidebar(page).getByRole('link', { name: label, exact: true }).click();
      await settle(page);
    }
    await sidebar(page).getByRole('link', { name: 'Documentation & Support' }).click();
    await page.waitForURL('**/help-center');
    await page.goBack();
    await page.waitForURL(/\/dashboard/);
    await settle(page);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('the billing pages say what the server answers for the checkout: unknown, so nothing was charged', async () => {
    const { context, page, errors } = await openBrowser({ width: DESKTOP, colorScheme: 'light' });
    for (const [route, heading] of [
      ['/dashboard/billing/success?session_id=cs_test_a1B2c3', 'No payment was taken'],
      ['/dashboard/billing/cancel?session_id=cs_test_a1B2c3', 'Payment cancelled'],
    ] as const) {
      await visit(page, route);
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      const text = (await page.locator('main').textContent()) ?? '';
      expect(text, route).toContain('The server answered: Checkout session not found. Nothing was charged.');
      expect(text, route).not.toContain('Payment complete');
    }
    // The lookup's 404 is the answer, not a failure the page reports.
    expect(errors.filter((error) => !error.includes('404'))).toEqual([]);
    await context.close();
  });

  it.each(THEMES)('a confirmation dialog (revoking a key) has no critical or serious axe violation, %s theme', async (theme) => {
    const { context, page } = await openBrowser({ width: DESKTOP, colorScheme: theme });
    await visit(page, `/dashboard/synthetic-groups?group=${tenant.groupId}`);
    await page.getByRole('button', { name: 'Revoke openai' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke openai?' });
    await dialog.waitFor();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `frame-confirm-dialog-${DESKTOP}-${theme}.png`) });
    const violations = blockingViolations(await axeViolations(page));
    expect(violations, describeViolations(violations)).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await context.close();
  });

  it.each(THEMES)('no critical or serious axe violation on any public page (%s system theme)', async (theme) => {
    const { context, page } = await openBrowser({ width: DESKTOP, colorScheme: theme, signedOut: true });
    const problems: string[] = [];
    for (const route of PUBLIC_PATHS) {
      await visit(page, route);
      const violations = blockingViolations(await axeViolations(page));
      if (violations.length > 0) problems.push(`${route}\n${describeViolations(violations)}`);
    }
    expect(problems.join('\n\n')).toBe('');
    await context.close();
  }, 180_000);

  it.each(THEMES)('no critical or serious axe violation on any dashboard screen, %s theme; screenshots at 1280 and 390 px', async (theme) => {
    const problems: string[] = [];
    for (const width of [DESKTOP, MOBILE]) {
      const { context, page, errors } = await openBrowser({ width, colorScheme: theme });
      for (const route of dashboardRoutes) {
        await visit(page, route);
        expect(await page.locator('.dashboard').getAttribute('class'), route).toContain(`theme-${theme}`);
        const name = route.replace(/[/?=]/g, '-').replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, 'id');
        await page.screenshot({ path: path.join(SCREENSHOT_DIR, `frame${name}-${width}-${theme}.png`), fullPage: true });
        const overflow = await sidewaysOverflow(page);
        if (overflow > 0) problems.push(`${route} at ${width} px is ${overflow} px wider than the window`);
        if (width === DESKTOP) {
          const violations = blockingViolations(await axeViolations(page));
          if (violations.length > 0) problems.push(`${route}\n${describeViolations(violations)}`);
        }
      }
      if (errors.length > 0) problems.push(`console errors at ${width} px:\n${errors.join('\n')}`);
      await context.close();
    }
    expect(problems.join('\n\n')).toBe('');
  }, 240_000);

  it.each(THEMES)('no critical or serious axe violation on any dashboard screen of an account without a team, %s theme', async (theme) => {
    const { context, page, errors } = await openBrowser({ width: DESKTOP, colorScheme: theme, as: newcomer });
    const problems: string[] = [];
    for (const route of TABLE_PATHS) {
      await visit(page, route);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `frame-newcomer${route.replaceAll('/', '-')}-${DESKTOP}-${theme}.png`), fullPage: true });
      const violations = blockingViolations(await axeViolations(page));
      if (violations.length > 0) problems.push(`${route}\n${describeViolations(violations)}`);
    }
    if (errors.length > 0) problems.push(`console errors:\n${errors.join('\n')}`);
    expect(problems.join('\n\n')).toBe('');
    await context.close();
  }, 120_000);
});
