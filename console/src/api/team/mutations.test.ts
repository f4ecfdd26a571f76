// @vitest-environment happy-dom
// Spec §4's team transitions on the query cache, from the API's answers alone: accepting
// an invitation (or creating a team) adds the team unless it is listed; a role change
// replaces the member; a removal drops them; another account's accepted session drops
// what was cached for the previous one.
import { MutationObserver, type MutationObserverOptions, QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readToken, saveSession } from '../../shared/session.ts';
import { jsonResponse } from '../../testing/render.tsx';
import { acceptTeamInviteMutation, changeRoleMutation, createTeamMutation, removeMemberMutation } from './mutations.ts';
import { teamKeys } from './queries.ts';
import type { Team, TeamMember } from './types.ts';

const ada = { id: '00000000-0000-4000-8000-00000000000a', email: 'ada@example.com', name: 'Ada', avatar: null, emailVerified: true };
const team = (id: string, name: string): Team => ({ id, name, description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'MEMBER' });
const core = team('00000000-0000-4000-8000-0000000000c1', 'Core');
const labs = team('00000000-0000-4000-8000-0000000000c2', 'Labs');
const member = (id: string, role: TeamMember['role']): TeamMember => ({ id, email: `${id}@example.com`, name: id, avatar: null, role, joinedAt: '2026-11-02T00:00:00.000Z' });
const answer = (data: unknown) => vi.fn<typeof fetch>(async () => jsonResponse(200, { success: true, data, message: 'OK' }));

/** Runs a mutation's options as useMutation does: the call, then its onSuccess. */
function run<T, V>(options: MutationObserverOptions<T, Error, V>, variables: V): Promise<T> {
  return new MutationObserver(queryClient, options).mutate(variables);
}

let queryClient: QueryClient;
beforeEach(() => {
  localStorage.clear();
  saveSession('jwt-ada', ada);
  queryClient = new QueryClient();
});
afterEach(() => vi.unstubAllGlobals());

describe('team transitions', () => {
  it('accepting adds the team once, keeping the list when it is already there', async () => {
    queryClient.setQueryData(teamKeys.mine(), [labs]);
    vi.stubGlobal('fetch', answer({ token: 'jwt-ada-2', user: ada, team: core }));
    await run(acceptTeamInviteMutation(queryClient), { token: 't'.repeat(43), password: 'pw' });
    expect(queryClient.getQueryData<Team[]>(teamKeys.mine())).toEqual([labs, core]);
    await run(acceptTeamInviteMutation(queryClient), { token: 't'.repeat(43), password: 'pw' });
    expect(queryClient.getQueryData<Team[]>(teamKeys.mine())).toEqual([labs, core]);
    expect(readToken()).toBe('jwt-ada-2');
  });

  it("another account's acceptance drops the previous account's cache", async () => {
    queryClient.setQueryData(teamKeys.mine(), [labs]);
    queryClient.setQueryData(teamKeys.members(labs.id), [member('ada', 'ADMIN')]);
    vi.stubGlobal('fetch', answer({ token: 'jwt-grace', user: { ...ada, id: '00000000-0000-4000-8000-00000000000b', email: 'grace@example.com' }, team: core }));
    await run(acceptTeamInviteMutation(queryClient), { token: 't'.repeat(43), password: 'pw', name: 'Grace' });
    expect(queryClient.getQueryData(teamKeys.mine())).toBeUndefined();
    expect(queryClient.getQueryData(teamKeys.members(labs.id))).toBeUndefined();
    expect(readToken()).toBe('jwt-grace');
  });

  it('creating adds the new team to the list', async () => {
    queryClient.setQueryData(teamKeys.mine(), [labs]);
    vi.stubGlobal('fetch', answer({ ...core, role: 'ADMIN' }));
    await run(createTeamMutation(queryClient), { name: 'Core', description: '' });
    expect(queryClient.getQueryData<Team[]>(teamKeys.mine())?.map((listed) => listed.name)).toEqual(['Labs', 'Core']);
  });

  it('a role change replaces only the matching member; a removal drops only them', async () => {
    const members = [member('ada', 'ADMIN'), member('grace', 'MEMBER'), member('alan', 'MEMBER')];
    queryClient.setQueryData(teamKeys.members(core.id), members);
    vi.stubGlobal('fetch', answer({ ...members[1], role: 'ADMIN' }));
    await run(changeRoleMutation(queryClient), { teamId: core.id, userId: 'grace', role: 'ADMIN' });
    expect(queryClient.getQueryData<TeamMember[]>(teamKeys.members(core.id))?.map((listed) => `${listed.id}:${listed.role}`)).toEqual([
      'ada:ADMIN',
      'grace:ADMIN',
      'alan:MEMBER',
    ]);
    vi.stubGlobal('fetch', answer({ teamId: core.id, userId: 'alan' }));
    await run(removeMemberMutation(queryClient), { teamId: core.id, userId: 'alan' });
    expect(queryClient.getQueryData<TeamMember[]>(teamKeys.members(core.id))?.map((listed) => listed.id)).toEqual(['ada', 'grace']);
  });
});
