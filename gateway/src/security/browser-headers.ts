/**
 * Browser-safety headers on every answer Fastify gives (the console, /api, /api/docs):
 * no page may be framed (CSP frame-ancestors and X-Frame-Options), nothing is sniffed
 * into another type, the referrer leaves this origin without its path, and HSTS when
 * PUBLIC_URL is https. Console pages get the console's CSP; anything else (JSON) gets
 * one that allows nothing. A page with its own needs (the API docs) sets its own CSP.
 */
import type { onRequestAsyncHookHandler } from 'fastify';

/** Directive name → sources, e.g. `{ 'script-src': ["'self'"] }`. */
export type CspDirectives = Record<string, readonly string[]>;

/** The directives every page shares: nothing framed, no plugins, no foreign base or form target. */
export const PAGE_CSP_BASE: CspDirectives = {
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** @example cspHeader({ 'default-src': ["'self'"] }) // "default-src 'self'" */
export function cspHeader(directives: CspDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => [name, ...new Set(sources)].join(' '))
    .join('; ');
}

/** For JSON and other non-page answers: nothing may load, run or frame them. */
export const NON_PAGE_CSP = cspHeader({ 'default-src': ["'none'"], 'frame-ancestors': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"] });

/** HSTS for a year, only when the console is served over https. */
const HSTS = 'max-age=31536000';

const NON_PAGE_PATH = /^\/(api\/|healthz|readyz)/;

/**
 * The onRequest hook setting the headers; `consoleCsp` is the console's CSP (absent when
 * no console is served).
 */
export function browserSafetyHeaders(options: { publicUrl: string; consoleCsp?: string }): onRequestAsyncHookHandler {
  const common: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    ...(options.publicUrl.startsWith('https:') ? { 'strict-transport-security': HSTS } : {}),
  };
  const nonPage = { ...common, 'content-security-policy': NON_PAGE_CSP };
  const page = { ...common, 'content-security-policy': options.consoleCsp ?? NON_PAGE_CSP };
  return async (request, reply) => {
    reply.headers(NON_PAGE_PATH.test(request.url) ? nonPage : page);
  };
}
