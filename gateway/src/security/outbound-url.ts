/**
 * Checks a URL a team supplies (a connection's base URL) before anything is sent to
 * it: http(s) only, and no private, loopback, link-local or unspecified address
 * unless the operator allow-lists that host (UPSTREAM_ALLOWED_HOSTS).
 */
import { isIP } from 'node:net';

const BLOCKED_V4: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 (carrier-grade NAT)
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
];

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
}

/** The IPv4 address inside an IPv4-mapped IPv6 tail: '127.0.0.1' or URL-normalised '7f00:1'. */
function mappedIpv4(tail: string): string {
  if (isIP(tail) === 4) return tail;
  const [high = 0, low = 0] = tail.split(':').map((group) => Number.parseInt(group, 16));
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

function isPrivateAddress(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const version = isIP(host);
  if (version === 4) {
    const value = ipv4ToInt(host);
    return BLOCKED_V4.some(([base, bits]) => value >>> (32 - bits) === base >>> (32 - bits));
  }
  if (version === 6) {
    const h = host.toLowerCase();
    if (h.startsWith('::ffff:')) return isPrivateAddress(mappedIpv4(h.slice(7)));
    return h === '::1' || h === '::' || h.startsWith('fc') || h.startsWith('fd') || h.startsWith('fe80');
  }
  return false;
}

/** Returns a reason the URL may not be used, or undefined when it may. */
export function outboundUrlProblem(raw: string, allowedHosts: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http or https';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isPrivateAddress(host) && !allowedHosts.includes(host)) {
    return 'must not point to a private, loopback or link-local address';
  }
  return undefined;
}
