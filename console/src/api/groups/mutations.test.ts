// @vitest-environment happy-dom
// Spec §4's transitions of groups and invitations, as the react-query caches take them:
// each mutation against a stubbed API, then what the list, the current group and the
// invitation caches hold.
import { MutationObserver, QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { saveSession } from '../../shared/session.ts';
import { jsonResponse } from '../../testing/render.tsx';
import { usageTotals } from '../../testing/usage.ts';
import {
  acceptInviteMutation,
  addMembersMutation,
  changeMemberRoleMutation,
  createGroupMutation,
  deleteGroupMutation,
  InvitationsError,
  NOT_SIGNED_IN_FOR_INVITE,
  removeMemberMutation,
  resendInvitationMutation,
  revokeInvitationMutation,
  sendInvitationsMutation,
  updateGroupMutation,
} from './mutations.ts';
import { groupKeys } from './queries.ts';
import type { GroupInvitation, SyntheticGroup } from './types.ts';

const usage = usageTotals({ requests: 0, costMicros: 0n, costUsdMicros: 0n }, { teamId: 'team-1' });
const member = (id: string, role: string) => ({ user: { id, email: `${id}@example.com`, name: id, avatar: null }, role, joinedAt: '2026-11-01T00:00:00.000Z' });
const group = (id: string, name: string, members = [member('ada', 'ADMIN')]): SyntheticGroup => ({
  id,
  teamId: 'team-1',
  name,
  description: '',
  createdAt: '2026-11-01T00:00:00.000Z',
  role: 'ADMIN',
  syntheticGroupUsers: members,
  syntheticGroupProviderKeys: [],
  usage,
});
const invitation = (id: string, status: GroupInvitation['status'] = 'pending'): GroupInvitation => ({
  id,
  syntheticGroupId: 'g1',
  email: `${id}@example.com`,
  role: 'OBSERVER',
  status,
  expiresAt: '2026-12-03T00:00:00.000Z',
  createdAt: '2026-11-26T00:00:00.000Z',
});
const ok = (data: unknown, status = 200) => jsonResponse(status, { success: true, data, message: 'OK' });
const refused = (status: number, message: string) => jsonResponse(status, { success: false, data: null, message });

const fetchMock = vi.fn<typeof fetch>();
let queryClient: QueryClient;
beforeEach(() => {
  localStorage.clear();
  saveSession('jwt-1', { id: 'ada', email: 'ada@example.com' });
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
  queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY }, mutations: { retry: false } } });
  queryClient.setQueryData(groupKeys.list({}), [group('g1', 'Search'), group('g2', 'Billing')]);
  queryClient.setQueryData(groupKeys.detail('g1'), group('g1', 'Search'));
});
afterEach(() => vi.unstubAllGlobals());

// biome-ignore lint/suspicious/noExplicitAny: runs any of the mutations' options.
const run = <Data, Variables>(options: any, variables: Variables) => new MutationObserver<Data, Error, Variables>(queryClient, options).mutate(variables);
const listed = () => queryClient.getQueryData<SyntheticGroup[]>(groupKeys.list({}))!;
const current = (id = 'g1') => queryClient.getQueryData<SyntheticGroup>(groupKeys.detail(id));
const sent = (index = 0) => ({ url: fetchMock.mock.calls[index]![0], method: fetchMock.mock.calls[index]![1]!.method, body: fetchMock.mock.calls[index]![1]!.body });

