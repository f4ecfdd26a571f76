/**
 * Prompt capture end to end, in every run mode: off by default (nothing stored), on only
 * where the team and the group both opted in; a captured chat completion and a stream
 * (assembled) stored redacted and sealed, and shown redacted only to those who may see
 * the group's usage, each view audited; settings checked (a pattern RE2 cannot run, a
 * retention over the plan's maximum: 400 naming the field) and limited to their roles;
 * other teams answered 404; expired captures pruned. Scaled, with the capture table
 * locked, the answer still arrives: capture is off the hot path.
 */
import { createLogger, insertGroupMember, insertTeamMember, listAudit, openSqlStore } from '@spendgate/store';
import { sql } from 'kysely';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPruneProcessor } from '../../worker/src/jobs/prune.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { issueByokKey, recordedEvents, signUpTeam, type Tenant } from '../data-plane/tenant.ts';
import { signUp } from '../support/sign-up.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';

const SECRETS = 'mail jane.roe@example.com, card 4111 1111 1111 1111, key sk-proj-abcdefghijklmnopqrstuv and ticket ACME-88231';

for (const mode of testModes) {
  describe(`prompt capture (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let fake: FakeOpenAI;
    let tenant: Tenant;
    let openai: OpenAI;
    let sent = 0;
    const users = { observer: '', outsiderTeamMember: '', outsider: '' };

    const api = (method: string, path: string, token: string, body?: unknown) => callApi(spendgate.url, method, path, { token, body });
    const db = () => spendgate.app.runtime.stores.sql.db;
    const capturesOf = () => db().selectFrom('prompt_captures').selectAll().where('team_id', '=', tenant.teamId).execute();
    const chat = async (content: string) => {
      sent++;
      const { response } = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] }).withResponse();
      return response.headers.get('x-spendgate-request-id')!;
    };
    const captured = async () => {
      await recordedEvents(spendgate, tenant.teamId, sent);
      await spendgate.app.runtime.capture.settled();
    };

    beforeAll(async () => {
      fake = await startFakeOpenAI();
      spendgate = await startSpendgate(mode, 'prompt-capture');
      tenant = await signUpTeam(spendgate.url, `capture-${mode}@example.com`);
      const key = await issueByokKey(spendgate.url, tenant, { provider: 'openai', apiKey: 'sk-fake-upstream', baseUrl: fake.url });
      openai = new OpenAI({ baseURL: `${spendgate.url}/v1`, apiKey: key, maxRetries: 0 });
      const observer = await signUp(spendgate.url, `capture-observer-${mode}@example.com`);
      await insertTeamMember(db(), { teamId: tenant.teamId, userId: observer.userId, role: 'MEMBER' });
      await insertGroupMember(db(), { groupId: tenant.groupId, userId: observer.userId, role: 'OBSERVER' });
      users.observer = observer.token;
      const member = await signUp(spendgate.url, `capture-member-${mode}@example.com`);
      await insertTeamMember(db(), { teamId: tenant.teamId, userId: member.userId, role: 'MEMBER' });
      users.outsiderTeamMember = member.token;
      users.outsider = (await signUpTeam(spendgate.url, `capture-other-${mode}@example.com`)).token;
    }, 120_000);
    afterAll(async () => {
      await spendgate?.close();
      await fake?.close();
    });

    it('is off by default and stores nothing; the team alone does not turn a group on', async () => {
      const settings = await api('GET', `/capture/teams/${tenant.teamId}`, tenant.token);
      expect(settings.status).toBe(200);
      expect(settings.body.data).toMatchObject({ enabled: false, retentionDays: null, effectiveRetentionDays: 30, groups: [] });
      const off = await chat(`off ${SECRETS}`);
      expect((await api('PUT', `/capture/teams/${tenant.teamId}`, tenant.token, { enabled: true })).status).toBe(200);
      await chat(`team only ${SECRETS}`);
      await captured();
      expect(await capturesOf()).toEqual([]);
      const view = await api('GET', `/usage/requests/${off}/capture`, tenant.token);
      expect(view.status).toBe(200);
      expect(view.body.data).toEqual({ requestId: off, captured: false });
    });

    it('checks the settings: bad patterns and retention named, roles enforced, other teams 404', async () => {
      const put = (body: unknown, token = tenant.token) => api('PUT', `/capture/teams/${tenant.teamId}`, token, body);
      for (const [body, field] of [
        [{ enabled: true, redactionPatterns: ['ACME-[0-9]+', '(a)\\1'] }, 'redactionPatterns.1'],
        [{ enabled: true, redactionPatterns: ['(?=secret)'] }, 'redactionPatterns.0'],
        [{ enabled: true, redactionPatterns: ['x*'] }, 'redactionPatterns.0'],
        [{ enabled: true, redactionPatterns: ['a'.repeat(201)] }, 'redactionPatterns.0'],
        [{ enabled: true, redactionPatterns: Array.from({ length: 21 }, (_, index) => `p${index}`) }, 'redactionPatterns'],
        [{ enabled: true, retentionDays: 31 }, 'retentionDays'],
        [{ enabled: true, retentionDays: 0 }, 'retentionDays'],
        [{ enabled: 'yes' }, 'enabled'],
      ] as const) {
        const answer = await put(body);
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body.field, JSON.stringify(answer.body)).toBe(field);
      }
      expect((await put({ enabled: false }, users.observer)).status).toBe(403);
      expect((await put({ enabled: false }, users.outsider)).status).toBe(404);
      expect((await api('GET', `/capture/teams/${tenant.teamId}`, users.outsider)).status).toBe(404);
      expect((await api('PUT', `/capture/groups/${tenant.groupId}`, users.observer, { enabled: true })).status).toBe(403);
      expect((await api('PUT', `/capture/groups/${tenant.groupId}`, users.outsider, { enabled: true })).status).toBe(404);
    });

    it('captures a chat completion and a stream, redacted and sealed, once team and group opt in', async () => {
      const team = await api('PUT', `/capture/teams/${tenant.teamId}`, tenant.token, { enabled: true, retentionDays: 14, redactionPatterns: ['ACME-[0-9]+'] });
      expect(team.body.data).toMatchObject({ enabled: true, retentionDays: 14, effectiveRetentionDays: 14, maxRetentionDays: 30 });
      const group = await api('PUT', `/capture/groups/${tenant.groupId}`, tenant.token, { enabled: true });
      expect(group.body.data.groups).toEqual([{ groupId: tenant.groupId, enabled: true }]);

      const plain = await chat(`plain ${SECRETS}`);
      sent++;
      const stream = await openai.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: `streamed ${SECRETS}` }] }).withResponse();
      let streamedText = '';
      for await (const chunk of stream.data) streamedText += chunk.choices[0]?.delta?.content ?? '';
      const streamed = stream.response.headers.get('x-spendgate-request-id')!;
      await captured();

      const rows = await capturesOf();
      expect(rows.map((row) => row.request_id).sort()).toEqual([plain, streamed].sort());
      for (const row of rows) {
        const bytes = Buffer.from(row.sealed);
        for (const secret of ['jane.roe', '4111', 'sk-proj', 'ACME', 'plain', 'streamed']) expect(bytes.includes(Buffer.from(secret))).toBe(false);
        expect(row.expires_at.getTime() - row.captured_at.getTime()).toBe(14 * 86_400_000);
      }

      const view = await api('GET', `/usage/requests/${plain}/capture`, users.observer);
      expect(view.status, JSON.stringify(view.body)).toBe(200);
      const { request, response, redactions, captured: isCaptured } = view.body.data;
      expect(isCaptured).toBe(true);
      for (const side of [request.text, response.text]) {
        expect(side).toContain('plain mail [REDACTED:email], card [REDACTED:card], key [REDACTED:api-key] and ticket [REDACTED:team-pattern]');
        for (const secret of ['jane.roe', '4111', 'sk-proj', 'ACME']) expect(side).not.toContain(secret);
      }
      expect(JSON.parse(request.text)).toMatchObject({ model: 'gpt-4o' });
      expect(request).toMatchObject({ truncated: false });
      expect(redactions).toBe(8);

      const streamView = await api('GET', `/usage/requests/${streamed}/capture`, tenant.token);
      expect(streamView.body.data.response).toMatchObject({ streamed: true, truncated: false });
      // The stream's text as the caller assembled it, redacted.
      expect(streamView.body.data.response.text).toBe(
        streamedText.replace('jane.roe@example.com', '[REDACTED:email]').replace('4111 1111 1111 1111', '[REDACTED:card]').replace('sk-proj-abcdefghijklmnopqrstuv', '[REDACTED:api-key]').replace('ACME-88231', '[REDACTED:team-pattern]'),
      );

      const audit = await listAudit(db(), tenant.teamId);
      const views = audit.filter((entry) => entry.action === 'prompt_capture.viewed');
      expect(views.map((entry) => entry.target_id)).toEqual([plain, streamed]);
      expect(views[0]!.details).toEqual({ summary: 'viewed prompt' });
      expect(audit.filter((entry) => entry.action.startsWith('prompt_capture.') && entry.action !== 'prompt_capture.viewed').length).toBe(3);
      for (const entry of audit) expect(JSON.stringify(entry.details)).not.toContain('jane.roe');
    });

    it('shows a capture only to those who may see the group’s usage', async () => {
      const [row] = await capturesOf();
      const path = `/usage/requests/${row!.request_id}/capture`;
      expect((await api('GET', path, users.outsiderTeamMember)).status).toBe(404);
      expect((await api('GET', path, users.outsider)).status).toBe(404);
      expect((await api('GET', '/usage/requests/req_that_never_was/capture', tenant.token)).status).toBe(404);
      const audit = await listAudit(db(), tenant.teamId);
      expect(audit.filter((entry) => entry.action === 'prompt_capture.viewed').length).toBe(2);
    });

    it('stops when the group opts out, and prunes expired captures', async () => {
      await api('PUT', `/capture/groups/${tenant.groupId}`, tenant.token, { enabled: false });
      const before = (await capturesOf()).length;
      await chat(`after opting out ${SECRETS}`);
      await captured();
      expect((await capturesOf()).length).toBe(before);

      const [oldest] = await capturesOf();
      await db().updateTable('prompt_captures').set({ expires_at: new Date(Date.now() - 1_000) }).where('request_id', '=', oldest!.request_id).execute();
      expect((await api('GET', `/usage/requests/${oldest!.request_id}/capture`, tenant.token)).body.data.captured).toBe(false);
      // The worker's hourly prune job.
      await createPruneProcessor({ sql: spendgate.app.runtime.stores.sql, log: createLogger('silent'), usageEventRetentionDays: 400, gpuSampleRetentionHours: 48 })();
      expect((await capturesOf()).map((row) => row.request_id)).not.toContain(oldest!.request_id);
      expect((await capturesOf()).length).toBe(before - 1);
    });

    it.runIf(mode === 'scaled')('answers while the capture table is locked: capture is off the hot path', async () => {
      await api('PUT', `/capture/groups/${tenant.groupId}`, tenant.token, { enabled: true });
      const locker = await openSqlStore({ kind: 'postgres', url: spendgate.peer!.env.DATABASE_URL!, poolSize: 1 });
      try {
        await locker.db.connection().execute(async (connection) => {
          await sql`begin`.execute(connection);
          await sql`lock table prompt_captures in access exclusive mode`.execute(connection);
          try {
            const requestId = await chat(`while locked ${SECRETS}`);
            expect(requestId).toBeTruthy();
            let stored = false;
            const settling = spendgate.app.runtime.capture.settled().then(() => {
              stored = true;
            });
            await new Promise((resolve) => setTimeout(resolve, 500));
            expect(stored).toBe(false);
            await sql`commit`.execute(connection);
            await settling;
            expect((await capturesOf()).map((row) => row.request_id)).toContain(requestId);
          } finally {
            await sql`rollback`.execute(connection).catch(() => undefined);
          }
        });
      } finally {
        await locker.close();
      }
    });
  });
}
