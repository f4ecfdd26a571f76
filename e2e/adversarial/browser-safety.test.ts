/**
 * Browser safety, in every run mode, on a console build made for the test (an index.html,
 * a static blog page and the console-manifest.json a build writes): every page, the API
 * docs and the API's JSON carry a CSP that no one may frame, X-Frame-Options, nosniff and
 * a Referrer-Policy (HSTS when PUBLIC_URL is https); the console's CSP follows where the
 * build loads the dashboard and media from, and lets Google Identity Services draw its
 * button only when Google sign-in is on; paths the site has no page for answer 404
 * with the site page (its 404 screen). The real build in Chromium: e2e/browser.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const SITE_PAGE = '<!doctype html><html><head><title>Spendgate</title></head><body><div id="root"></div></body></html>';

/** A console build as `npm run build` lays it out, with the given manifest. */
async function fakeConsoleBuild(manifest: { dashboardRemoteEntry: string; mediaUrls: string[] }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spendgate-console-'));
  await mkdir(path.join(dir, 'blog'));
  await writeFile(path.join(dir, 'index.html'), SITE_PAGE);
  await writeFile(path.join(dir, 'blog', 'index.html'), '<!doctype html><title>The Spendgate Blog</title>');
  const paths = ['/', '/pricing', '/login', '/groups/accept-invite', '/dashboard', '/dashboard/settings/account'];
  await writeFile(path.join(dir, 'console-manifest.json'), JSON.stringify({ paths, ...manifest }));
  return dir;
}

/** The CSP as directive → sources. */
function directives(header: string | null): Record<string, string[]> {
  return Object.fromEntries((header ?? '').split(';').map((part) => {
    const [name = '', ...sources] = part.trim().split(/\s+/);
    return [name, sources];
  }));
}

function expectFramingAndSniffingRefused(response: Response) {
  expect(directives(response.headers.get('content-security-policy'))['frame-ancestors']).toEqual(["'none'"]);
  expect(response.headers.get('x-frame-options')).toBe('DENY');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
}

describe.each(testModes)('browser safety (%s)', (mode) => {
  let spendgate: RunningSpendgate;
  let consoleDir: string;

  beforeAll(async () => {
    consoleDir = await fakeConsoleBuild({ dashboardRemoteEntry: '/dashboard-app/remoteEntry.js', mediaUrls: [] });
    spendgate = await startSpendgate(mode, 'browser-safety', { consoleDir });
  });

  afterAll(async () => {
    await spendgate?.close();
    await rm(consoleDir, { recursive: true, force: true });
  });

  it('serves the site page at its paths, any case, with or without a trailing slash, and static pages', async () => {
    for (const route of ['/', '/pricing', '/PRICING/', '/login?next=x', '/groups/accept-invite?token=t', '/dashboard', '/dashboard/settings/account', '/blog/']) {
      const response = await fetch(`${spendgate.url}${route}`);
      expect(response.status, route).toBe(200);
      expect(response.headers.get('content-type'), route).toMatch(/^text\/html/);
      expectFramingAndSniffingRefused(response);
      expect(response.headers.get('strict-transport-security'), route).toBeNull();
    }
  });

  it('answers 404 with the site page (its 404 screen) where the site has no page', async () => {
    for (const route of ['/no-such-page', '/pricing/nothing/here', '/dashboard/no-such-screen', '/groups', '/login/x']) {
      const response = await fetch(`${spendgate.url}${route}`);
      expect(response.status, route).toBe(404);
      expect(await response.text(), route).toBe(SITE_PAGE);
      expectFramingAndSniffingRefused(response);
    }
    const missingFile = await fetch(`${spendgate.url}/dashboard-app/assets/gone.js`);
    expect(missingFile.status).toBe(404);
    expect(missingFile.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('console pages: scripts, styles and fetches from this origin only, no plugins, images also https', async () => {
    const csp = directives((await fetch(`${spendgate.url}/pricing`)).headers.get('content-security-policy'));
    expect(csp['default-src']).toEqual(["'self'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['style-src']).toEqual(["'self'"]);
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['object-src']).toEqual(["'none'"]);
    expect(csp['img-src']).toEqual(["'self'", 'data:', 'https:']);
    expect(csp['frame-src'], 'nothing framed: Google sign-in is off').toBeUndefined();
    expect((await (await fetch(`${spendgate.url}/api/auth/sign-in-options`)).json()).data).toEqual({ google: null });
    const google = await fetch(`${spendgate.url}/api/auth/google`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":"a.b.c"}' });
    expect([google.status, (await google.json()).message]).toEqual([503, 'Google sign-in is not configured on this server']);
  });

  it('the API: JSON answers may load and run nothing; the docs page runs only its own script and style', async () => {
    for (const route of ['/api/subscription/plans', '/api/no-such-route', '/healthz']) {
      const response = await fetch(`${spendgate.url}${route}`);
      expectFramingAndSniffingRefused(response);
      expect(directives(response.headers.get('content-security-policy'))['default-src'], route).toEqual(["'none'"]);
    }
    const docs = await fetch(`${spendgate.url}/api/docs`);
    expectFramingAndSniffingRefused(docs);
    const csp = directives(docs.headers.get('content-security-policy'));
    const page = await docs.text();
    const inline = (tag: string) => {
      const content = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(page)?.[1] ?? '';
      return `'sha256-${createHash('sha256').update(content).digest('base64')}'`;
    };
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['script-src']).toEqual([inline('script')]);
    expect(csp['style-src']).toEqual([inline('style')]);
    expect(csp['connect-src']).toEqual(["'self'"]);
  });
});

describe('browser safety: a console built to load from elsewhere, served over https', () => {
  let spendgate: RunningSpendgate;
  let consoleDir: string;

  beforeAll(async () => {
    consoleDir = await fakeConsoleBuild({
      dashboardRemoteEntry: 'https://dashboard.example.com/app/remoteEntry.js',
      mediaUrls: ['https://media.example.net/demo.mp4', '/media/poster.svg'],
    });
    spendgate = await startSpendgate('embedded', 'browser-safety-https', {
      consoleDir,
      env: { PUBLIC_URL: 'https://spendgate.example.org', GOOGLE_CLIENT_ID: 'spendgate.apps.googleusercontent.com' },
    });
  });

  afterAll(async () => {
    await spendgate?.close();
    await rm(consoleDir, { recursive: true, force: true });
  });

  it('allows the dashboard’s and the media’s origins, Google sign-in’s library as Google’s guide lists it, and sends HSTS', async () => {
    const response = await fetch(`${spendgate.url}/dashboard`);
    const csp = directives(response.headers.get('content-security-policy'));
    expect(csp['script-src']).toEqual(["'self'", 'https://dashboard.example.com', 'https://accounts.google.com/gsi/client']);
    expect(csp['style-src']).toEqual(["'self'", 'https://dashboard.example.com', 'https://accounts.google.com/gsi/style']);
    expect(csp['connect-src']).toEqual(["'self'", 'https://dashboard.example.com', 'https://accounts.google.com/gsi/']);
    expect(csp['frame-src']).toEqual(['https://accounts.google.com/gsi/']);
    expect(csp['media-src']).toEqual(["'self'", 'https://media.example.net']);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect((await fetch(`${spendgate.url}/api/subscription/plans`)).headers.get('strict-transport-security')).toBe('max-age=31536000');
  });
});
