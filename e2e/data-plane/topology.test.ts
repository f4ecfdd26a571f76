/**
 * The plain-process topology (tools/topology, scaled mode only, and only where Debian's
 * haproxy is installed): 3 gateways behind HAProxy, 2 workers, a Redis Cluster and a
 * fresh database with a streaming replica, all as `npm run topology -- up` starts them,
 * on ports 7240-7265. Requests sent with the openai SDK through the load balancer to the
 * fake provider are served by every gateway, and each leaves exactly one usage event,
 * written by the workers.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listOutboxMail, listUsageEvents, openSqlStore, type SqlStore } from '@spendgate/store';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haproxyInstalled, SERVED_BY_HEADER, type Topology, topologyDown, topologyUp } from '../../tools/topology/topology.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, testModes } from '../support/spendgate.ts';

const REQUESTS = 30;
const GATEWAYS = 3;
const EMAIL = 'topology@example.com';

describe.skipIf(!testModes.includes('scaled') || !haproxyInstalled)('3 gateways and 2 workers behind HAProxy (npm run topology)', () => {
  let topology: Topology;
  let fake: FakeOpenAI;
  let sql: SqlStore;
  let runDir: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    runDir = await mkdtemp(path.join(tmpdir(), 'spendgate-topology-'));
    // The fake provider listens on loopback, which the gateways refuse unless allowed.
    topology = await topologyUp({ firstPort: 7240, gateways: GATEWAYS, workers: 2, runDir, env: { UPSTREAM_ALLOWED_HOSTS: '127.0.0.1' } });
    sql = await openSqlStore({ kind: 'postgres', url: topology.databaseUrl });
  }, 180_000);

  afterAll(async () => {
    await sql?.close();
    await topologyDown(runDir);
    await fake?.close();
  }, 60_000);

  it('spreads requests over every gateway and records one usage event per request', async () => {
    expect(topology.databaseReadUrl, 'a streaming replica serves DATABASE_READ_URL').toBeDefined();
    const base = topology.lbUrl;
    const registered = await callApi(base, 'POST', '/auth/register', { body: { email: EMAIL, password: 'a long and unusual passphrase', name: 'Topology' } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const mail = (await listOutboxMail(sql.db, EMAIL)).at(-1);
    const otp = mail && /^\s+(\d{6})\s*$/m.exec(mail.text_body)?.[1];
    const confirmed = await callApi(base, 'POST', '/auth/verify-email-otp', { token: registered.body.data.token, body: { email: EMAIL, otp } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    const token = confirmed.body.data.token as string;
    const team = await callApi(base, 'POST', '/team/', { token, body: { name: 'Platform', description: '' } });
    const group = await callApi(base, 'POST', '/synthetic-group', { token, body: { name: 'Topology', description: '', teamId: team.body.data.id } });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const connection = await callApi(base, 'POST', '/provider/connections', {
      token,
      body: { teamId: team.body.data.id, provider: 'openai', name: 'fake', apiKey: 'sk-fake-upstream', baseUrl: fake.url },
    });
    expect(connection.status, JSON.stringify(connection.body)).toBe(201);
    const key = await callApi(base, 'POST', `/synthetic-group/provider-key/create/${group.body.data.id}`, {
      token,
      body: { name: 'topology', kind: 'byok', connectionId: connection.body.data.newConnection.id },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);

    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: key.body.data.key, maxRetries: 0 });
    const servedBy = new Map<string, number>();
    for (let index = 0; index < REQUESTS; index++) {
      const { data, response } = await client.chat.completions
        .create({ model: 'gpt-4o', messages: [{ role: 'user', content: `request ${index}` }] })
        .withResponse();
      expect(data.choices[0]?.message.content).toBe(`echo: request ${index}`);
      const server = response.headers.get(SERVED_BY_HEADER) ?? 'unnamed';
      servedBy.set(server, (servedBy.get(server) ?? 0) + 1);
    }
    expect([...servedBy.keys()].sort()).toEqual(['gateway-1', 'gateway-2', 'gateway-3']);
    expect(fake.requests.length).toBe(REQUESTS);
    await expect.poll(async () => (await listUsageEvents(sql.db, team.body.data.id)).length, { timeout: 30_000, interval: 250 }).toBe(REQUESTS);
    const events = await listUsageEvents(sql.db, team.body.data.id);
    expect(new Set(events.map((event) => event.request_id)).size, 'one event per request').toBe(REQUESTS);
  }, 120_000);
});