describe('group transitions (spec §4)', () => {
  it('creating appends the group to the list and makes it current', async () => {
    fetchMock.mockResolvedValue(ok(group('g3', 'Support'), 201));
    await run(createGroupMutation(queryClient), { teamId: 'team-1', name: 'Support', description: '' });
    expect(sent()).toEqual({ url: '/api/synthetic-group', method: 'POST', body: '{"teamId":"team-1","name":"Support","description":""}' });
    expect(listed().map((listedGroup) => listedGroup.name)).toEqual(['Search', 'Billing', 'Support']);
    expect(current('g3')?.name).toBe('Support');
  });

  it('updating replaces the group in the list and as the current group', async () => {
    fetchMock.mockResolvedValue(ok({ ...group('g1', 'Search & Ads'), description: 'Ads too' }));
    await run(updateGroupMutation(queryClient), { groupId: 'g1', name: 'Search & Ads', description: 'Ads too' });
    expect(sent()).toMatchObject({ url: '/api/synthetic-group/g1', method: 'PUT', body: '{"name":"Search & Ads","description":"Ads too"}' });
    expect(listed().map((listedGroup) => listedGroup.name)).toEqual(['Search & Ads', 'Billing']);
    expect(current()).toMatchObject({ name: 'Search & Ads', description: 'Ads too' });
  });

  it('deleting removes the group from the list and clears it as the current group', async () => {
    fetchMock.mockResolvedValue(ok({ id: 'g1' }));
    await run(deleteGroupMutation(queryClient), 'g1');
    expect(sent()).toMatchObject({ url: '/api/synthetic-group/g1', method: 'DELETE' });
    expect(listed().map((listedGroup) => listedGroup.id)).toEqual(['g2']);
    expect(current()).toBeUndefined();
  });

  it('a refused change leaves the caches as they were and reports the server message, else the fallback', async () => {
    fetchMock.mockResolvedValueOnce(refused(403, 'Only group admins can delete the group'));
    await expect(run(deleteGroupMutation(queryClient), 'g1')).rejects.toThrow('Only group admins can delete the group');
    fetchMock.mockRejectedValueOnce(new TypeError('network down'));
    await expect(run(updateGroupMutation(queryClient), { groupId: 'g1', name: 'X', description: '' })).rejects.toThrow('Failed to update group');
    expect(listed().map((listedGroup) => listedGroup.name)).toEqual(['Search', 'Billing']);
    expect(current()?.name).toBe('Search');
  });

  it('adding users appends the returned addedUsers to the listed and the current group', async () => {
    fetchMock.mockResolvedValue(ok({ addedUsers: [{ user: member('bob', 'OBSERVER').user, role: 'OBSERVER' }] }, 201));
    await run(addMembersMutation(queryClient), { groupId: 'g1', users: [{ userId: 'bob', role: 'OBSERVER' }] });
    expect(sent()).toMatchObject({ url: '/api/synthetic-group/member/g1', method: 'POST', body: '{"users":[{"userId":"bob","role":"OBSERVER"}]}' });
    for (const shown of [listed()[0]!, current()!]) expect(shown.syntheticGroupUsers.map((user) => `${user.user.id}:${user.role}`)).toEqual(['ada:ADMIN', 'bob:OBSERVER']);
    expect(listed()[1]!.syntheticGroupUsers).toHaveLength(1);
  });

  it('changing a role and removing a user update the member lists of the listed and the current group', async () => {
    queryClient.setQueryData(groupKeys.list({}), [group('g1', 'Search', [member('ada', 'ADMIN'), member('bob', 'OBSERVER')])]);
    queryClient.setQueryData(groupKeys.detail('g1'), group('g1', 'Search', [member('ada', 'ADMIN'), member('bob', 'OBSERVER')]));
    fetchMock.mockResolvedValueOnce(ok({ groupId: 'g1', userId: 'bob', role: 'MAINTAINER' }));
    await run(changeMemberRoleMutation(queryClient), { groupId: 'g1', userId: 'bob', role: 'MAINTAINER' });
    expect(sent()).toMatchObject({ url: '/api/synthetic-group/member/g1/bob', method: 'PATCH', body: '{"role":"MAINTAINER"}' });
    for (const shown of [listed()[0]!, current()!]) expect(shown.syntheticGroupUsers.map((user) => `${user.user.id}:${user.role}`)).toEqual(['ada:ADMIN', 'bob:MAINTAINER']);

    fetchMock.mockResolvedValueOnce(ok({ groupId: 'g1', userId: 'bob' }));
    await run(removeMemberMutation(queryClient), { groupId: 'g1', userId: 'bob' });
    expect(sent(1)).toMatchObject({ url: '/api/synthetic-group/member/g1/bob', method: 'DELETE' });
    for (const shown of [listed()[0]!, current()!]) expect(shown.syntheticGroupUsers.map((user) => user.user.id)).toEqual(['ada']);
  });
});

