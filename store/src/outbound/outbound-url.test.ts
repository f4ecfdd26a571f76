import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@spendgate/core';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AllowedHost } from '../config.ts';
import { createOutboundGuard, type HostResolver, isPrivateAddress, outboundUrlProblem } from './outbound-url.ts';

const PRIVATE = 'must not point to a private, loopback or link-local address';

describe('private addresses', () => {
  it.each([
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.255.255.255',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a00:1',
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:0:10.0.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    '2001:0:4136:e378:8000:63bf:f5ff:fffe', // Teredo, client 10.0.0.1
    '2001:0:a00:1::1', // Teredo, server 10.0.0.1
    '100::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fec0::1',
    'ff02::1',
  ])('%s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.1',
    '192.0.1.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    'fbff::1',
  ])('%s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('outbound URLs by their text', () => {
  it.each([
    ['https://api.openai.com/v1', undefined],
    ['ftp://example.com', 'must use http or https'],
    ['not a url', 'must be a valid URL'],
    ['http://api.openai.com@127.0.0.1/', 'must not contain a user name or password'],
    ['https://user:pass@api.openai.com/v1', 'must not contain a user name or password'],
    ['http://127.0.0.1:8080/v1', PRIVATE],
    ['http://2130706433/', PRIVATE],
    ['http://0177.0.0.1/', PRIVATE],
    ['http://0x7f.1/', PRIVATE],
    ['http://127.1/', PRIVATE],
    ['http://0/', PRIVATE],
    ['http://%31%32%37.0.0.1/', PRIVATE],
    ['http://127。0。0。1/', PRIVATE],
    ['http://localhost/v1', PRIVATE],
    ['http://LOCALHOST./v1', PRIVATE],
    ['http://metadata.localhost/v1', PRIVATE],
    ['http://10.1.2.3/v1', PRIVATE],
    ['http://172.20.0.1/v1', PRIVATE],
    ['http://172.32.0.1/v1', undefined],
    ['http://169.254.169.254/latest', PRIVATE],
    ['http://[::1]:8000/v1', PRIVATE],
    ['http://[::127.0.0.1]/', PRIVATE],
    ['http://[::ffff:127.0.0.1]/v1', PRIVATE],
    ['http://[64:ff9b::10.0.0.1]/', PRIVATE],
    ['http://[2002:7f00:1::]/', PRIVATE],
    ['http://[fd00::1]/v1', PRIVATE],
    ['http://[fe80::1]/v1', PRIVATE],
  ])('%s → %s', (url, problem) => {
    expect(outboundUrlProblem(url, [])).toBe(problem);
  });

  it('admits an allow-listed host on any port, or on the one port its entry names', () => {
    const anyPort: AllowedHost[] = [{ host: '127.0.0.1', port: undefined }];
    expect(outboundUrlProblem('http://127.0.0.1:8080/v1', anyPort)).toBeUndefined();
    expect(outboundUrlProblem('http://0x7f.1:9/v1', anyPort)).toBeUndefined();
    expect(outboundUrlProblem('http://[::ffff:127.0.0.1]:9/v1', anyPort)).toBeUndefined();
    const onePort: AllowedHost[] = [{ host: '127.0.0.1', port: 11434 }];
    expect(outboundUrlProblem('http://127.0.0.1:11434/v1', onePort)).toBeUndefined();
    expect(outboundUrlProblem('http://127.0.0.1:11435/v1', onePort)).toBe(PRIVATE);
    expect(outboundUrlProblem('http://127.0.0.1/v1', onePort)).toBe(PRIVATE);
    expect(outboundUrlProblem('http://127.0.0.1/v1', [{ host: '127.0.0.1', port: 80 }])).toBeUndefined();
  });
});

/** A resolver from a table: each name's answers in turn (the last repeats), ENOTFOUND for others. */
function fakeDns(table: Record<string, string[][]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const calls = new Map<string, number>();
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const call = calls.get(hostname) ?? 0;
    calls.set(hostname, call + 1);
    return answers[Math.min(call, answers.length - 1)]!;
  };
  return Object.assign(resolve, { asked });
}

