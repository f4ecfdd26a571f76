// @vitest-environment happy-dom
// The group forms' checks (the API's limits; spec §5's invitations: several at once,
// the first failure reported) and what each role is shown on a group's details (spec §6),
// against a stubbed API.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SyntheticGroup } from '../../api/groups/types.ts';
import { saveSession } from '../../shared/session.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { usageTotals } from '../../testing/usage.ts';
import { AddGroupScreen } from './AddGroupScreen.tsx';
import { GroupDetails } from './GroupDetails.tsx';
import { InviteForm } from './GroupInvitations.tsx';
import { readGroupsSearch } from './search.ts';
import { SyntheticGroupsScreen } from './SyntheticGroupsScreen.tsx';
import { validateGroup, validateInvitations } from './validation.ts';

const GROUP_ID = '0b7c1a52-8c6e-4f43-9d55-3f0f6d9a8e11';
const usage = usageTotals({ requests: 3, costMicros: 1_234n, costUsdMicros: 1_500n, inputTokens: 60, outputTokens: 30 }, { teamId: 'team-1', groupId: GROUP_ID });
const person = (id: string, name: string) => ({ id, email: `${name.toLowerCase()}@example.com`, name, avatar: null });
const group = (role: string): SyntheticGroup => ({
  id: GROUP_ID,
  teamId: 'team-1',
  name: 'Search',
  description: 'Spend of the search team',
  createdAt: '2026-11-01T00:00:00.000Z',
  role,
  syntheticGroupUsers: [
    { user: person('u-ada', 'Ada'), role: 'ADMIN', joinedAt: '2026-11-01T00:00:00.000Z' },
    { user: person('u-tom', 'Tom'), role: 'OBSERVER', joinedAt: '2026-11-02T00:00:00.000Z' },
  ],
  syntheticGroupProviderKeys: [],
  usage,
});
const ok = (data: unknown, status = 200) => jsonResponse(status, { success: true, data, message: 'OK' });

/** A stubbed API: answers by "METHOD path" (query left out), 404 otherwise; records every call. */
function stubApi(routes: Record<string, (body: unknown) => Response>) {
  const calls: string[] = [];
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = new URL(String(input), 'http://localhost');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push(body === undefined ? key : `${key} ${JSON.stringify(body)}`);
    const route = routes[key];
    return route ? route(body) : jsonResponse(404, { success: false, data: null, message: `no route ${key}` });
  });
  vi.stubGlobal('fetch', fetchMock);
  return calls;
}

