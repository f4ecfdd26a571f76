/**
 * The role × route × tenant matrix, in every run mode: six callers — the team's admin,
 * a group ADMIN, MAINTAINER and OBSERVER (team members), a team member outside the
 * group, and the admin of another team — call every team, connection and group route.
 * Each answer must be what core's role table decides: allowed (2xx), 403, or 404 for
 * an object the caller has no role in, with no data in the answer. Afterwards no row
 * of the audit log shows the other team's admin having changed anything here.
 */
import { type Access, type Action, decide } from '@spendgate/core';
import { insertGroupMember, insertTeamMember, insertUser, upsertSubscription } from '@spendgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai-provider.ts';
import { callApi, type RunningSpendgate, startSpendgate, testModes } from '../support/spendgate.ts';
import { type MailSink, registerUser, startMailSink } from './support.ts';

const CALLERS = {
  teamAdmin: { teamRole: 'ADMIN', groupRole: null },
  groupAdmin: { teamRole: 'MEMBER', groupRole: 'ADMIN' },
  maintainer: { teamRole: 'MEMBER', groupRole: 'MAINTAINER' },
  observer: { teamRole: 'MEMBER', groupRole: 'OBSERVER' },
  teamMember: { teamRole: 'MEMBER', groupRole: null },
  outsider: { teamRole: null, groupRole: null },
} as const satisfies Record<string, Access>;
type Caller = keyof typeof CALLERS;

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

interface RouteCase {
  action: Action;
  /** Builds the call; may first create a fresh object for it (as the team admin). */
  call(): Promise<Call> | Call;
}

const today = new Date().toISOString().slice(0, 10);