describe('outbound URLs by what they resolve to', () => {
  it('refuses a name any of whose addresses is private, unless that address or the name is allow-listed', async () => {
    const dns = fakeDns({
      'printer.lan': [['192.168.1.20']],
      'mixed.example': [['93.184.215.14', '10.0.0.1']],
      'public.example': [['93.184.215.14', '2606:2800:21f::1']],
      'model.internal': [['10.0.0.5']],
      'v6.example': [['::ffff:a00:1']],
    });
    const guard = createOutboundGuard({ allowedHosts: [{ host: 'model.internal', port: 8080 }], resolve: dns });
    expect(await guard.check('http://printer.lan/v1')).toBe(`${PRIVATE} (printer.lan resolves to one)`);
    expect(await guard.check('https://mixed.example/v1')).toBe(`${PRIVATE} (mixed.example resolves to one)`);
    expect(await guard.check('https://v6.example/v1')).toBe(`${PRIVATE} (v6.example resolves to one)`);
    expect(await guard.check('https://public.example/v1')).toBeUndefined();
    expect(await guard.check('https://unknown.example/v1')).toBeUndefined();
    expect(await guard.check('http://model.internal:8080/v1')).toBeUndefined();
    expect(await guard.check('http://model.internal:8081/v1')).toBe(`${PRIVATE} (model.internal resolves to one)`);
    // The text alone decides for literals: no lookup.
    expect(await guard.check('http://10.0.0.1/v1')).toBe(PRIVATE);
    expect(dns.asked).not.toContain('10.0.0.1');

    const byAddress = createOutboundGuard({ allowedHosts: [{ host: '192.168.1.20', port: undefined }], resolve: dns });
    expect(await byAddress.check('http://printer.lan:631/v1')).toBeUndefined();
    const byMappedAddress = createOutboundGuard({ allowedHosts: [{ host: '::ffff:c0a8:114', port: 631 }], resolve: dns });
    expect(await byMappedAddress.check('http://printer.lan:631/v1')).toBeUndefined();
  });
});

describe('connections the guard opens', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  const hosts: string[] = [];

  beforeAll(async () => {
    server = createServer((incoming, response) => {
      hosts.push(incoming.headers.host ?? '');
      response.end('{"data":[]}');
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (url: string, dispatcher: ReturnType<typeof createOutboundGuard>['dispatcher']) =>
    request(url, { dispatcher }).then(
      async (response) => {
        await response.body.dump();
        return response.statusCode;
      },
      (error: unknown) => error,
    );

  it('refuses at connect a name that resolved public when saved and private now (DNS rebinding), before connecting', async () => {
    const dns = fakeDns({ 'rebind.example': [['93.184.215.14'], ['127.0.0.1']] });
    const guard = createOutboundGuard({ allowedHosts: [], resolve: dns });
    expect(await guard.check(`http://rebind.example:${port}/v1`)).toBeUndefined();
    const before = connections;
    const refused = await get(`http://rebind.example:${port}/v1/models`, guard.dispatcher);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      statusCode: 403,
      code: 'address_not_allowed',
      message: `The provider's address is not allowed: rebind.example:${port} resolves to a private, loopback or link-local address`,
    });
    expect(connections).toBe(before);
    await guard.dispatcher.destroy();
  });

  it('refuses private literals in any notation before connecting, and lets an allow-listed port through', async () => {
    const dns = fakeDns({});
    const closed = createOutboundGuard({ allowedHosts: [{ host: '127.0.0.1', port: port + 1 }], resolve: dns });
    const before = connections;
    for (const host of ['127.0.0.1', '0x7f.1', '2130706433', '[::ffff:127.0.0.1]', 'localhost']) {
      expect(await get(`http://${host}:${port}/v1/models`, closed.dispatcher), host).toMatchObject({ statusCode: 403, code: 'address_not_allowed' });
    }
    expect(connections).toBe(before);
    expect(dns.asked).toEqual([]);
    await closed.dispatcher.destroy();

    const open = createOutboundGuard({ allowedHosts: [{ host: '127.0.0.1', port }], resolve: dns });
    expect(await get(`http://127.0.0.1:${port}/v1/models`, open.dispatcher)).toBe(200);
    expect(connections).toBe(before + 1);
    await open.dispatcher.destroy();
  });

  it('connects to the address it checked and still sends the name it was given', async () => {
    const dns = fakeDns({ 'model.test': [['127.0.0.1'], ['10.9.9.9']] });
    const guard = createOutboundGuard({ allowedHosts: [{ host: '127.0.0.1', port }], resolve: dns });
    expect(await get(`http://model.test:${port}/v1/models`, guard.dispatcher)).toBe(200);
    expect(hosts.at(-1)).toBe(`model.test:${port}`);
    expect(dns.asked).toEqual(['model.test']);
    await guard.dispatcher.destroy();
  });
});
