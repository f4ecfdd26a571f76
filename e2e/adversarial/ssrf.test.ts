/**
 * SSRF, in every run mode: a table of outbound URLs an attacker would give a connection —
 * private literals in every notation the URL parser accepts, IPv6 and mapped forms,
 * trailing dots, user-info tricks, other schemes, names that resolve to private
 * addresses (a fake DNS, and the names this machine's /etc/hosts maps to loopback),
 * redirects and DNS rebinding. Each is refused when saved (POST and PUT), and, stored
 * anyway (as under an older allow-list), when used: by the data plane and by
 * test/connection. An internal service on loopback counts the connections it gets: none.
 * The Spendgate under test allow-lists only one loopback port, the redirector's.
 */
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueByokKey, signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const PRIVATE = 'baseUrl must not point to a private, loopback or link-local address';
const PUBLIC_ADDRESS = '93.184.215.14';

/** A loopback HTTP server that records the paths it is asked for and counts connections. */
async function listen(answer: (path: string, respond: (status: number, headers?: Record<string, string>) => void) => void) {
  const seen = { connections: 0, paths: [] as string[] };
  const server: Server = createServer((request, response) => {
    seen.paths.push(request.url ?? '');
    answer(request.url ?? '', (status, headers = {}) => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(status < 300 ? '{"object":"list","data":[]}' : '{"error":{"message":"moved"}}');
    });
  });
  server.on('connection', () => (seen.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    seen,
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Names this machine's /etc/hosts maps to a loopback or private address (besides localhost, refused by name). */
function hostsFileNames(): string[] {
  return readFileSync('/etc/hosts', 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
    .filter(([address]) => address && /^(127\.|10\.|192\.168\.|::1$)/.test(address))
    .flatMap(([, ...names]) => names)
    .filter((name) => name && !/(^|\.)localhost$/i.test(name) && !/^ip6-/.test(name));
}

/**
 * The fake DNS: each name's answers in turn (the last repeats); /etc/hosts names from
 * the system (answered from the file); anything else does not exist. No query leaves the machine.
 */
function fakeDns(table: Record<string, string[][]>, hostsNames: string[]) {
  const calls = new Map<string, number>();
  return async (hostname: string): Promise<string[]> => {
    const answers = table[hostname];
    if (answers) {
      const call = calls.get(hostname) ?? 0;
      calls.set(hostname, call + 1);
      return answers[Math.min(call, answers.length - 1)]!;
    }
    if (hostsNames.includes(hostname)) return (await lookup(hostname, { all: true })).map((entry) => entry.address);
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
}

for (const mode of testModes) {
  describe(`SSRF: outbound URLs refused at save and at connect (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let internal: Awaited<ReturnType<typeof listen>>;
    let redirector: Awaited<ReturnType<typeof listen>>;
    let tenant: Tenant;
    let allowedUrl: string;
    const hostsNames = hostsFileNames();
    const tally = { payloads: 0, refusedAtSave: 0, refusedAtConnect: 0 };

    /** Payloads whose text alone is refused; `p` is the internal service's port. */
    const literalPayloads = (p: number) => [
      `http://127.0.0.1:${p}/v1`,
      `https://127.0.0.1:${p}/v1`,
      `http://127.1:${p}/v1`,
      `http://127.000.000.001:${p}/v1`,
      `http://2130706433:${p}/v1`,
      `http://0177.0.0.1:${p}/v1`,
      `http://017700000001:${p}/v1`,
      `http://0x7f.0.0.1:${p}/v1`,
      `http://0x7f.1:${p}/v1`,
      `http://0x7f000001:${p}/v1`,
      `http://%31%32%37.0.0.1:${p}/v1`,
      `http://127。0。0。1:${p}/v1`,
      `http://①②⑦.0.0.1:${p}/v1`,
      `http://0.0.0.0:${p}/v1`,
      `http://0:${p}/v1`,
      `http://[::1]:${p}/v1`,
      `http://[0:0:0:0:0:0:0:1]:${p}/v1`,
      `http://[::]:${p}/v1`,
      `http://[::ffff:127.0.0.1]:${p}/v1`,
      `http://[::ffff:7f00:1]:${p}/v1`,
      `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/v1`,
      `http://[::127.0.0.1]:${p}/v1`,
      `http://[64:ff9b::127.0.0.1]:${p}/v1`,
      `http://[2002:7f00:1::]:${p}/v1`,
      'http://[::ffff:a9fe:a9fe]/latest/meta-data',
      'http://[fd00:ec2::254]/latest/meta-data',
      'http://[fc00::1]/v1',
      'http://[fe80::1]/v1',
      'http://[fec0::1]/v1',
      'http://[ff02::1]/v1',
      `http://localhost:${p}/v1`,
      `http://LOCALHOST:${p}/v1`,
      `http://localhost.:${p}/v1`,
      `http://internal.localhost:${p}/v1`,
      `http://api.openai.com@127.0.0.1:${p}/v1`,
      `http://127.0.0.1:${p}@api.openai.com/v1`,
      'http://10.0.0.1/v1',
      'http://172.16.0.1/v1',
      'http://172.31.255.254/v1',
      'http://192.168.0.1/v1',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/v1',
      'http://192.0.0.170/v1',
      'http://198.18.0.1/v1',
      'http://224.0.0.1/v1',
      'http://240.0.0.1/v1',
      'http://255.255.255.255/v1',
      `gopher://127.0.0.1:${p}/_`,
      'file:///etc/passwd',
    ];

    /** Names that resolve to private addresses (the fake DNS, and /etc/hosts): refused by what they resolve to. */
    const resolvingPayloads = (p: number) => [
      `http://loopback.example:${p}/v1`,
      `http://loopback.example.:${p}/v1`,
      'http://metadata.example/latest/meta-data',
      'http://internal.example/v1',
      `http://dual.example:${p}/v1`,
      `http://mapped.example:${p}/v1`,
      'http://nat64.example/v1',
      'http://ula.example/v1',
      ...hostsNames.map((name) => `http://${name}:${p}/v1`),
    ];

    beforeAll(async () => {
      internal = await listen((_, respond) => respond(200));
      redirector = await listen((path, respond) => {
        if (path.startsWith('/to-private')) respond(302, { location: 'http://10.0.0.1/v1/models' });
        else if (path.startsWith('/to-internal')) respond(307, { location: `http://127.0.0.1:${internal.port}/v1/models` });
        else if (path.startsWith('/to-metadata')) respond(301, { location: 'http://169.254.169.254/latest/meta-data' });
        else respond(200);
      });
      const dns = fakeDns(
        {
          'loopback.example': [['127.0.0.1']],
          'metadata.example': [['169.254.169.254']],
          'internal.example': [['10.0.0.1']],
          'dual.example': [[PUBLIC_ADDRESS, '127.0.0.1']],
          'mapped.example': [['::ffff:127.0.0.1']],
          'nat64.example': [['64:ff9b::a9fe:a9fe']],
          'ula.example': [['fd00::1']],
          // Public when saved or checked, loopback when connected to.
          'rebind.example': [[PUBLIC_ADDRESS], ['127.0.0.1']],
          'rebind-test.example': [[PUBLIC_ADDRESS], ['127.0.0.1']],
        },
        hostsNames,
      );
      spendgate = await startSpendgate(mode, 'ssrf', { env: { UPSTREAM_ALLOWED_HOSTS: `127.0.0.1:${redirector.port}` }, resolveHost: dns });
      tenant = await signUpTeam(spendgate.url, 'ssrf@example.com');
      allowedUrl = `http://127.0.0.1:${redirector.port}/v1`;
    });
    afterAll(async () => {
      await spendgate?.close();
      await internal?.close();
      await redirector?.close();
      console.log(`SSRF (${mode}): ${tally.payloads} payloads, ${tally.refusedAtSave} refused at save, ${tally.refusedAtConnect} refused at connect`);
    });

    const api = (method: string, path: string, body?: unknown) => callApi(spendgate.url, method, path, { token: tenant.token, body });

    /** A connection saved with an allowed URL and then pointed at `baseUrl` behind the API's back; its key. */
    async function storedAnyway(baseUrl: string) {
      const saved = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'openai-compatible', name: 'stored', apiKey: 'k', baseUrl: allowedUrl });
      const connectionId: string = saved.body.data.newConnection.id;
      const key = await api('POST', `/synthetic-group/provider-key/create/${tenant.groupId}`, { name: 'ssrf', kind: 'byok', connectionId });
      expect(key.status, JSON.stringify(key.body)).toBe(201);
      const { db } = spendgate.app.runtime.stores.sql;
      await db.updateTable('provider_connections').set({ base_url: baseUrl }).where('id', '=', connectionId).execute();
      return { key: key.body.data.key as string, connectionId };
    }

    const chat = async (key: string) => {
      const response = await fetch(`${spendgate.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'llama3', messages: [{ role: 'user', content: 'hi' }] }),
      });
      return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
    };

    async function refusedAtSave(baseUrl: string, message: string | RegExp) {
      const saved = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'openai-compatible', name: 'x', apiKey: 'k', baseUrl });
      const byom = await api('POST', '/provider', { teamId: tenant.teamId, name: 'x', baseUrl });
      const { connectionId } = await storedAnyway(allowedUrl);
      const edited = await api('PUT', `/provider/connections/${connectionId}`, { baseUrl });
      for (const answer of [saved, byom, edited]) {
        expect([answer.status, answer.body.field], `${baseUrl}: ${answer.body.message}`).toEqual([400, 'baseUrl']);
        expect(answer.body.message, baseUrl).toMatch(message);
      }
      tally.refusedAtSave += 1;
    }

    async function refusedAtConnect(baseUrl: string, dataPlaneCode: string) {
      const before = internal.seen.connections;
      const { key, connectionId } = await storedAnyway(baseUrl);
      const answer = await chat(key);
      expect([answer.status, answer.body.error.code], `${baseUrl}: ${answer.body.error.message}`).toEqual([403, dataPlaneCode]);
      const tested = await api('POST', '/provider/test/connection', { connectionId });
      expect([tested.status, tested.body.field], baseUrl).toEqual([400, 'baseUrl']);
      const unsaved = await api('POST', '/provider/test/connection', { teamId: tenant.teamId, provider: 'openai-compatible', apiKey: 'k', baseUrl });
      expect([unsaved.status, unsaved.body.field], baseUrl).toEqual([400, 'baseUrl']);
      expect(internal.seen.connections, baseUrl).toBe(before);
      tally.refusedAtConnect += 1;
    }

    it('refuses private literals in every notation, other schemes and user-info tricks when saved and when used', async () => {
      const payloads = literalPayloads(internal.port);
      expect(payloads.length).toBeGreaterThanOrEqual(45);
      for (const baseUrl of payloads) {
        tally.payloads += 1;
        const scheme = new URL(baseUrl).protocol;
        const message = /^https?:$/.test(scheme)
          ? new URL(baseUrl).username
            ? 'baseUrl must not contain a user name or password'
            : PRIVATE
          : 'baseUrl must use http or https';
        await refusedAtSave(baseUrl, message);
        await refusedAtConnect(baseUrl, 'connection_not_allowed');
      }
      expect(internal.seen.connections).toBe(0);
    });

    it('refuses names that resolve to a private address when saved, and at connect when stored anyway', async () => {
      for (const baseUrl of resolvingPayloads(internal.port)) {
        tally.payloads += 1;
        const host = new URL(baseUrl).hostname.replace(/\.$/, '');
        await refusedAtSave(baseUrl, `${PRIVATE} (${host} resolves to one)`);
        await refusedAtConnect(baseUrl, 'address_not_allowed');
      }
      expect(internal.seen.connections).toBe(0);
    });

    it('shows a stored URL the allow-list no longer admits, and refuses its key with the reason', async () => {
      const { key, connectionId } = await storedAnyway(`http://192.168.1.20:11434/v1`);
      const shown = await api('GET', `/provider/connections/${connectionId}`);
      expect(shown.body.data).toMatchObject({ baseUrl: 'http://192.168.1.20:11434/v1', baseUrlProblem: 'must not point to a private, loopback or link-local address' });
      const allowed = await api('GET', `/provider/connections`);
      expect(allowed.body.data.find((connection: { baseUrl: string }) => connection.baseUrl === allowedUrl)).toMatchObject({ baseUrlProblem: null });
      expect((await chat(key)).body.error.message).toBe(
        "The provider connection's baseUrl is no longer allowed: it must not point to a private, loopback or link-local address",
      );
    });

    it('allows only the allow-listed port of a loopback address', async () => {
      tally.payloads += 1;
      const saved = await api('POST', '/provider/connections', { teamId: tenant.teamId, provider: 'openai-compatible', name: 'ok', apiKey: 'k', baseUrl: allowedUrl });
      expect(saved.status).toBe(201);
      await refusedAtSave(`http://127.0.0.1:${internal.port}/v1`, PRIVATE);
    });

    it('refuses at connect a name that was public when saved and is loopback now (DNS rebinding)', async () => {
      tally.payloads += 2;
      const before = internal.seen.connections;
      const baseUrl = `http://rebind.example:${internal.port}/v1`;
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai-compatible', apiKey: 'k', baseUrl });
      const answer = await chat(key);
      expect(answer).toEqual({
        status: 403,
        body: {
          error: expect.objectContaining({
            code: 'address_not_allowed',
            message: `The provider's address is not allowed: rebind.example:${internal.port} resolves to a private, loopback or link-local address`,
          }),
        },
      });
      const tested = await api('POST', '/provider/test/connection', {
        teamId: tenant.teamId,
        provider: 'openai-compatible',
        apiKey: 'k',
        baseUrl: `http://rebind-test.example:${internal.port}/v1`,
      });
      expect([tested.status, tested.body.message]).toEqual([
        403,
        `The provider's address is not allowed: rebind-test.example:${internal.port} resolves to a private, loopback or link-local address`,
      ]);
      expect(internal.seen.connections).toBe(before);
      tally.refusedAtConnect += 2;
    });

    it('follows no redirect: not from the data plane, not from test/connection', async () => {
      for (const path of ['to-private', 'to-internal', 'to-metadata']) {
        tally.payloads += 1;
        const baseUrl = `http://127.0.0.1:${redirector.port}/${path}`;
        const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai-compatible', apiKey: 'k', baseUrl });
        const answered = await chat(key);
        expect(answered.status, path).toBeGreaterThanOrEqual(300);
        expect(answered.status, path).toBeLessThan(500);
        const tested = await api('POST', '/provider/test/connection', { teamId: tenant.teamId, provider: 'openai-compatible', apiKey: 'k', baseUrl });
        expect([tested.status, tested.body.message], path).toEqual([422, expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/to-[a-z]+ answered HTTP 30[127] \(a redirect, not followed\)/)]);
        tally.refusedAtConnect += 1;
      }
      expect(redirector.seen.paths.filter((path) => path.startsWith('/to-'))).toHaveLength(6);
      expect(internal.seen.connections).toBe(0);
    });

    it('lets only a team admin test unsaved settings, and rate-limits tests per account', async () => {
      const outsider = await signUpTeam(spendgate.url, 'ssrf-outsider@example.com');
      const settings = { provider: 'openai-compatible', apiKey: 'k', baseUrl: allowedUrl };
      const notTheirs = await callApi(spendgate.url, 'POST', '/provider/test/connection', { token: outsider.token, body: { teamId: tenant.teamId, ...settings } });
      expect(notTheirs.status).toBe(404);
      const noTeam = await callApi(spendgate.url, 'POST', '/provider/test/connection', { token: outsider.token, body: settings });
      expect([noTeam.status, noTeam.body.field]).toEqual([400, 'teamId']);

      // 10 a minute per account, in fixed windows: a 429 within 11 tries (21 if a minute turns meanwhile).
      const test = () =>
        fetch(`${spendgate.url}/api/provider/test/connection`, {
          method: 'POST',
          headers: { authorization: `Bearer ${outsider.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ teamId: outsider.teamId, ...settings }),
        });
      const statuses: number[] = [];
      let limited: Response | undefined;
      while (!limited && statuses.length < 21) {
        const answer = await test();
        statuses.push(answer.status);
        if (answer.status === 429) limited = answer;
        else await answer.body?.cancel();
      }
      expect(statuses.slice(0, -1).every((status) => status === 200) && statuses.length >= 11, statuses.join()).toBe(true);
      expect(limited?.status).toBe(429);
      expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await limited!.json()) as { message: string }).message).toBe('Too many attempts. Please wait and try again.');
    });
  });
}