for (const mode of testModes) {
  describe(`role × route × tenant matrix (${mode})`, () => {
    let spendgate: RunningSpendgate;
    let mail: MailSink;
    let fake: FakeOpenAI;
    const tokens = {} as Record<Caller, string>;
    const userIds = {} as Record<Caller, string>;
    let teamId: string;
    let groupId: string;
    let connectionId: string;
    let groupMemberId: string;
    let sequence = 0;

    const db = () => spendgate.app.runtime.stores.sql.db;
    const asAdmin = async (method: string, path: string, body?: unknown) => {
      const answer = await callApi(spendgate.url, method, path, { token: tokens.teamAdmin, body });
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
      return answer.body.data;
    };
    /** A user in the team (and the group, with `groupRole`) who is none of the callers. */
    const bystander = async (groupRole?: 'OBSERVER') => {
      const id = crypto.randomUUID();
      await insertUser(db(), { id, email: `bystander${++sequence}@example.com`, name: 'Bystander', passwordHash: 'x' });
      await insertTeamMember(db(), { teamId, userId: id, role: 'MEMBER' });
      if (groupRole) await insertGroupMember(db(), { groupId, userId: id, role: groupRole });
      return id;
    };
    const freshEmail = () => `invitee${++sequence}@example.com`;

    const ROUTES: Record<string, RouteCase> = {
      'GET team members': { action: 'team.members.view', call: () => ({ method: 'GET', path: `/team/members/${teamId}` }) },
      'POST team invite': { action: 'team.members.invite', call: () => ({ method: 'POST', path: '/team/invite', body: { teamId, email: freshEmail() } }) },
      'PATCH team role': {
        action: 'team.members.role',
        call: async () => ({ method: 'PATCH', path: '/team/role', body: { teamId, userId: await bystander(), role: 'MEMBER' } }),
      },
      'DELETE team member': {
        action: 'team.members.remove',
        call: async () => ({ method: 'DELETE', path: '/team/member', body: { teamId, userId: await bystander() } }),
      },
      'PATCH team': { action: 'team.settings.manage', call: () => ({ method: 'PATCH', path: `/team/${teamId}`, body: { timeZone: 'Europe/London' } }) },
      // The log itself is Enterprise (this team is on Growth): its retention is read under the same permission.
      'GET audit retention': { action: 'team.audit.view', call: () => ({ method: 'GET', path: `/audit/retention/${teamId}` }) },
      'PUT audit retention': { action: 'team.settings.manage', call: () => ({ method: 'PUT', path: `/audit/retention/${teamId}`, body: { auditRetentionDays: 400 } }) },
      'GET spend digest': { action: 'team.usage.view', call: () => ({ method: 'GET', path: `/alerts/spend-digest?teamId=${teamId}` }) },
      'PUT spend digest': { action: 'team.usage.view', call: () => ({ method: 'PUT', path: '/alerts/spend-digest', body: { teamId, frequency: 'monthly' } }) },
      'GET connections of team': { action: 'connection.view', call: () => ({ method: 'GET', path: `/provider/connections?teamId=${teamId}` }) },
      'GET connection': { action: 'connection.view', call: () => ({ method: 'GET', path: `/provider/connections/${connectionId}` }) },
      'GET connection usage': { action: 'team.usage.view', call: () => ({ method: 'GET', path: `/provider/connections/${connectionId}/usage` }) },
      'POST connection': {
        action: 'connection.manage',
        call: () => ({ method: 'POST', path: '/provider/connections', body: { teamId, provider: 'openai', name: 'More', apiKey: 'sk-more' } }),
      },
      'PUT connection': { action: 'connection.manage', call: () => ({ method: 'PUT', path: `/provider/connections/${connectionId}`, body: { name: 'Fake' } }) },
      'PATCH connection status': {
        action: 'connection.manage',
        call: () => ({ method: 'PATCH', path: `/provider/connections/status/${connectionId}`, body: { statusValue: 'active' } }),
      },
      'POST test connection': { action: 'connection.manage', call: () => ({ method: 'POST', path: '/provider/test/connection', body: { connectionId } }) },
      'DELETE connection': {
        action: 'connection.manage',
        call: async () => {
          const { newConnection } = await asAdmin('POST', '/provider/connections', { teamId, provider: 'openai', name: 'Spare', apiKey: 'sk-spare' });
          return { method: 'DELETE', path: `/provider/connections/${newConnection.id}` };
        },
      },
      'POST group': { action: 'group.create', call: () => ({ method: 'POST', path: '/synthetic-group', body: { teamId, name: `Group ${++sequence}` } }) },
      'GET group': { action: 'group.view', call: () => ({ method: 'GET', path: `/synthetic-group/${groupId}` }) },
      'GET group members': { action: 'group.view', call: () => ({ method: 'GET', path: `/synthetic-group/member/${groupId}` }) },
      'GET group usage': { action: 'group.view', call: () => ({ method: 'GET', path: `/synthetic-group/${groupId}/usage` }) },
      'GET usage of group': {
        action: 'group.view',
        call: () => ({ method: 'GET', path: `/usage/group?groupId=${groupId}&startDate=${today}&endDate=${today}` }),
      },
      'PUT group': { action: 'group.update', call: () => ({ method: 'PUT', path: `/synthetic-group/${groupId}`, body: { description: 'edited' } }) },
      'DELETE group': {
        action: 'group.delete',
        call: async () => {
          const group = await asAdmin('POST', '/synthetic-group', { teamId, name: `Doomed ${++sequence}` });
          for (const caller of ['groupAdmin', 'maintainer', 'observer'] as const) {
            await insertGroupMember(db(), { groupId: group.id, userId: userIds[caller], role: CALLERS[caller].groupRole });
          }
          return { method: 'DELETE', path: `/synthetic-group/${group.id}` };
        },
      },
      'POST group members': {
        action: 'group.members.manage',
        call: async () => ({ method: 'POST', path: `/synthetic-group/member/${groupId}`, body: { users: [{ userId: await bystander() }] } }),
      },
      'PATCH group member role': {
        action: 'group.members.manage',
        call: () => ({ method: 'PATCH', path: `/synthetic-group/member/${groupId}/${groupMemberId}`, body: { role: 'OBSERVER' } }),
      },
      'DELETE group member': {
        action: 'group.members.manage',
        call: async () => ({ method: 'DELETE', path: `/synthetic-group/member/${groupId}/${await bystander('OBSERVER')}` }),
      },
      'POST group invite': {
        action: 'group.members.manage',
        call: () => ({ method: 'POST', path: `/synthetic-group/${groupId}/invite`, body: { email: freshEmail(), role: 'OBSERVER' } }),
      },
      'GET group invitations': { action: 'group.members.manage', call: () => ({ method: 'GET', path: `/synthetic-group/${groupId}/invitations` }) },
      'POST resend invitation': {
        action: 'group.members.manage',
        call: async () => {
          const invitation = await asAdmin('POST', `/synthetic-group/${groupId}/invite`, { email: freshEmail() });
          return { method: 'POST', path: `/synthetic-group/invitations/${invitation.id}/resend` };
        },
      },
      'DELETE revoke invitation': {
        action: 'group.members.manage',
        call: async () => {
          const invitation = await asAdmin('POST', `/synthetic-group/${groupId}/invite`, { email: freshEmail() });
          return { method: 'DELETE', path: `/synthetic-group/invitations/${invitation.id}/revoke` };
        },
      },
      'POST key': {
        action: 'group.keys.manage',
        call: () => ({ method: 'POST', path: `/synthetic-group/provider-key/create/${groupId}`, body: { name: 'k', kind: 'byok', connectionId } }),
      },
      'PATCH key': {
        action: 'group.keys.manage',
        call: async () => {
          const { providerKey } = await asAdmin('POST', `/synthetic-group/provider-key/create/${groupId}`, { name: 'limited', kind: 'byok', connectionId });
          return { method: 'PATCH', path: `/synthetic-group/provider-key/${providerKey.id}`, body: { settings: { rateLimit: { requestsPerMinute: 60 } } } };
        },
      },
      'DELETE key': {
        action: 'group.keys.manage',
        call: async () => {
          const { providerKey } = await asAdmin('POST', `/synthetic-group/provider-key/create/${groupId}`, { name: 'doomed', kind: 'byok', connectionId });
          return { method: 'DELETE', path: `/synthetic-group/provider-key/${providerKey.id}` };
        },
      },
    };

    beforeAll(async () => {
      mail = await startMailSink();
      fake = await startFakeOpenAI({ apiKey: 'sk-matrix' });
      spendgate = await startSpendgate(mode, 'api-matrix', { env: { SMTP_URL: mail.url } });
      for (const caller of Object.keys(CALLERS) as Caller[]) {
        const { token, userId } = await registerUser(spendgate.url, `${caller.toLowerCase()}@example.com`);
        tokens[caller] = token;
        userIds[caller] = userId;
      }
      // Paid, so that allowed invitations and groups past the allowance are charged, not refused.
      await upsertSubscription(db(), { userId: userIds.teamAdmin, planSlug: 'growth', status: 'active', trialEnd: null });
      teamId = (await asAdmin('POST', '/team/', { name: 'Tenant A' })).id;
      groupId = (await asAdmin('POST', '/synthetic-group', { teamId, name: 'Group A' })).id;
      connectionId = (await asAdmin('POST', '/provider/connections', { teamId, provider: 'openai', name: 'Fake', apiKey: 'sk-matrix', baseUrl: fake.url })).newConnection.id;
      for (const caller of ['groupAdmin', 'maintainer', 'observer', 'teamMember'] as const) {
        await insertTeamMember(db(), { teamId, userId: userIds[caller], role: 'MEMBER' });
        const groupRole = CALLERS[caller].groupRole;
        if (groupRole) await insertGroupMember(db(), { groupId, userId: userIds[caller], role: groupRole });
      }
      groupMemberId = await bystander('OBSERVER');
      // The other tenant, with objects of its own.
      const otherTeam = await callApi(spendgate.url, 'POST', '/team/', { token: tokens.outsider, body: { name: 'Tenant B' } });
      await callApi(spendgate.url, 'POST', '/synthetic-group', { token: tokens.outsider, body: { teamId: otherTeam.body.data.id, name: 'Group B' } });
    });
    afterAll(async () => {
      await spendgate?.close();
      await mail?.close();
      await fake?.close();
    });

    it('answers every route for every caller as the role table decides', async () => {
      const expected: string[] = [];
      const actual: string[] = [];
      for (const [name, route] of Object.entries(ROUTES)) {
        for (const caller of Object.keys(CALLERS) as Caller[]) {
          const decision = decide(route.action, CALLERS[caller]);
          const call = await route.call();
          const answer = await callApi(spendgate.url, call.method, call.path, { token: tokens[caller], body: call.body });
          const outcome = answer.status < 300 ? 'allowed' : answer.status === 403 ? 'forbidden' : answer.status === 404 ? 'hidden' : `HTTP ${answer.status} ${answer.body.message}`;
          expected.push(`${name} as ${caller}: ${decision}`);
          actual.push(`${name} as ${caller}: ${outcome}`);
          if (decision !== 'allowed') expect(answer.body.data, `${name} as ${caller}`).toBeNull();
        }
      }
      expect(actual).toEqual(expected);
    });

    it('lists nothing of another tenant and records no change by its admin', async () => {
      const groups = await callApi(spendgate.url, 'GET', '/synthetic-group', { token: tokens.outsider });
      expect(groups.body.data.map((group: { name: string }) => group.name)).toEqual(['Group B']);
      const connections = await callApi(spendgate.url, 'GET', '/provider/connections', { token: tokens.outsider });
      expect(connections.body.data).toEqual([]);
      const teams = await callApi(spendgate.url, 'GET', '/team/', { token: tokens.outsider });
      expect(teams.body.data.map((team: { name: string }) => team.name)).toEqual(['Tenant B']);
      const groupsOfMember = await callApi(spendgate.url, 'GET', `/synthetic-group?teamId=${teamId}`, { token: tokens.teamMember });
      expect(groupsOfMember.body.data.map((group: { name: string }) => group.name)).not.toContain('Group A');

      const changesByOutsider = await db()
        .selectFrom('audit_log')
        .select('action')
        .where('team_id', '=', teamId)
        .where('actor_user_id', '=', userIds.outsider)
        .execute();
      expect(changesByOutsider).toEqual([]);
      const group = await callApi(spendgate.url, 'GET', `/synthetic-group/${groupId}`, { token: tokens.teamAdmin });
      expect(group.body.data).toMatchObject({ name: 'Group A', description: 'edited' });
    });
  });
}
