/**
 * What every browser test sets up before it looks at a screen: a user signed up (e-mail
 * confirmed) who made a team, optionally on a paid plan (Growth, or Enterprise for its
 * features: GPU analytics, the audit log, the access review); fresh browser profiles signed
 * in as someone (their session seeded into localStorage, as the console keeps it after
 * sign-in) in a theme and a width, collecting the page's errors; and the check each
 * screenshot gets (no sideways scroll, no critical or serious axe-core violation).
 *
 * @example
 *   const admin = await signUpTeamAdmin(spendgate.url, 'ada@example.com', { plan: 'growth' });
 *   const profiles = browserProfiles(browser, spendgate.url);
 *   const page = await profiles.open('/dashboard', { as: admin, width: 390, theme: 'dark' });
 *   await checkPage(page, 'overview-dark-390');
 */
import path from 'node:path';
import { listOutboxMail, upsertSubscription } from '@spendgate/store';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { signUp } from '../../support/sign-up.ts';
import { callApi, runningAt } from '../../support/spendgate.ts';
import { axeViolations, blockingViolations, describeViolations } from './axe.ts';
import { SCREENSHOT_DIR } from './chromium.ts';

/** A signed-in session as the console stores it: the token and the user of /auth/profile. */
export interface BrowserSession {
  token: string;
  user: unknown;
}

/** A user who signed up (e-mail confirmed), with the session a browser of theirs holds. */
export interface SignedUpUser extends BrowserSession {
  email: string;
  userId: string;
}

/** A user who signed up and made a team, which they administer. */
export interface TeamAdmin extends SignedUpUser {
  teamId: string;
}

export interface SignUpOptions {
  name?: string;
  password?: string;
}

export interface TeamAdminOptions extends SignUpOptions {
  team?: { name: string; description: string };
  /** A paid plan instead of the trial (whose two seats refuse a third member); Enterprise for its own features. */
  plan?: 'growth' | 'enterprise';
}

/** Signs `email` up through the API, its mailed code confirmed. */
export async function signUpUser(base: string, email: string, options: SignUpOptions = {}): Promise<SignedUpUser> {
  const { userId, token } = await signUp(base, email, options);
  const user = (await callApi(base, 'GET', '/auth/profile', { token })).body.data.user;
  return { email, userId, token, user };
}

/** Signs `email` up, on `plan` if given, and creates its team (Platform unless `team` says otherwise). */
export async function signUpTeamAdmin(base: string, email: string, options: TeamAdminOptions = {}): Promise<TeamAdmin> {
  const { team: teamFields = { name: 'Platform', description: '' }, plan, ...signUpOptions } = options;
  const signedUp = await signUpUser(base, email, signUpOptions);
  if (plan) await upsertSubscription(runningAt(base).app.runtime.stores.sql.db, { userId: signedUp.userId, planSlug: plan, status: 'active', trialEnd: null });
  const team = await callApi(base, 'POST', '/team/', { token: signedUp.token, body: teamFields });
  expect(team.status, JSON.stringify(team.body)).toBe(201);
  return { ...signedUp, teamId: team.body.data.id };
}

/** The token of the newest group invitation link mailed to `email` by the Spendgate at `base`. */
export async function invitationToken(base: string, email: string): Promise<string> {
  const newest = (await listOutboxMail(runningAt(base).app.runtime.stores.sql.db, email)).at(-1);
  const token = newest && /accept-invite\?token=([A-Za-z0-9_-]+)/.exec(newest.text_body)?.[1];
  if (!token) throw new Error(`no group invitation mailed to ${email}: ${newest?.text_body}`);
  return token;
}

export interface OpenOptions {
  width?: number;
  theme?: 'light' | 'dark';
  /** Signed in as this session; else signed out. */
  as?: BrowserSession;
}

export interface BrowserProfiles {
  /** A fresh browser profile at `route` (a path on the Spendgate), 900 px high. */
  open(route: string, options?: OpenOptions): Promise<Page>;
  /** The pages' uncaught errors. */
  pageErrors: string[];
  /** What the pages logged as errors, but the browser's own line for each answer of 400 or more. */
  consoleErrors: string[];
  closeAll(): Promise<void>;
}

export function browserProfiles(browser: Browser, base: string): BrowserProfiles {
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  return {
    pageErrors,
    consoleErrors,
    async open(route, options = {}) {
      // Reduced motion: charts are drawn at once, so screenshots show them whole.
      const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 }, reducedMotion: 'reduce' });
      contexts.push(context);
      context.setDefaultTimeout(20_000);
      await context.addInitScript(
        (seed) => {
          localStorage.setItem('spendgate.theme', seed.theme);
          // Seeded once: a sign-out or a new token stored by the page is kept across reloads.
          if (!seed.session || sessionStorage.getItem('seeded')) return;
          localStorage.setItem('token', seed.session.token);
          localStorage.setItem('user', JSON.stringify(seed.session.user));
          sessionStorage.setItem('seeded', 'yes');
        },
        { theme: options.theme ?? 'light', session: options.as ? { token: options.as.token, user: options.as.user } : null },
      );
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) consoleErrors.push(message.text());
      });
      await page.goto(`${base}${route}`);
      return page;
    },
    async closeAll() {
      await Promise.all(contexts.splice(0).map((context) => context.close()));
    },
  };
}

/** A full-page screenshot of `page` as it is (screenshots/<name>.png), checked for sideways scrolling and by axe-core. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
  const violations = blockingViolations(await axeViolations(page));
  expect(violations, `${name}\n${describeViolations(violations)}`).toEqual([]);
}