describe('invitation transitions (spec §4, §5)', () => {
  it('sending several at once posts each and refetches the group list and the invitations', async () => {
    queryClient.setQueryData(groupKeys.invitations('g1'), []);
    fetchMock.mockImplementation(async (_url, init) => ok({ ...invitation('x'), email: JSON.parse(String(init!.body)).email }, 201));
    const result = await run<GroupInvitation[], unknown>(sendInvitationsMutation(queryClient), {
      groupId: 'g1',
      invitations: [
        { email: 'bob@example.com', role: 'OBSERVER' },
        { email: 'cy@example.com', role: 'MAINTAINER' },
      ],
    });
    expect(result.map((sentInvitation) => sentInvitation.email)).toEqual(['bob@example.com', 'cy@example.com']);
    expect([sent(0), sent(1)].map((call) => `${call.method} ${call.url} ${call.body}`)).toEqual([
      'POST /api/synthetic-group/g1/invite {"email":"bob@example.com","role":"OBSERVER"}',
      'POST /api/synthetic-group/g1/invite {"email":"cy@example.com","role":"MAINTAINER"}',
    ]);
    expect(queryClient.getQueryState(groupKeys.list({}))!.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(groupKeys.invitations('g1'))!.isInvalidated).toBe(true);
  });

  it('counts as failed if any one fails and reports the first failure’s message, still refetching the list', async () => {
    fetchMock
      .mockResolvedValueOnce(ok(invitation('a'), 201))
      .mockResolvedValueOnce(refused(409, 'bob@example.com is already a member of this group'))
      .mockResolvedValueOnce(refused(400, 'email must be a valid email'));
    const failure = await run(sendInvitationsMutation(queryClient), {
      groupId: 'g1',
      invitations: [
        { email: 'a@example.com', role: 'OBSERVER' },
        { email: 'bob@example.com', role: 'OBSERVER' },
        { email: 'c@example.com', role: 'OBSERVER' },
      ],
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(InvitationsError);
    expect((failure as InvitationsError).message).toBe('bob@example.com is already a member of this group');
    expect((failure as InvitationsError).sent.map((sentInvitation) => sentInvitation.id)).toEqual(['a']);
    expect((failure as InvitationsError).failedEmails).toEqual(['bob@example.com', 'c@example.com']);
    expect(queryClient.getQueryState(groupKeys.list({}))!.isInvalidated).toBe(true);
  });

  it('a failed request without a server message reports the fallback', async () => {
    fetchMock.mockRejectedValue(new TypeError('network down'));
    await expect(run(sendInvitationsMutation(queryClient), { groupId: 'g1', invitations: [{ email: 'a@example.com', role: 'OBSERVER' }] })).rejects.toThrow(
      'Failed to send invitations.',
    );
  });

  it("resending or revoking refetches that group's invitations only", async () => {
    queryClient.setQueryData(groupKeys.invitations('g1'), [invitation('i1')]);
    queryClient.setQueryData(groupKeys.invitations('g2'), []);
    fetchMock.mockResolvedValueOnce(ok(invitation('i1')));
    await run(resendInvitationMutation(queryClient), 'i1');
    expect(sent()).toMatchObject({ url: '/api/synthetic-group/invitations/i1/resend', method: 'POST' });
    expect(queryClient.getQueryState(groupKeys.invitations('g1'))!.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(groupKeys.invitations('g2'))!.isInvalidated).toBe(false);
    expect(queryClient.getQueryState(groupKeys.list({}))!.isInvalidated).toBe(false);

    queryClient.setQueryData(groupKeys.invitations('g1'), [invitation('i1')]);
    fetchMock.mockResolvedValueOnce(ok(invitation('i1', 'revoked')));
    await run(revokeInvitationMutation(queryClient), 'i1');
    expect(sent(1)).toMatchObject({ url: '/api/synthetic-group/invitations/i1/revoke', method: 'DELETE' });
    expect(queryClient.getQueryState(groupKeys.invitations('g1'))!.isInvalidated).toBe(true);
  });

  it('accepting an invitation needs a session, then refetches the group list', async () => {
    localStorage.clear();
    await expect(run(acceptInviteMutation(queryClient), 'a-token-of-the-invitation')).rejects.toThrow(NOT_SIGNED_IN_FOR_INVITE);
    expect(fetchMock).not.toHaveBeenCalled();

    saveSession('jwt-2', { id: 'bob', email: 'bob@example.com' });
    fetchMock.mockResolvedValueOnce(ok({ group: group('g1', 'Search') }));
    const accepted = await run<SyntheticGroup, string>(acceptInviteMutation(queryClient), 'a-token-of-the-invitation');
    expect(accepted.name).toBe('Search');
    expect(sent()).toMatchObject({ url: '/api/synthetic-group/accept-invite', method: 'POST', body: '{"token":"a-token-of-the-invitation"}' });
    expect(queryClient.getQueryState(groupKeys.list({}))!.isInvalidated).toBe(true);
  });
});
