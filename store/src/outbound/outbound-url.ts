/**
 * Where a team's calls may go (a connection's base URL): http(s) only, and no private,
 * loopback, link-local, multicast or otherwise internal address unless the operator
 * allow-lists it (UPSTREAM_ALLOWED_HOSTS, an entry with or without a port). Checked
 * twice: when a URL is saved or tested (its text, then every address its name resolves
 * to) and when a connection to it opens — the guard's undici dispatcher resolves the
 * name itself, checks every address and connects to the address it checked, so a
 * hosts-file name or a DNS answer that changes after the save (rebinding) is refused
 * before anything is sent. An allow-listed name is reached by that name, whatever it
 * resolves to; an allow-listed IP address only as that address.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '@spendgate/core';
import { Agent, buildConnector, errors } from 'undici';
import type { AllowedHost } from '../config.ts';

/** Every address a host name resolves to. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (hostname) => (await lookup(hostname, { all: true })).map((entry) => entry.address);

const PRIVATE = 'must not point to a private, loopback or link-local address';
/** A name that does not answer within this is refused at connect (as a connect timeout). */
const RESOLVE_TIMEOUT_MS = 10_000;

/** [first address, prefix length] of IPv4 blocks no team may reach. */
const BLOCKED_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
];

const v4Number = (address: string) => address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
const BLOCKED_V4_RANGES = BLOCKED_V4.map(([first, bits]) => ({ first: v4Number(first), size: 2 ** (32 - bits) }));

function isPrivateV4(address: string): boolean {
  const value = v4Number(address);
  return BLOCKED_V4_RANGES.some(({ first, size }) => value >= first && value < first + size);
}

/** The 16 bytes of a valid IPv6 address (`::ffff:1.2.3.4` forms too; a zone `%eth0` is dropped). */
function v6Bytes(address: string): number[] {
  const text = address
    .split('%')[0]!
    .toLowerCase()
    .replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`);
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const before = groups(head);
  const after = groups(tail ?? '');
  const words = [...before, ...Array.from({ length: 8 - before.length - after.length }, () => 0), ...after];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

const v4At = (bytes: number[], at: number) => bytes.slice(at, at + 4).join('.');
const startsWith = (bytes: number[], prefix: number[]) => prefix.every((byte, index) => bytes[index] === byte);

function isPrivateV6(address: string): boolean {
  const bytes = v6Bytes(address);
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  // ::/96 (unspecified, loopback, IPv4-compatible), ::ffff:0:0/96 (mapped) and ::ffff:0:0:0/96 (SIIT) embed an IPv4 address.
  if (zeros(0, 12)) return bytes[12] === 0 && bytes[13] === 0 && bytes[14] === 0 ? true : isPrivateV4(v4At(bytes, 12));
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return isPrivateV4(v4At(bytes, 12));
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return isPrivateV4(v4At(bytes, 12));
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b]) && zeros(4, 12)) return isPrivateV4(v4At(bytes, 12)); // NAT64 64:ff9b::/96
  if (startsWith(bytes, [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])) return true; // local-use NAT64 64:ff9b:1::/48
  if (startsWith(bytes, [0x20, 0x02])) return isPrivateV4(v4At(bytes, 2)); // 6to4 2002::/16
  if (startsWith(bytes, [0x20, 0x01, 0x00, 0x00])) {
    // Teredo 2001::/32: the server's address, and the client's (inverted) in the last four bytes.
    return isPrivateV4(v4At(bytes, 4)) || isPrivateV4(bytes.slice(12).map((byte) => byte ^ 0xff).join('.'));
  }
  if (startsWith(bytes, [0x01, 0x00]) && zeros(2, 8)) return true; // discard-only 100::/64
  const first = bytes[0]!;
  const second = bytes[1]!;
  return (
    (first & 0xfe) === 0xfc || // unique-local fc00::/7
    (first === 0xfe && (second & 0xc0) === 0x80) || // link-local fe80::/10
    (first === 0xfe && (second & 0xc0) === 0xc0) || // site-local fec0::/10
    first === 0xff // multicast
  );
}

/** Whether an IP address (v4 or v6, any mapped or embedding form) is one no team may reach. */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address.split('%')[0]!);
  if (version === 4) return isPrivateV4(address);
  if (version === 6) return isPrivateV6(address);
  return false;
}

/** A host as the allow-list spells it: lower case, no brackets or trailing dot, an IPv4-mapped address as IPv4. */
function canonicalHost(host: string): string {
  const bare = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (isIP(bare) !== 6) return bare;
  const bytes = v6Bytes(bare);
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return v4At(bytes, 12);
  return new URL(`http://[${bare.split('%')[0]}]/`).hostname.slice(1, -1);
}

