/**
 * Teams, synthetic groups, invitations, provider connections, keys, plan allowances
 * and the audit log end to end, in every run mode, with mail read from a real SMTP
 * server and requests sent through the gateway to the local fake OpenAI.
 *
 * A canary provider key is stored and changed through the API; at the end the test
 * searches every API answer, the gateway's log, every job payload and every database
 * column for it: it must appear nowhere in plaintext.
 */
import { PassThrough } from 'node:stream';
import { upsertSubscription } from '@spendgate/store';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes, usageWritten } from '../support/spendgate.ts';
import { invitationTokenIn, type MailSink, registerUser, startMailSink } from './support.ts';

const CANARY = 'sk-canary-7f3a9c2e5b1d4680';
const CANARY_ROTATED = 'sk-canary-rotated-0c8e1f2a9b7d';
const PASSWORD = 'a long enough password';

for (const mode of testModes) {
  describe(`teams, groups, connections and audit (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let mail: MailSink;
    let fake: FakeOpenAI;
    const log: string[] = [];
    const answers: string[] = [];
    const jobPayloads: string[] = [];
    const ids: Record<string, string> = {};
    const tokens: Record<string, string> = {};

    const api = async (method: string, route: string, options?: { token?: string; body?: unknown }) => {
      const answer = await callApi(spendgate.url, method, route, options);
      answers.push(JSON.stringify(answer.body));
      return answer;
    };
    const db = () => spendgate.app.runtime.stores.sql.db;
    const activate = (userId: string, planSlug: string) =>
      upsertSubscription(db(), { userId, planSlug, status: 'active', trialEnd: null });

    beforeAll(async () => {
      mail = await startMailSink();
      fake = await startFakeOpenAI({ apiKey: CANARY });
      const logStream = new PassThrough();
      logStream.on('data', (chunk: Buffer) => log.push(chunk.toString()));
      spendgate = await startSpendgate(mode, 'api-tenancy', {
        env: { SMTP_URL: mail.url, LOG_LEVEL: 'trace', PUBLIC_URL: 'https://console.spendgate.test' },
        logStream,
      });
      const queue = spendgate.app.runtime.stores.queue;
      const enqueue = queue.enqueue.bind(queue);
      queue.enqueue = async (name, payload, options) => {
        jobPayloads.push(JSON.stringify({ name, payload }));
        return enqueue(name, payload, options);
      };
      const growth = ((await api('GET', '/subscription/plans')).body.data as { id: string; slug: string }[]).find((p) => p.slug === 'growth')!;
      const ada = await registerUser(spendgate.url, 'ada@example.com', { planId: growth.id });
      tokens.ada = ada.token;
      ids.ada = ada.userId;
    });
    afterAll(async () => {
      await spendgate?.close();
      await mail?.close();
      await fake?.close();
    });

    it('creates and lists teams', async () => {
      const created = await api('POST', '/team/', { token: tokens.ada, body: { name: 'Research', description: 'R&D' } });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ name: 'Research', description: 'R&D', role: 'ADMIN' });
      ids.team = created.body.data.id;
      const listed = await api('GET', '/team/', { token: tokens.ada });
      expect(listed.body.data).toEqual([expect.objectContaining({ id: ids.team, role: 'ADMIN' })]);
      expect((await api('POST', '/team/', { token: tokens.ada, body: { name: '' } })).body.field).toBe('name');
    });

    it('invites by email (hashed token, 7 days) and creates the account on acceptance', async () => {
      const invited = await api('POST', '/team/invite', { token: tokens.ada, body: { teamId: ids.team, email: 'Bob@Example.com' } });
      expect(invited.status).toBe(201);
      expect(invited.body.data).toMatchObject({ teamId: ids.team, email: 'bob@example.com', role: 'MEMBER' });
      const days = (Date.parse(invited.body.data.expiresAt) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.99);
      const message = await mail.next('bob@example.com');
      expect(message.subject).toBe('You are invited to Research on Spendgate');
      expect(message.text).toContain('https://console.spendgate.test/register?invite=');
      const token = invitationTokenIn(message);
      expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
      const stored = await db().selectFrom('invitations').selectAll().where('email', '=', 'bob@example.com').execute();
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(JSON.stringify(invited.body)).not.toContain(token);

      expect((await api('POST', '/team/invite', { token: tokens.ada, body: { teamId: ids.team, email: 'nope' } })).body.field).toBe('email');
      expect((await api('POST', '/team/invite', { token: tokens.ada, body: { teamId: ids.team, email: 'ada@example.com' } })).status).toBe(409);

      const weak = await api('POST', '/team/accept', { body: { token, password: 'password', name: 'Bob' } });
      expect([weak.status, weak.body.field]).toEqual([400, 'password']);
      const accepted = await api('POST', '/team/accept', { body: { token, password: PASSWORD, name: 'Bob' } });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data).toMatchObject({ user: { email: 'bob@example.com', emailVerified: true }, team: { id: ids.team, role: 'MEMBER' } });
      tokens.bob = accepted.body.data.token;
      ids.bob = accepted.body.data.user.id;
      expect((await api('GET', '/team/', { token: tokens.bob })).body.data.map((team: { id: string }) => team.id)).toEqual([ids.team]);
      const again = await api('POST', '/team/accept', { body: { token, password: PASSWORD, name: 'Bob' } });
      expect([again.status, again.body.field]).toEqual([400, 'token']);
    });

    it('signs in an existing account when it accepts, checking its password', async () => {
      const carol = await registerUser(spendgate.url, 'carol@example.com');
      ids.carol = carol.userId;
      await mail.next('carol@example.com'); // her sign-up code
      await api('POST', '/team/invite', { token: tokens.ada, body: { teamId: ids.team, email: 'carol@example.com', role: 'ADMIN' } });
      const token = invitationTokenIn(await mail.next('carol@example.com', 1));
      const wrong = await api('POST', '/team/accept', { body: { token, password: 'not carol at all' } });
      expect(wrong.status).toBe(401);
      const accepted = await api('POST', '/team/accept', { body: { token, password: PASSWORD } });
      expect(accepted.body.data.user.id).toBe(carol.userId);
      expect(accepted.body.data.team.role).toBe('ADMIN');
      tokens.carol = accepted.body.data.token;
    });

    it('lists members, changes roles and removes members, keeping one admin', async () => {
      const members = await api('GET', `/team/members/${ids.team}`, { token: tokens.bob });
      expect(members.body.data.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
        ['ada@example.com', 'ADMIN'],
        ['bob@example.com', 'MEMBER'],
        ['carol@example.com', 'ADMIN'],
      ]);
      const promoted = await api('PATCH', '/team/role', { token: tokens.ada, body: { teamId: ids.team, userId: ids.bob, role: 'ADMIN' } });
      expect(promoted.body.data).toMatchObject({ id: ids.bob, role: 'ADMIN' });
      await api('PATCH', '/team/role', { token: tokens.ada, body: { teamId: ids.team, userId: ids.bob, role: 'MEMBER' } });
      expect((await api('PATCH', '/team/role', { token: tokens.ada, body: { teamId: ids.team, userId: ids.bob, role: 'OWNER' } })).body.field).toBe('role');
      expect((await api('DELETE', '/team/member', { token: tokens.ada, body: { teamId: ids.team, userId: ids.carol } })).status).toBe(200);
      expect((await api('DELETE', '/team/member', { token: tokens.ada, body: { teamId: ids.team, userId: ids.carol } })).status).toBe(404);
      const lastAdmin = await api('PATCH', '/team/role', { token: tokens.ada, body: { teamId: ids.team, userId: ids.ada, role: 'MEMBER' } });
      expect([lastAdmin.status, lastAdmin.body.message]).toEqual([409, 'A team needs at least one admin: make another member admin first']);
      expect((await api('GET', '/team/', { token: tokens.carol })).body.data).toEqual([]);
    });

    it('enforces seats and groups on a trial, and charges them on a paid plan', async () => {
      const dan = await registerUser(spendgate.url, 'dan@example.com');
      const team = (await api('POST', '/team/', { token: dan.token, body: { name: 'Dan & Co' } })).body.data.id;
      expect((await api('POST', '/team/invite', { token: dan.token, body: { teamId: team, email: 'one@example.com' } })).status).toBe(201);
      const refused = await api('POST', '/team/invite', { token: dan.token, body: { teamId: team, email: 'two@example.com' } });
      expect([refused.status, refused.body.message]).toEqual([402, 'Your Free Trial plan includes 2 seats during the trial. Choose a paid plan to add more.']);
      for (const name of ['First', 'Second']) {
        expect((await api('POST', '/synthetic-group', { token: dan.token, body: { teamId: team, name } })).status).toBe(201);
      }
      const thirdGroup = await api('POST', '/synthetic-group', { token: dan.token, body: { teamId: team, name: 'Third' } });
      expect([thirdGroup.status, thirdGroup.body.message]).toEqual([402, 'Your Free Trial plan includes 2 synthetic groups during the trial. Choose a paid plan to add more.']);
      const groupId = (await api('GET', `/synthetic-group?teamId=${team}`, { token: dan.token })).body.data[0].id;
      const optimisedKey = () => api('POST', `/synthetic-group/provider-key/create/${groupId}`, { token: dan.token, body: { name: 'auto', kind: 'optimised' } });
      expect([(await optimisedKey()).status, (await optimisedKey()).status]).toEqual([201, 201]);
      const thirdKey = await optimisedKey();
      expect([thirdKey.status, thirdKey.body.message]).toEqual([402, 'Your Free Trial plan includes 2 optimised keys during the trial. Choose a paid plan to add more.']);

      await activate(dan.userId, 'developers');
      const charged = await api('POST', '/synthetic-group', { token: dan.token, body: { teamId: team, name: 'Third' } });
      expect(charged.status).toBe(201);
      const chargedKey = await optimisedKey();
      expect(chargedKey.status).toBe(201);
      expect((await api('POST', '/team/invite', { token: dan.token, body: { teamId: team, email: 'two@example.com' } })).status).toBe(201);
      for (const email of ['one@example.com', 'two@example.com']) {
        const token = invitationTokenIn(await mail.next(email));
        expect((await api('POST', '/team/accept', { body: { token, password: PASSWORD, name: email } })).status).toBe(200);
      }
      // Each unit past the allowance is charged from when it started (the audit log says at what price).
      const charges = await db()
        .selectFrom('audit_log')
        .select(['target_type', 'target_id', 'details'])
        .where('team_id', '=', team)
        .where('action', '=', 'plan.overage_started')
        .orderBy('target_type')
        .execute();
      expect(charges.map((c) => [c.target_type, c.details])).toEqual([
        ['group', { plan: 'developers', unitPriceMicros: '5000000', currency: 'GBP' }],
        ['key', { plan: 'developers', unitPriceMicros: '5000000', currency: 'GBP' }],
        ['seat', { plan: 'developers', unitPriceMicros: '10000000', currency: 'GBP' }],
      ]);
      expect(charges.map((c) => c.target_id).slice(0, 2)).toEqual([charged.body.data.id, chargedKey.body.data.providerKey.id]);
      // A group or key that goes away stops being counted: its span ends (the invoice charges a unit while it is live).
      await api('DELETE', `/synthetic-group/${charged.body.data.id}`, { token: dan.token });
      await api('DELETE', `/synthetic-group/provider-key/${chargedKey.body.data.providerKey.id}`, { token: dan.token });
      const units = await db().selectFrom('plan_units').select(['kind', 'target_id', 'ended_at']).where('team_id', '=', team).execute();
      const live = (kind: string) => units.filter((unit) => unit.kind === kind && unit.ended_at === null).length;
      expect([live('seat'), live('group'), live('key')]).toEqual([3, 2, 2]);
      expect(units.filter((unit) => unit.ended_at !== null).map((unit) => [unit.kind, unit.target_id]).sort()).toEqual([
        ['group', charged.body.data.id],
        ['key', chargedKey.body.data.providerKey.id],
      ]);
    });

    it('charges a demo team nothing for what it adds past its plan', async () => {
      const sam = await registerUser(spendgate.url, 'sam-samples@example.com');
      await activate(sam.userId, 'developers');
      const team = (await api('POST', '/team/', { token: sam.token, body: { name: 'Sam samples' } })).body.data.id;
      await db().updateTable('teams').set({ is_demo: true }).where('id', '=', team).execute();
      for (const name of ['First', 'Second', 'Third']) {
        expect((await api('POST', '/synthetic-group', { token: sam.token, body: { teamId: team, name } })).status).toBe(201);
      }
      expect(await db().selectFrom('audit_log').select('target_type').where('team_id', '=', team).where('action', '=', 'plan.overage_started').execute()).toEqual([]);
    });

    it('lists the providers from the registry with what a connection needs', async () => {
      const providers = (await api('GET', '/provider', { token: tokens.bob })).body.data as { id: string; name: string; baseUrl: { default: string | null; required: boolean }; models: string[]; authFields: unknown[] }[];
      const openai = providers.find((provider) => provider.id === 'openai')!;
      expect(openai).toMatchObject({ name: 'OpenAI', baseUrl: { default: 'https://api.openai.com/v1', required: false } });
      expect(openai.models).toContain('gpt-4o');
      expect(openai.authFields).toEqual([{ name: 'apiKey', label: 'API key', type: 'secret', required: true }]);
      expect(providers.find((provider) => provider.id === 'openai-compatible')!.baseUrl).toMatchObject({ default: null, required: true });
    });

    it('manages connections: masked secret, edits, status, live test, usage, delete', async () => {
      const created = await api('POST', '/provider/connections', {
        token: tokens.ada,
        body: { teamId: ids.team, provider: 'openai', name: 'Fake OpenAI', apiKey: CANARY, baseUrl: fake.url },
      });
      expect(created.status).toBe(201);
      const connection = created.body.data.newConnection;
      expect(connection).toMatchObject({ provider: 'openai', status: 'active', apiKeyTail: `••••${CANARY.slice(-4)}`, baseUrl: fake.url });
      ids.connection = connection.id;

      const privateUrl = await api('POST', '/provider/connections', {
        token: tokens.ada,
        body: { teamId: ids.team, provider: 'openai-compatible', name: 'Local', apiKey: 'k', baseUrl: 'http://169.254.169.254/v1' },
      });
      expect([privateUrl.status, privateUrl.body.message]).toEqual([400, 'baseUrl must not point to a private, loopback or link-local address']);
      const member = await api('POST', '/provider/connections', { token: tokens.bob, body: { teamId: ids.team, provider: 'openai', name: 'x', apiKey: 'k' } });
      expect(member.status).toBe(403);

      expect((await api('GET', '/provider/connections', { token: tokens.bob })).body.data).toEqual([expect.objectContaining({ id: ids.connection, apiKeyTail: `••••${CANARY.slice(-4)}` })]);
      expect((await api('GET', `/provider/connections?teamId=${ids.team}`, { token: tokens.carol })).status).toBe(404);
      expect((await api('GET', `/provider/connections/${ids.connection}`, { token: tokens.bob })).body.data.name).toBe('Fake OpenAI');

      const tested = await api('POST', '/provider/test/connection', { token: tokens.ada, body: { connectionId: ids.connection } });
      expect(tested.status).toBe(200);
      expect(tested.body.data).toMatchObject({ ok: true, provider: 'openai', latencyMs: expect.any(Number) });
      const badKey = await api('POST', '/provider/test/connection', { token: tokens.ada, body: { teamId: ids.team, provider: 'openai', apiKey: 'sk-wrong', baseUrl: fake.url } });
      expect([badKey.status, badKey.body.message]).toEqual([422, 'OpenAI refused the API key (HTTP 401)']);
      const unreachable = await api('POST', '/provider/test/connection', { token: tokens.ada, body: { teamId: ids.team, provider: 'openai', apiKey: 'k', baseUrl: 'http://127.0.0.1:1/v1' } });
      expect(unreachable.status).toBe(422);
      expect(unreachable.body.message).toMatch(/^http:\/\/127\.0\.0\.1:1\/v1 could not be reached/);
      expect((await api('POST', '/provider/test/connection', { token: tokens.ada, body: { teamId: ids.team, provider: 'openai' } })).body.field).toBe('apiKey');

      const renamed = await api('PUT', `/provider/connections/${ids.connection}`, { token: tokens.ada, body: { name: 'Fake (rotated)', apiKey: CANARY_ROTATED } });
      expect(renamed.body.data).toMatchObject({ name: 'Fake (rotated)', apiKeyTail: `••••${CANARY_ROTATED.slice(-4)}` });
      expect((await api('PUT', `/provider/connections/${ids.connection}`, { token: tokens.ada, body: {} })).status).toBe(400);
      await api('PUT', `/provider/connections/${ids.connection}`, { token: tokens.ada, body: { apiKey: CANARY } });

      const byom = await api('POST', '/provider', { token: tokens.ada, body: { teamId: ids.team, name: 'Our Llama', baseUrl: `${fake.url}/` } });
      expect(byom.status).toBe(201);
      expect(byom.body.data).toMatchObject({ provider: 'openai-compatible', name: 'Our Llama', baseUrl: fake.url, apiKeyTail: '••••', status: 'active' });
      const byomPrivate = await api('POST', '/provider', { token: tokens.ada, body: { teamId: ids.team, name: 'LAN', baseUrl: 'http://192.168.1.20:11434/v1' } });
      expect([byomPrivate.status, byomPrivate.body.field]).toEqual([400, 'baseUrl']);
      expect((await api('POST', '/provider', { token: tokens.bob, body: { teamId: ids.team, name: 'x', baseUrl: fake.url } })).status).toBe(403);
      expect((await api('POST', '/provider', { token: tokens.ada, body: { teamId: ids.team, name: 'x' } })).body.field).toBe('baseUrl');
      await api('DELETE', `/provider/connections/${byom.body.data.id}`, { token: tokens.ada });

      const disabled = await api('PATCH', `/provider/connections/status/${ids.connection}`, { token: tokens.ada, body: { statusValue: 'disabled' } });
      expect(disabled.body.data).toEqual({ id: ids.connection, status: 'disabled' });
      expect((await api('PATCH', `/provider/connections/status/${ids.connection}`, { token: tokens.ada, body: { statusValue: 'paused' } })).body.field).toBe('statusValue');
      await api('PATCH', `/provider/connections/status/${ids.connection}`, { token: tokens.ada, body: { statusValue: 'active' } });
    });

    it('manages groups, their members and keys; a revoked key stops working', async () => {
      const created = await api('POST', '/synthetic-group', { token: tokens.ada, body: { teamId: ids.team, name: 'Chatbot', description: 'Support bot' } });
      expect(created.status).toBe(201);
      ids.group = created.body.data.id;
      expect(created.body.data).toMatchObject({ role: 'ADMIN', syntheticGroupUsers: [{ user: { id: ids.ada }, role: 'ADMIN' }], syntheticGroupProviderKeys: [] });

      const added = await api('POST', `/synthetic-group/member/${ids.group}`, { token: tokens.ada, body: { users: [{ userId: ids.bob, role: 'MAINTAINER' }] } });
      expect(added.status).toBe(201);
      expect(added.body.data.addedUsers).toEqual([{ user: expect.objectContaining({ id: ids.bob, email: 'bob@example.com' }), role: 'MAINTAINER' }]);
      const again = await api('POST', `/synthetic-group/member/${ids.group}`, { token: tokens.ada, body: { users: [{ userId: ids.bob, role: 'ADMIN' }] } });
      expect(again.body.data.addedUsers).toEqual([]);
      const stranger = await api('POST', `/synthetic-group/member/${ids.group}`, { token: tokens.ada, body: { users: [{ userId: ids.carol }] } });
      expect([stranger.status, stranger.body.field]).toEqual([400, 'users.0.userId']);

      const key = await api('POST', `/synthetic-group/provider-key/create/${ids.group}`, { token: tokens.bob, body: { name: 'prod', kind: 'byok', connectionId: ids.connection } });
      expect(key.status).toBe(201);
      ids.key = key.body.data.providerKey.id;
      const client = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key.body.data.key, maxRetries: 0 });
      const completion = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] });
      expect(completion.choices[0]?.message.content).toBe('echo: Hello');
      await usageWritten(spendgate);

      const group = await api('GET', `/synthetic-group/${ids.group}`, { token: tokens.bob });
      expect(group.body.data).toMatchObject({ role: 'MAINTAINER', usage: { requests: 1 } });
      expect(group.body.data.syntheticGroupProviderKeys).toEqual([expect.objectContaining({ id: ids.key, kind: 'byok', prefix: key.body.data.key.slice(0, 14) })]);
      expect(JSON.stringify(group.body)).not.toContain(key.body.data.key);
      const usage = await api('GET', `/synthetic-group/${ids.group}/usage`, { token: tokens.bob });
      expect(usage.body.data).toMatchObject({ groupId: ids.group, requests: 1, totalCostMicros: expect.any(String) });
      // Usage through a connection is the team's: its admin sees it, a member (Bob) is told why not.
      const connectionUsage = await api('GET', `/provider/connections/${ids.connection}/usage`, { token: tokens.ada });
      expect(connectionUsage.body.data).toMatchObject({ connectionId: ids.connection, requests: 1 });
      expect((await api('GET', `/provider/connections/${ids.connection}/usage`, { token: tokens.bob })).status).toBe(403);
      expect((await api('GET', `/synthetic-group/${ids.group}/usage?startDate=2026-02-30`, { token: tokens.bob })).body.field).toBe('startDate');

      const listed = await api('GET', `/synthetic-group?teamId=${ids.team}&search=chat`, { token: tokens.bob });
      expect(listed.body.data.map((g: { id: string }) => g.id)).toEqual([ids.group]);
      const renamed = await api('PUT', `/synthetic-group/${ids.group}`, { token: tokens.bob, body: { name: 'Support bot' } });
      expect(renamed.body.data).toMatchObject({ name: 'Support bot', description: 'Support bot' });

      const role = await api('PATCH', `/synthetic-group/member/${ids.group}/${ids.bob}`, { token: tokens.ada, body: { role: 'OBSERVER' } });
      expect(role.body.data).toEqual({ groupId: ids.group, userId: ids.bob, role: 'OBSERVER' });
      expect((await api('GET', `/synthetic-group/member/${ids.group}`, { token: tokens.bob })).body.data.map((m: { role: string }) => m.role)).toEqual(['ADMIN', 'OBSERVER']);
      expect((await api('DELETE', `/synthetic-group/provider-key/${ids.key}`, { token: tokens.bob })).status).toBe(403);

      const revoked = await api('DELETE', `/synthetic-group/provider-key/${ids.key}`, { token: tokens.ada });
      expect(revoked.body.data).toEqual({ id: ids.key, groupId: ids.group });
      await expect(client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
      expect((await api('DELETE', `/synthetic-group/provider-key/${ids.key}`, { token: tokens.ada })).status).toBe(404);

      expect((await api('DELETE', `/synthetic-group/member/${ids.group}/${ids.bob}`, { token: tokens.ada })).body.data).toEqual({ groupId: ids.group, userId: ids.bob });
      expect((await api('GET', `/synthetic-group/${ids.group}`, { token: tokens.bob })).status).toBe(404);
    });

    it('invites to a group: list, resend, revoke, and accept only as the invited, signed-in account', async () => {
      const invited = await api('POST', `/synthetic-group/${ids.group}/invite`, { token: tokens.ada, body: { email: 'erin@example.com', role: 'MAINTAINER' } });
      expect(invited.status).toBe(201);
      expect(invited.body.data).toMatchObject({ syntheticGroupId: ids.group, email: 'erin@example.com', role: 'MAINTAINER', status: 'pending' });
      const firstToken = invitationTokenIn(await mail.next('erin@example.com'));
      expect((await mail.next('erin@example.com')).text).toContain(`https://console.spendgate.test/groups/accept-invite?token=${firstToken}`);

      const resent = await api('POST', `/synthetic-group/invitations/${invited.body.data.id}/resend`, { token: tokens.ada });
      expect(resent.body.data).toMatchObject({ id: invited.body.data.id, syntheticGroupId: ids.group });
      const token = invitationTokenIn(await mail.next('erin@example.com', 1));
      expect(token).not.toBe(firstToken);

      const other = await api('POST', `/synthetic-group/${ids.group}/invite`, { token: tokens.ada, body: { email: 'frank@example.com', role: 'OBSERVER' } });
      const revoked = await api('DELETE', `/synthetic-group/invitations/${other.body.data.id}/revoke`, { token: tokens.ada });
      expect(revoked.body.data).toMatchObject({ id: other.body.data.id, status: 'revoked' });
      expect((await api('DELETE', `/synthetic-group/invitations/${other.body.data.id}/revoke`, { token: tokens.ada })).status).toBe(400);
      const list = await api('GET', `/synthetic-group/${ids.group}/invitations`, { token: tokens.ada });
      expect(list.body.data.map((i: { email: string; status: string }) => [i.email, i.status])).toEqual([
        ['frank@example.com', 'revoked'],
        ['erin@example.com', 'pending'],
      ]);
      expect(JSON.stringify(list.body)).not.toMatch(/token/i);

      const anonymous = await api('POST', '/synthetic-group/accept-invite', { body: { token } });
      expect([anonymous.status, anonymous.body.message]).toEqual([401, 'Please log in to Continue!']);
      const wrongAccount = await api('POST', '/synthetic-group/accept-invite', { token: tokens.bob, body: { token } });
      expect([wrongAccount.status, wrongAccount.body.message]).toEqual([403, 'This invitation was sent to another email address']);
      const erin = await registerUser(spendgate.url, 'erin@example.com');
      const stale = await api('POST', '/synthetic-group/accept-invite', { token: erin.token, body: { token: firstToken } });
      expect([stale.status, stale.body.field]).toEqual([400, 'token']);
      const accepted = await api('POST', '/synthetic-group/accept-invite', { token: erin.token, body: { token } });
      expect(accepted.status).toBe(200);
      expect(accepted.body.data.group).toMatchObject({ id: ids.group, role: 'MAINTAINER' });
      expect(accepted.body.data.group.syntheticGroupUsers).toContainEqual(expect.objectContaining({ user: expect.objectContaining({ id: erin.userId }), role: 'MAINTAINER' }));
      expect((await api('GET', '/team/', { token: erin.token })).body.data).toEqual([expect.objectContaining({ id: ids.team, role: 'MEMBER' })]);
      expect((await api('POST', '/synthetic-group/accept-invite', { token: erin.token, body: { token } })).status).toBe(400);
    });

    it('deletes a connection and a group', async () => {
      const spare = await api('POST', '/synthetic-group', { token: tokens.ada, body: { teamId: ids.team, name: 'Spare' } });
      expect((await api('DELETE', `/synthetic-group/${spare.body.data.id}`, { token: tokens.bob })).status).toBe(404);
      expect((await api('DELETE', `/synthetic-group/${spare.body.data.id}`, { token: tokens.ada })).body.data).toEqual({ id: spare.body.data.id });
      expect((await api('GET', `/synthetic-group/${spare.body.data.id}`, { token: tokens.ada })).status).toBe(404);
      const extra = await api('POST', '/provider/connections', { token: tokens.ada, body: { teamId: ids.team, provider: 'openai', name: 'Spare', apiKey: 'sk-spare-key' } });
      const id = extra.body.data.newConnection.id;
      expect((await api('DELETE', `/provider/connections/${id}`, { token: tokens.bob })).status).toBe(403);
      expect((await api('DELETE', `/provider/connections/${id}`, { token: tokens.ada })).body.data).toEqual({ id });
      expect((await api('GET', `/provider/connections/${id}`, { token: tokens.ada })).status).toBe(404);
    });

    it('answers 400 naming the field for bad input on every route', async () => {
      const cases: [string, string, unknown, string][] = [
        ['GET', '/team/members/nope', undefined, 'teamId'],
        ['DELETE', '/team/member', { teamId: ids.team }, 'userId'],
        ['POST', '/team/accept', { token: 'short', password: PASSWORD }, 'token'],
        ['GET', '/provider/connections?teamId=nope', undefined, 'teamId'],
        ['GET', '/provider/connections/nope', undefined, 'id'],
        ['DELETE', '/provider/connections/nope', undefined, 'id'],
        ['POST', '/provider/connections', { teamId: ids.team, provider: 'openai', name: 'x' }, 'apiKey'],
        ['GET', `/provider/connections/${ids.connection}/usage?endDate=2026-01-01&startDate=2026-02-01`, undefined, 'endDate'],
        ['GET', '/synthetic-group?teamId=nope', undefined, 'teamId'],
        ['PUT', `/synthetic-group/${ids.group}`, {}, 'body'],
        ['DELETE', '/synthetic-group/nope', undefined, 'id'],
        ['GET', '/synthetic-group/member/nope', undefined, 'groupId'],
        ['POST', `/synthetic-group/member/${ids.group}`, { users: [] }, 'users'],
        ['PATCH', `/synthetic-group/member/${ids.group}/${ids.bob}`, { role: 'OWNER' }, 'role'],
        ['DELETE', `/synthetic-group/member/${ids.group}/nope`, undefined, 'userId'],
        ['POST', `/synthetic-group/${ids.group}/invite`, { email: 'not-an-email' }, 'email'],
        ['GET', '/synthetic-group/nope/invitations', undefined, 'groupId'],
        ['POST', '/synthetic-group/invitations/nope/resend', undefined, 'invitationId'],
        ['DELETE', '/synthetic-group/invitations/nope/revoke', undefined, 'invitationId'],
        ['POST', '/synthetic-group/accept-invite', {}, 'token'],
        ['POST', `/synthetic-group/provider-key/create/${ids.group}`, { name: 'k', kind: 'optimised', connectionId: ids.connection }, 'connectionId'],
        ['DELETE', '/synthetic-group/provider-key/nope', undefined, 'id'],
        ['GET', '/audit', undefined, 'teamId'],
        ['GET', `/audit?teamId=${ids.team}&from=yesterday`, undefined, 'from'],
        ['PATCH', '/auth/update-password', { currentPassword: PASSWORD }, 'newPassword'],
        ['POST', '/auth/forgot-password', { email: 'nope' }, 'email'],
        ['POST', '/auth/reset-password', { email: 'ada@example.com', otp: '1234567', newPassword: 'long enough phrase' }, 'otp'],
        ['POST', '/auth/send-register-email-otp', {}, 'email'],
        ['POST', '/provider', { teamId: ids.team, name: 'x', baseUrl: 'ftp://x' }, 'baseUrl'],
      ];
      for (const [method, route, body, field] of cases) {
        const answer = await api(method, route, { token: tokens.ada, body });
        expect([method, route, answer.status, answer.body.field]).toEqual([method, route, 400, field]);
        expect(answer.body.message).toContain(field === 'body' ? 'must change' : field);
      }
    });

    it('writes an audit row for every change on any plan, readable by team admins on Enterprise with filters and pages', async () => {
      const onGrowth = await api('GET', `/audit?teamId=${ids.team}`, { token: tokens.ada });
      expect([onGrowth.status, (onGrowth.body as { code?: string }).code, onGrowth.body.message]).toEqual([
        403,
        'plan_required',
        'The audit log is part of the Enterprise plan; the Growth plan records every change but does not include reading, exporting or verifying it',
      ]);
      await activate(ids.ada!, 'enterprise');
      const all = await api('GET', `/audit?teamId=${ids.team}&pageSize=200`, { token: tokens.ada });
      expect(all.status).toBe(200);
      // Each entry says who made the change and from where.
      const byAda = (all.body.data.entries as { actor: unknown; ip: string | null; userAgent: string | null }[]).find((entry) => entry.actor && (entry.actor as { userId?: string }).userId === ids.ada)!;
      expect(byAda).toMatchObject({ actor: { kind: 'user', userId: ids.ada, email: 'ada@example.com' }, ip: '127.0.0.1', userAgent: expect.any(String) });
      const actions = new Set((all.body.data.entries as { action: string }[]).map((entry) => entry.action));
      for (const action of [
        'team.created', 'invitation.created', 'member.joined', 'member.role_changed', 'member.removed',
        'connection.created', 'connection.updated', 'connection.status_changed', 'connection.deleted',
        'group.created', 'group.updated', 'group.deleted', 'group.member_added', 'group.member_role_changed', 'group.member_removed',
        'key.created', 'key.revoked', 'invitation.resent', 'invitation.revoked', 'invitation.accepted',
      ]) {
        expect(actions, action).toContain(action);
      }
      const total = all.body.data.total as number;
      const roleChanges = await api('GET', `/audit?teamId=${ids.team}&action=member.role_changed`, { token: tokens.ada });
      expect(roleChanges.body.data.entries.map((e: { actorUserId: string; targetId: string; details: unknown }) => [e.actorUserId, e.targetId, e.details])).toEqual([
        [ids.ada, ids.bob, { from: 'ADMIN', to: 'MEMBER' }],
        [ids.ada, ids.bob, { from: 'MEMBER', to: 'ADMIN' }],
      ]);
      const page2 = await api('GET', `/audit?teamId=${ids.team}&page=2&pageSize=3`, { token: tokens.ada });
      expect(page2.body.data).toMatchObject({ page: 2, pageSize: 3, total });
      expect(page2.body.data.entries.map((e: { id: string }) => e.id)).toEqual(all.body.data.entries.slice(3, 6).map((e: { id: string }) => e.id));
      const future = await api('GET', `/audit?teamId=${ids.team}&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: tokens.ada });
      expect(future.body.data).toMatchObject({ entries: [], total: 0 });
      expect((await api('GET', `/audit?teamId=${ids.team}&pageSize=500`, { token: tokens.ada })).body.field).toBe('pageSize');
      expect((await api('GET', `/audit?teamId=${ids.team}`, { token: tokens.bob })).status).toBe(403);
      expect((await api('GET', `/audit?teamId=${ids.team}`, { token: tokens.carol })).status).toBe(404);
      await activate(ids.ada!, 'growth');
    });

    it('never lets the canary provider key out: answers, log, job payloads, database', async () => {
      expect(log.join('').length).toBeGreaterThan(0);
      const tables = await sql<{ table_name: string }>`
        select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`.execute(db());
      const rows: string[] = [];
      for (const { table_name } of tables.rows) {
        const result = await sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(table_name)} t`.execute(db());
        rows.push(...result.rows.map((row) => row.row));
      }
      expect(rows.some((row) => row.includes('Fake (rotated)') || row.includes('Fake OpenAI'))).toBe(true);
      for (const [where, haystack] of [
        ['answers', answers.join('\n')],
        ['log', log.join('')],
        ['job payloads', jobPayloads.join('\n')],
        ['database', rows.join('\n')],
      ] as const) {
        for (const canary of [CANARY, CANARY_ROTATED, CANARY.slice(0, 16)]) expect(haystack.includes(canary), `${canary} in ${where}`).toBe(false);
      }
    });
  });
}
