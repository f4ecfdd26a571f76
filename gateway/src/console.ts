/**
 * The built console (CONSOLE_DIR), as the server serves it: its files, the site page
 * (index.html) at every path its router shows a page for, and the same page — which
 * renders the 404 screen — with HTTP 404 at any other path. What the server knows of the
 * build comes from the console-manifest.json the build writes beside it
 * (console/vite.config.ts): the site's paths and the places its pages load from, from
 * which the console's Content-Security-Policy is derived (with Google Identity Services'
 * places when Google sign-in is on).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type CspDirectives, cspHeader, PAGE_CSP_BASE } from './security/browser-headers.ts';

const MANIFEST_FILE = 'console-manifest.json';

const manifestSchema = z.object({
  /** Every path the site's router shows a page for (console/src/site/paths.ts). */
  paths: z.array(z.string().startsWith('/')),
  /** Where the site loads the dashboard bundle from (SPENDGATE_DASHBOARD_URL at build time). */
  dashboardRemoteEntry: z.string().min(1),
  /** Demo video and poster URLs set at build time (VITE_DEMO_*_URL); same-origin by default. */
  mediaUrls: z.array(z.string()),
});

export interface ConsoleBuild {
  dir: string;
  /** The site's paths, lower-case, without a trailing slash. */
  paths: ReadonlySet<string>;
  /** Paths with a parameter (a `$name` segment, e.g. /dashboard/requests/$requestId), as patterns. */
  pathPatterns: readonly RegExp[];
  indexHtml: Buffer;
  csp: string;
}

/** The origin of an absolute http(s) URL; nothing for a same-origin path. */
function foreignOrigin(url: string): string[] {
  if (!/^(https?:)?\/\//i.test(url)) return [];
  return [new URL(url, 'http://same-origin.invalid').origin];
}

/**
 * What Google Identity Services' client library at `scriptUrl` needs, as Google's setup
 * guide lists it: the script itself, and its folder (`…/gsi/`) for the button's frame,
 * its requests and its stylesheet.
 */
function googleSignInSources(scriptUrl: string | undefined): CspDirectives {
  if (scriptUrl === undefined) return {};
  const folder = new URL('./', scriptUrl).href;
  return { 'script-src': [scriptUrl], 'frame-src': [folder], 'connect-src': [folder], 'style-src': [`${folder}style`] };
}

/**
 * The console's CSP: its own origin, plus the dashboard bundle's and the media's where
 * the build points elsewhere, and Google sign-in's library when `googleSignInScriptUrl`
 * is given. Images may also be https or data: (avatars). No inline script or style: the
 * built pages have none.
 */
export function consoleCsp(manifest: z.infer<typeof manifestSchema>, googleSignInScriptUrl?: string): string {
  const dashboard = foreignOrigin(manifest.dashboardRemoteEntry);
  const media = manifest.mediaUrls.flatMap(foreignOrigin);
  const google = googleSignInSources(googleSignInScriptUrl);
  return cspHeader({
    'default-src': ["'self'"],
    'script-src': ["'self'", ...dashboard, ...(google['script-src'] ?? [])],
    'style-src': ["'self'", ...dashboard, ...(google['style-src'] ?? [])],
    'font-src': ["'self'", ...dashboard],
    'connect-src': ["'self'", ...dashboard, ...(google['connect-src'] ?? [])],
    'img-src': ["'self'", 'data:', 'https:', ...dashboard, ...media],
    'media-src': ["'self'", ...media],
    ...(google['frame-src'] ? { 'frame-src': google['frame-src'] } : {}),
    ...PAGE_CSP_BASE,
  });
}

/**
 * Reads the build in `dir`; nothing when there is no console there. `googleSignInScriptUrl`:
 * Google Identity Services' library, when Google sign-in is on.
 */
export async function loadConsoleBuild(dir: string, googleSignInScriptUrl?: string): Promise<ConsoleBuild | undefined> {
  if (!existsSync(dir)) return undefined;
  const manifestPath = path.join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) throw new Error(`CONSOLE_DIR ${dir} has no ${MANIFEST_FILE}: build the console again (npm run build)`);
  const manifest = manifestSchema.parse(JSON.parse(await readFile(manifestPath, 'utf8')));
  const paths = manifest.paths.map(sitePath);
  return {
    dir,
    paths: new Set(paths.filter((sitePathname) => !sitePathname.includes('$'))),
    pathPatterns: paths
      .filter((sitePathname) => sitePathname.includes('$'))
      .map((sitePathname) => new RegExp(`^${sitePathname.split('/').map((segment) => (segment.startsWith('$') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`)),
    indexHtml: await readFile(path.join(dir, 'index.html')),
    csp: consoleCsp(manifest, googleSignInScriptUrl),
  };
}

/** A request path as the site's router matches it: case-insensitive, trailing slash ignored. */
function sitePath(url: string): string {
  const pathname = (url.split('?')[0] ?? '/').toLowerCase();
  return pathname.length > 1 ? pathname.replace(/\/$/, '') : pathname;
}

/** Serves the build from the app's root; its not-found handler answers every unknown path. */
export async function serveConsole(app: FastifyInstance, build: ConsoleBuild): Promise<void> {
  await app.register(fastifyStatic, { root: build.dir, wildcard: false });
  // Unknown API routes are the API's 404; a missing file (a path ending in an
  // extension, e.g. a dashboard bundle that is not there) is a plain 404.
  app.setNotFoundHandler((request, reply) => {
    if (/^\/api\//.test(request.url)) {
      return reply.code(404).send({ success: false, data: null, message: `Route ${request.method} ${request.url} not found` });
    }
    const pathname = sitePath(request.url);
    if (/\.[a-z0-9]+$/.test(pathname)) return reply.code(404).type('text/plain').send('Not found');
    return reply
      .code(build.paths.has(pathname) || build.pathPatterns.some((pattern) => pattern.test(pathname)) ? 200 : 404)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(build.indexHtml);
  });
}