const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

const allows = (allowedHosts: readonly AllowedHost[], host: string, port: number) =>
  allowedHosts.some((entry) => entry.host === host && (entry.port === undefined || entry.port === port));

const portOf = (url: URL) => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);

function refused(host: string, port: number): AppError {
  const where = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
  const what = isIP(host) === 0 && !isLocalName(host) ? 'resolves to' : 'is';
  return new AppError(403, 'address_not_allowed', `The provider's address is not allowed: ${where} ${what} a private, loopback or link-local address`);
}

/**
 * What is wrong with a URL by its text alone (scheme, credentials, a private IP literal
 * in any notation the URL parser accepts, `localhost`), or undefined.
 * @example outboundUrlProblem('http://0x7f.1/v1', []) // 'must not point to a private, loopback or link-local address'
 */
export function outboundUrlProblem(raw: string, allowedHosts: readonly AllowedHost[]): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use http or https';
  if (url.username || url.password) return 'must not contain a user name or password';
  const host = canonicalHost(url.hostname);
  if (allows(allowedHosts, host, portOf(url))) return undefined;
  if (isLocalName(host) || isPrivateAddress(host)) return PRIVATE;
  return undefined;
}

function withTimeout<T>(promise: Promise<T>, host: string, port: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new errors.ConnectTimeoutError(`Resolving ${host}:${port} took over ${RESOLVE_TIMEOUT_MS} ms`)), RESOLVE_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The checks for one process's allow-list and resolver, and the dispatcher every call a
 * team causes goes through.
 * @example
 *   const outbound = createOutboundGuard({ allowedHosts: config.upstreamAllowedHosts });
 *   await outbound.check('http://printer.lan/v1'); // 'must not point to … (printer.lan resolves to one)'
 *   await request(url, { dispatcher: outbound.dispatcher });
 */
export function createOutboundGuard(deps: { allowedHosts: readonly AllowedHost[]; resolve?: HostResolver | undefined }) {
  const allowedHosts = deps.allowedHosts.map((entry) => ({ host: canonicalHost(entry.host), port: entry.port }));
  const resolve = deps.resolve ?? systemResolver;

  /** The address to connect to for host:port; throws when the host or any address it resolves to is refused. */
  async function addressFor(hostname: string, port: number): Promise<string> {
    const host = canonicalHost(hostname);
    if (allows(allowedHosts, host, port)) return hostname;
    if (isLocalName(host) || (isIP(host) !== 0 && isPrivateAddress(host))) throw refused(host, port);
    if (isIP(host) !== 0) return host;
    const addresses = await withTimeout(resolve(host), host, port);
    if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
    for (const address of addresses) {
      if (isPrivateAddress(address) && !allows(allowedHosts, canonicalHost(address), port)) throw refused(host, port);
    }
    return addresses[0]!;
  }

  const connect = buildConnector({});
  const dispatcher = new Agent({
    connect: (options, callback) => {
      const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
      // Connects to the checked address; TLS still names and verifies the host (servername from options.host).
      addressFor(options.hostname, port).then(
        (address) => connect({ ...options, hostname: address }, callback),
        (error: Error) => callback(error, null),
      );
    },
  });

  return {
    dispatcher,

    /** The URL's problem by its text (see outboundUrlProblem): cheap, for URLs already saved. */
    problem: (raw: string) => outboundUrlProblem(raw, allowedHosts),

    /** The URL's problem by its text, then by every address its host resolves to now (a name that does not resolve passes). */
    async check(raw: string): Promise<string | undefined> {
      const problem = outboundUrlProblem(raw, allowedHosts);
      if (problem) return problem;
      const url = new URL(raw);
      try {
        await addressFor(url.hostname, portOf(url));
      } catch (error) {
        if (error instanceof AppError) return `${PRIVATE} (${canonicalHost(url.hostname)} resolves to one)`;
      }
      return undefined;
    },
  };
}

export type OutboundGuard = ReturnType<typeof createOutboundGuard>;