beforeEach(() => {
  localStorage.clear();
  saveSession('jwt-ada', { id: 'u-ada', email: 'ada@example.com' });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the group forms’ checks', () => {
  it('a group needs a name of at most 200 characters and a description of at most 2,000', () => {
    expect(validateGroup({ name: '  ', description: '' })).toEqual({ name: 'Group name is required' });
    expect(validateGroup({ name: 'x'.repeat(201), description: 'y'.repeat(2001) })).toEqual({
      name: 'Group name must be at most 200 characters',
      description: 'Description must be at most 2000 characters',
    });
    expect(validateGroup({ name: ' Search ', description: 'y'.repeat(2000) })).toEqual({});
  });

  it('invitations need one address at least, each valid, none twice, each with a group role', () => {
    expect(validateInvitations([{ email: ' ', role: 'OBSERVER' }])).toEqual({ rows: [{ email: 'E-mail is required' }], form: 'Add at least one e-mail address' });
    expect(
      validateInvitations([
        { email: 'bob@example.com', role: 'OBSERVER' },
        { email: '', role: 'OBSERVER' },
        { email: 'not an address', role: 'ADMIN' },
        { email: 'BOB@example.com', role: 'MAINTAINER' },
        { email: 'cy@example.com', role: 'MEMBER' },
        { email: `${'a'.repeat(250)}@example.com`, role: 'OBSERVER' },
      ]),
    ).toEqual({
      rows: [
        {},
        {},
        { email: 'Enter a valid e-mail address' },
        { email: 'This address is already in the list' },
        { role: 'Choose Admin, Maintainer or Observer' },
        { email: 'E-mail must be at most 254 characters' },
      ],
    });
    expect(validateInvitations(Array.from({ length: 21 }, (_, index) => ({ email: `p${index}@example.com`, role: 'OBSERVER' }))).form).toBe('Send at most 20 invitations at once');
  });

  it('creating a group: nothing is sent until the name is given, then the group and its chosen members', async () => {
    const calls = stubApi({
      'GET /api/team/': () => ok([{ id: 'team-1', name: 'Platform', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'ADMIN' }]),
      'GET /api/team/members/team-1': () =>
        ok([
          { ...person('u-ada', 'Ada'), role: 'ADMIN', joinedAt: '2026-11-01T00:00:00.000Z' },
          { ...person('u-tom', 'Tom'), role: 'MEMBER', joinedAt: '2026-11-01T00:00:00.000Z' },
        ]),
      'POST /api/synthetic-group': (body) => ok({ ...group('ADMIN'), ...(body as object), syntheticGroupUsers: [] }, 201),
      'POST /api/synthetic-group/member/0b7c1a52-8c6e-4f43-9d55-3f0f6d9a8e11': () => ok({ addedUsers: [{ user: person('u-tom', 'Tom'), role: 'MAINTAINER' }] }, 201),
    });
    const user = userEvent.setup();
    const { router } = await renderInSite(<AddGroupScreen />);
    await user.click(await screen.findByRole('button', { name: 'Create group' }));
    expect(await screen.findByText('Group name is required')).toBeTruthy();
    expect(screen.getByLabelText('Group name').getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((call) => call.startsWith('POST'))).toEqual([]);
    // The signed-in admin is not offered: only the team's other members.
    expect(screen.queryByRole('checkbox', { name: /Ada/ })).toBeNull();

    await user.type(screen.getByLabelText('Group name'), '  Search  ');
    await user.type(screen.getByLabelText('Description'), 'Spend of the search team');
    await user.click(screen.getByRole('checkbox', { name: /Tom/ }));
    await user.selectOptions(screen.getByLabelText('Role of Tom'), 'MAINTAINER');
    await user.click(screen.getByRole('button', { name: 'Create group' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ group: GROUP_ID }));
    expect(calls.filter((call) => call.startsWith('POST'))).toEqual([
      'POST /api/synthetic-group {"teamId":"team-1","name":"Search","description":"Spend of the search team"}',
      `POST /api/synthetic-group/member/${GROUP_ID} {"users":[{"userId":"u-tom","role":"MAINTAINER"}]}`,
    ]);
  });

  it('sending several invitations: if one fails its message is shown and only the failed rows stay', async () => {
    const calls = stubApi({
      [`POST /api/synthetic-group/${GROUP_ID}/invite`]: (body) => {
        const { email, role } = body as { email: string; role: string };
        if (email === 'tom@example.com') return jsonResponse(409, { success: false, data: null, message: 'tom@example.com is already a member of this group' });
        return ok({ id: `i-${email}`, syntheticGroupId: GROUP_ID, email, role, status: 'pending', expiresAt: '2026-12-03T00:00:00.000Z', createdAt: '2026-11-26T00:00:00.000Z' }, 201);
      },
    });
    const user = userEvent.setup();
    await renderInSite(<InviteForm groupId={GROUP_ID} />);
    await user.click(screen.getByRole('button', { name: 'Send invitations' }));
    expect(screen.getByText('Add at least one e-mail address')).toBeTruthy();
    await user.type(screen.getByLabelText('E-mail 1'), 'bob@example.com');
    await user.click(screen.getByRole('button', { name: 'Add another' }));
    await user.type(screen.getByLabelText('E-mail 2'), 'tom@example.com');
    await user.selectOptions(screen.getByLabelText('Role 2'), 'MAINTAINER');
    await user.click(screen.getByRole('button', { name: 'Add another' }));
    await user.type(screen.getByLabelText('E-mail 3'), 'cy@');
    await user.click(screen.getByRole('button', { name: 'Send invitations' }));
    expect(screen.getByText('Enter a valid e-mail address')).toBeTruthy();
    expect(calls).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Remove e-mail 3' }));
    await user.click(screen.getByRole('button', { name: 'Send invitations' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('tom@example.com is already a member of this group');
    expect(calls).toEqual([
      `POST /api/synthetic-group/${GROUP_ID}/invite {"email":"bob@example.com","role":"OBSERVER"}`,
      `POST /api/synthetic-group/${GROUP_ID}/invite {"email":"tom@example.com","role":"MAINTAINER"}`,
    ]);
    expect((screen.getByLabelText('E-mail 1') as HTMLInputElement).value).toBe('tom@example.com');
    expect((screen.getByLabelText('Role 1') as HTMLSelectElement).value).toBe('MAINTAINER');
    expect(screen.queryByLabelText('E-mail 2')).toBeNull();
  });
});

describe('the screen’s URL state', () => {
  it('keeps a well-formed group, search, team and date range, and drops the rest', () => {
    expect(readGroupsSearch({ group: GROUP_ID, search: 'ads', team: GROUP_ID, from: '2026-11-01', to: '2026-11-26', page: 2 })).toEqual({
      group: GROUP_ID,
      search: 'ads',
      team: GROUP_ID,
      from: '2026-11-01',
      to: '2026-11-26',
    });
    expect(readGroupsSearch({ group: 'not-an-id', search: '   ', team: 42, from: '2026-13-45', to: 'yesterday' })).toEqual({});
    // A range that ends before it starts is no range: the API's default (the last 30 days) applies.
    expect(readGroupsSearch({ from: '2026-11-26', to: '2026-11-01' })).toEqual({});
    expect(readGroupsSearch({ search: 'x'.repeat(300) }).search).toHaveLength(200);
  });
});

describe('a group’s details follow your role (spec §6)', () => {
  async function showAs(role: string) {
    stubApi({
      [`GET /api/synthetic-group/${GROUP_ID}`]: () => ok(group(role)),
      [`GET /api/synthetic-group/${GROUP_ID}/usage`]: () => ok(usage),
      [`GET /api/synthetic-group/${GROUP_ID}/invitations`]: () => ok([]),
      'GET /api/team/members/team-1': () => ok([{ ...person('u-ada', 'Ada'), role: 'ADMIN', joinedAt: '2026-11-01T00:00:00.000Z' }]),
    });
    await renderInSite(<GroupDetails groupId={GROUP_ID} search={{ group: GROUP_ID }} />);
    await screen.findByRole('heading', { name: 'Search', level: 1 });
    await screen.findByText('£0.001234');
    expect(screen.getByText('$0.0015')).toBeTruthy();
    const members = screen.getByRole('table', { name: 'Members' });
    return {
      edit: screen.queryByRole('button', { name: 'Edit group' }),
      delete: screen.queryByRole('button', { name: 'Delete group' }),
      roleOfTom: within(members).queryByRole('combobox', { name: 'Role of Tom' }),
      removeTom: within(members).queryByRole('button', { name: 'Remove Tom' }),
      invitations: screen.queryByRole('heading', { name: 'Invitations' }),
      members,
    };
  }

  it('an Admin sees every control', async () => {
    const shown = await showAs('ADMIN');
    expect(screen.getByText('Your role: Admin')).toBeTruthy();
    for (const control of [shown.edit, shown.delete, shown.roleOfTom, shown.removeTom, shown.invitations]) expect(control).not.toBeNull();
    // Their own row has no controls: they cannot lock themselves out here.
    expect(within(shown.members).queryByRole('combobox', { name: 'Role of Ada' })).toBeNull();
  });

  it('a Maintainer may edit the group but sees no member or invitation controls and no delete', async () => {
    const shown = await showAs('MAINTAINER');
    expect(shown.edit).not.toBeNull();
    for (const control of [shown.delete, shown.roleOfTom, shown.removeTom, shown.invitations]) expect(control).toBeNull();
    expect(within(shown.members).getByText('Observer')).toBeTruthy();
  });

  it('an Observer reads everything and has no control at all', async () => {
    const shown = await showAs('OBSERVER');
    for (const control of [shown.edit, shown.delete, shown.roleOfTom, shown.removeTom, shown.invitations]) expect(control).toBeNull();
    expect(within(shown.members).getByText('tom@example.com')).toBeTruthy();
    expect(screen.getByText('Your role: Observer')).toBeTruthy();
  });
});

describe('the group list', () => {
  const TEAM_2 = '5d3c1b0a-1e2f-4a5b-8c7d-9e0f1a2b3c4d';
  const team = (id: string, name: string) => ({ id, name, description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'ADMIN' });

  it('someone in several teams can filter by team, and each card names its team', async () => {
    const calls = stubApi({
      'GET /api/team/': () => ok([team('team-1', 'Platform'), team(TEAM_2, 'Research')]),
      'GET /api/synthetic-group': () => ok([group('ADMIN'), { ...group('OBSERVER'), id: 'g-2', teamId: TEAM_2, name: 'Labs' }]),
    });
    const user = userEvent.setup();
    const { router } = await renderInSite(<SyntheticGroupsScreen />);
    const list = await screen.findByRole('list', { name: 'Synthetic groups' });
    const cards = within(list).getAllByRole('listitem');
    expect(cards.map((card) => card.querySelector('h2')?.textContent)).toEqual(['Search', 'Labs']);
    await waitFor(() => expect(within(cards[1]!).getByText('Team: Research')).toBeTruthy());
    expect(within(cards[1]!).getByText('Your role: Observer')).toBeTruthy();
    expect(within(cards[0]!).getByText('£0.001234')).toBeTruthy();

    await user.selectOptions(screen.getByLabelText('Team'), TEAM_2);
    await waitFor(() => expect(router.state.location.search).toEqual({ team: TEAM_2 }));
    const groupListUrls = () =>
      vi
        .mocked(fetch)
        .mock.calls.map(([input]) => new URL(String(input), 'http://localhost'))
        .filter((url) => url.pathname === '/api/synthetic-group');
    await waitFor(() => expect(groupListUrls().map((url) => url.searchParams.get('teamId'))).toEqual([null, TEAM_2]));
    expect(calls.filter((call) => call === 'GET /api/synthetic-group')).toHaveLength(2);
  });

  it('one team: no filter and no team names; nothing yet: the empty state links to creating a group', async () => {
    stubApi({ 'GET /api/team/': () => ok([team('team-1', 'Platform')]), 'GET /api/synthetic-group': () => ok([]) });
    await renderInSite(<SyntheticGroupsScreen />);
    expect(await screen.findByText('No groups yet')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Create a group' }).getAttribute('href')).toBe('/dashboard/addgroup');
    expect(screen.queryByLabelText('Team')).toBeNull();
  });

  it('a failed load says why and retries', async () => {
    let fail = true;
    stubApi({
      'GET /api/team/': () => ok([team('team-1', 'Platform')]),
      'GET /api/synthetic-group': () => (fail ? jsonResponse(500, { success: false, data: null }) : ok([group('ADMIN')])),
    });
    await renderInSite(<SyntheticGroupsScreen />);
    expect(await screen.findByText('Failed to fetch groups')).toBeTruthy();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('link', { name: 'Search' })).toBeTruthy();
  });
});
