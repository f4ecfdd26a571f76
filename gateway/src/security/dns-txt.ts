/**
 * TXT look-ups for proving a domain is owned (single sign-on's domain verification), through
 * node:dns's Resolver at the operator's DNS_SERVERS (the system's when none are given). Every
 * look-up is bounded: each try waits TRY_TIMEOUT_MS, and the whole look-up is cancelled after
 * LOOKUP_DEADLINE_MS, so no request waits on a silent server. The answer says what was found:
 * the name's TXT strings, or why there are none (NXDOMAIN, no TXT record, the server failed or
 * did not answer).
 */
import { Resolver } from 'node:dns/promises';

const TRY_TIMEOUT_MS = 1_500;
const TRIES = 2;
const LOOKUP_DEADLINE_MS = 5_000;

export type TxtLookup =
  | { outcome: 'found'; values: string[] }
  | { outcome: 'nxdomain' }
  | { outcome: 'no-records' }
  | { outcome: 'failed'; reason: 'SERVFAIL' | 'REFUSED' | 'timeout' | string };

export type TxtResolver = (name: string) => Promise<TxtLookup>;

export function createTxtResolver(servers: readonly string[]): TxtResolver {
  return async (name) => {
    const resolver = new Resolver({ timeout: TRY_TIMEOUT_MS, tries: TRIES });
    if (servers.length > 0) resolver.setServers(servers);
    const deadline = setTimeout(() => resolver.cancel(), LOOKUP_DEADLINE_MS);
    try {
      // A TXT record's character-strings are one value, joined as RFC 7208 §3.3 joins them.
      const values = (await resolver.resolveTxt(name)).map((strings) => strings.join(''));
      return values.length > 0 ? { outcome: 'found', values } : { outcome: 'no-records' };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND') return { outcome: 'nxdomain' };
      if (code === 'ENODATA') return { outcome: 'no-records' };
      if (code === 'ESERVFAIL') return { outcome: 'failed', reason: 'SERVFAIL' };
      if (code === 'EREFUSED') return { outcome: 'failed', reason: 'REFUSED' };
      if (code === 'ETIMEOUT' || code === 'ECANCELLED') return { outcome: 'failed', reason: 'timeout' };
      return { outcome: 'failed', reason: code ?? (error as Error).message };
    } finally {
      clearTimeout(deadline);
    }
  };
}
