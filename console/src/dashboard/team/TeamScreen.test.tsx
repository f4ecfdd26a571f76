// @vitest-environment happy-dom
// The Team screen against a stubbed API: the forms' checks before any call, and spec §4's
// team transitions (accepting adds the team once, a role change replaces the member, a
// removal drops them) with each action's own loading flag.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TeamRetention } from '../../api/compliance/types.ts';
import type { Team, TeamMember, TeamSeats } from '../../api/team/types.ts';
import { readToken, saveSession } from '../../shared/session.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { seatSummary } from './SeatUsage.tsx';
import { TeamScreen } from './TeamScreen.tsx';

const ADA = { id: '00000000-0000-4000-8000-00000000000a', email: 'ada@example.com', name: 'Ada Lovelace', avatar: null };
const core: Team = { id: '00000000-0000-4000-8000-0000000000c1', name: 'Core', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'ADMIN' };
const member = (id: string, name: string, role: TeamMember['role']): TeamMember => ({
  id,
  email: `${name.toLowerCase()}@example.com`,
  name,
  avatar: null,
  role,
  joinedAt: '2026-11-02T10:00:00.000Z',
});
const ada = { ...member(ADA.id, 'Ada Lovelace', 'ADMIN'), email: ADA.email };
const grace = member('00000000-0000-4000-8000-00000000000b', 'Grace', 'MEMBER');
const alan = member('00000000-0000-4000-8000-00000000000d', 'Alan', 'MEMBER');

const trialSeats: TeamSeats = {
  plan: 'Free Trial',
  planSlug: 'free-trial',
  paying: false,
  included: 2,
  used: 1,
  pending: 0,
  currency: 'GBP',
  extraSeatMonthlyMicros: '10000000',
};

const retention: TeamRetention = {
  teamId: core.id,
  usageEvents: { days: null, effectiveDays: 400, defaultDays: 400, minDays: 90, maxDays: 400 },
  promptCaptures: { days: null, effectiveDays: 30, defaultDays: 30, minDays: 1, maxDays: 30 },
  gpuSamples: { hours: null, effectiveHours: 48, defaultHours: 48, minHours: 24, maxHours: 48 },
  auditLog: { days: 365, effectiveDays: 365, defaultDays: 365, minDays: 30, maxDays: 3650 },
};

/**
 * A stubbed API: each answer is given by method and path, and may be held back until
 * released. The team's seats, pending invitations and budgets answer as a trial team
 * with none of either unless given, prompt capture and the advisor's wording as off, and
 * retention at the defaults.
 */
function stubApi(given: Record<string, (body: unknown) => Response | Promise<Response>>) {
  const routes: typeof given = {
    [`GET /api/team/${core.id}/seats`]: () => ok(trialSeats),
    [`GET /api/team/${core.id}/invitations`]: () => ok([]),
    'GET /api/budgets': () => ok([]),
    [`GET /api/capture/teams/${core.id}`]: () =>
      ok({ teamId: core.id, enabled: false, retentionDays: null, effectiveRetentionDays: 30, defaultRetentionDays: 30, maxRetentionDays: 30, redactionPatterns: [], groups: [] }),
    'GET /api/synthetic-group': () => ok([]),
    [`GET /api/usage/ai-advisor/wording/${core.id}`]: () =>
      ok({ teamId: core.id, enabled: false, source: 'connection', connectionId: null, model: 'gpt-4o-mini', operatorAvailable: false, updatedAt: null }),
    'GET /api/provider/connections': () => ok([]),
    [`GET /api/teams/${core.id}/retention`]: () => ok(retention),
    ...given,
  };
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = new URL(String(input), 'http://localhost');
    const key = `${init?.method ?? 'GET'} ${url.pathname}`;
    const route = routes[key];
    if (!route) throw new Error(`unexpected call ${key}`);
    return route(init?.body ? JSON.parse(String(init.body)) : undefined);
  });
  vi.stubGlobal('fetch', fetchMock);
  const calls = (key: string) =>
    fetchMock.mock.calls.filter(([input, init]) => `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}` === key);
  return { fetchMock, calls };
}

const ok = (data: unknown) => jsonResponse(200, { success: true, data, message: 'OK' });

/** A promise of a response released by the test. */
function held() {
  let release!: (response: Response) => void;
  const response = new Promise<Response>((resolve) => {
    release = resolve;
  });
  return { response, release };
}

beforeEach(() => {
  localStorage.clear();
  saveSession('jwt-ada', { ...ADA, emailVerified: true });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('Team screen without a team', () => {
  it('checks the new team before calling, then creates it and shows it', async () => {
    const teams: Team[] = [];
    const api = stubApi({
      'GET /api/team/': () => ok(teams),
      'POST /api/team/': (body) => {
        teams.push({ ...core, ...(body as object) });
        return jsonResponse(201, { success: true, data: teams.at(-1), message: 'Team created' });
      },
      [`GET /api/team/members/${core.id}`]: () => ok([ada]),
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Create a team' });

    await user.click(within(form).getByRole('button', { name: 'Create team' }));
    expect(within(form).getByText('Team name is required')).toBeTruthy();
    expect(within(form).getByLabelText('Team name').getAttribute('aria-invalid')).toBe('true');
    await user.type(within(form).getByLabelText('Team name'), 'x'.repeat(201));
    await user.click(within(form).getByRole('button', { name: 'Create team' }));
    expect(within(form).getByText('Team name must be at most 200 characters')).toBeTruthy();
    expect(api.calls('POST /api/team/')).toHaveLength(0);

    await user.clear(within(form).getByLabelText('Team name'));
    await user.type(within(form).getByLabelText('Team name'), '  Core  ');
    await user.click(within(form).getByRole('button', { name: 'Create team' }));
    expect(await screen.findByRole('heading', { name: 'Core', level: 1 })).toBeTruthy();
    expect(JSON.parse(String(api.calls('POST /api/team/')[0]![1]!.body))).toEqual({ name: 'Core', description: '' });
    expect(await screen.findByRole('listitem', { name: 'Ada Lovelace' })).toBeTruthy();
  });

  it('joins with a pasted invitation link: the token goes to /team/accept and the team is listed once', async () => {
    const token = 'Tok3n_from-the-invitation-email-0123456789';
    const teams: Team[] = [];
    const api = stubApi({
      'GET /api/team/': () => ok(teams),
      'POST /api/team/invitation': () => ok({ teamName: 'Core', email: ADA.email, role: 'MEMBER', expiresAt: '2026-12-03T00:00:00.000Z', accountExists: true }),
      'POST /api/team/accept': () => {
        teams.push({ ...core, role: 'MEMBER' });
        return ok({ token: 'jwt-ada-2', user: { ...ADA, metadata: {}, emailVerified: true, subscription: null }, team: teams.at(-1) });
      },
      [`GET /api/team/members/${core.id}`]: () => ok([{ ...ada, role: 'MEMBER' }, grace]),
    });
    const { queryClient } = await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Join a team' });

    await user.type(within(form).getByLabelText('Invitation link'), 'not a link');
    await user.click(within(form).getByRole('button', { name: 'Join team' }));
    expect(within(form).getByText('Paste the invitation link from your e-mail')).toBeTruthy();
    expect(within(form).getByText('Password is required')).toBeTruthy();
    expect(api.calls('POST /api/team/accept')).toHaveLength(0);

    await user.clear(within(form).getByLabelText('Invitation link'));
    await user.type(within(form).getByLabelText('Invitation link'), `https://spendgate.example/register?invite=${token}`);
    await user.type(within(form).getByLabelText('Your password'), 'a long enough password');
    await user.click(within(form).getByRole('button', { name: 'Join team' }));

    expect(await screen.findByRole('heading', { name: 'Core', level: 1 })).toBeTruthy();
    expect(JSON.parse(String(api.calls('POST /api/team/accept')[0]![1]!.body))).toEqual({ token, password: 'a long enough password' });
    expect(queryClient.getQueryData<Team[]>(['team', 'mine'])?.map((team) => team.id)).toEqual([core.id]);
    expect(readToken()).toBe('jwt-ada-2');
    // A member sees the team but cannot invite or change anyone.
    expect(await screen.findByRole('listitem', { name: 'Grace' })).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Invite a member' })).toBeNull();
    // A member's sections: the members and the budget.
    expect(sectionLinks().map((link) => link.textContent)).toEqual(['Members', 'Budget']);
    expect(screen.queryByRole('combobox', { name: /Role of/ })).toBeNull();
  });

  it("refuses to join with someone else's invitation, which would sign in as them", async () => {
    const api = stubApi({
      'GET /api/team/': () => ok([]),
      'POST /api/team/invitation': () => ok({ teamName: 'Core', email: 'grace@example.com', role: 'MEMBER', expiresAt: '2026-12-03T00:00:00.000Z', accountExists: true }),
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Join a team' });
    await user.type(within(form).getByLabelText('Invitation link'), 'Tok3n_from-the-invitation-email-0123456789');
    await user.type(within(form).getByLabelText('Your password'), 'a long enough password');
    await user.click(within(form).getByRole('button', { name: 'Join team' }));
    expect((await within(form).findByRole('alert')).textContent).toBe('This invitation is for grace@example.com. Log out, then open its link to join as that account.');
    expect(api.calls('POST /api/team/accept')).toHaveLength(0);
    expect(readToken()).toBe('jwt-ada');
  });

  it('says why the teams could not be loaded and retries', async () => {
    let fail = true;
    stubApi({
      'GET /api/team/': () => (fail ? jsonResponse(500, { success: false, data: null, message: 'Failed to get user teams' }) : ok([])),
    });
    await renderInSite(<TeamScreen />);
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to get user teams');
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('form', { name: 'Create a team' })).toBeTruthy();
  });
});

describe('Team screen with several teams', () => {
  it('shows the team ?team= names, else the first, and switches by URL', async () => {
    const labs: Team = { ...core, id: '00000000-0000-4000-8000-0000000000c2', name: 'Labs', role: 'MEMBER' };
    stubApi({
      'GET /api/team/': () => ok([core, labs]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada]),
      [`GET /api/team/members/${labs.id}`]: () => ok([{ ...ada, role: 'MEMBER' }, grace]),
      [`GET /api/team/${labs.id}/seats`]: () => ok(trialSeats),
    });
    const { router } = await renderInSite(<TeamScreen />, { at: `/dashboard/settings/team?team=${labs.id}` });
    expect(await screen.findByRole('heading', { name: 'Labs', level: 1 })).toBeTruthy();
    expect(await screen.findByRole('listitem', { name: 'Grace' })).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Invite a member' })).toBeNull();
    // A member's sections: the members and the budget.
    expect(sectionLinks().map((link) => link.textContent)).toEqual(['Members', 'Budget']);

    await userEvent.setup().selectOptions(screen.getByLabelText('Team'), core.id);
    expect(await screen.findByRole('heading', { name: 'Core', level: 1 })).toBeTruthy();
    expect(router.state.location.search).toEqual({ team: core.id });
    expect(await screen.findByRole('form', { name: 'Invite a member' })).toBeTruthy();
  });
});

/** The links of the screen's sub-navigation. */
const sectionLinks = () => within(screen.getByRole('navigation', { name: 'Team settings' })).getAllByRole('link');

/** The section the sub-navigation's link `name` leads to. */
function sectionOf(name: string): HTMLElement {
  const href = sectionLinks()
    .find((link) => link.textContent === name)
    ?.getAttribute('href');
  const section = href?.startsWith('#') ? document.getElementById(href.slice(1)) : null;
  if (!section) throw new Error(`no section behind the link ${name} (${href})`);
  return section;
}

describe('Team screen sections', () => {
  it("lists an admin's sections in a sub-navigation, each link leading to its panels", async () => {
    stubApi({ 'GET /api/team/': () => ok([core]), [`GET /api/team/members/${core.id}`]: () => ok([ada, grace]) });
    await renderInSite(<TeamScreen />);
    await screen.findByRole('form', { name: 'Invite a member' });
    expect(sectionLinks().map((link) => link.textContent)).toEqual(['Members', 'Budget', 'Capture & retention', 'Access review', 'AI advisor', 'Single sign-on']);
    const members = sectionOf('Members');
    expect(within(members).getByRole('form', { name: 'Invite a member' })).toBeTruthy();
    expect(await within(members).findByRole('listitem', { name: 'Grace' })).toBeTruthy();
    expect(await within(sectionOf('Budget')).findByRole('heading', { name: /^Team budgets/ })).toBeTruthy();
    const data = sectionOf('Capture & retention');
    expect(await within(data).findByRole('form', { name: 'Prompt capture' })).toBeTruthy();
    expect(await within(data).findByRole('form', { name: 'Data retention' })).toBeTruthy();
    expect(await within(sectionOf('Access review')).findByRole('region', { name: 'Access review' })).toBeTruthy();
    expect(await within(sectionOf('AI advisor')).findByRole('form', { name: 'AI advisor wording' })).toBeTruthy();
    expect(await within(sectionOf('Single sign-on')).findByRole('heading', { name: /^Single sign-on/ })).toBeTruthy();
  });
});

describe('Team screen of an admin', () => {
  it('invites by e-mail as MEMBER by default, after checking the address', async () => {
    const invite = held();
    const api = stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada, grace]),
      'POST /api/team/invite': () => invite.response,
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Invite a member' });
    expect((within(form).getByLabelText('Role') as HTMLSelectElement).value).toBe('MEMBER');

    await user.click(within(form).getByRole('button', { name: 'Send invitation' }));
    expect(within(form).getByText('E-mail is required')).toBeTruthy();
    await user.type(within(form).getByLabelText('E-mail'), 'alan@example');
    await user.click(within(form).getByRole('button', { name: 'Send invitation' }));
    expect(within(form).getByText('Enter a valid e-mail address')).toBeTruthy();
    expect(api.calls('POST /api/team/invite')).toHaveLength(0);

    await user.clear(within(form).getByLabelText('E-mail'));
    await user.type(within(form).getByLabelText('E-mail'), 'alan@example.com');
    await user.click(within(form).getByRole('button', { name: 'Send invitation' }));
    const sending = within(form).getByRole('button', { name: 'Sending invitation…' }) as HTMLButtonElement;
    expect(sending.disabled).toBe(true);
    // Its own flag: the members' actions stay usable while it is sent.
    expect((screen.getByRole('combobox', { name: 'Role of Grace' }) as HTMLSelectElement).disabled).toBe(false);
    expect(JSON.parse(String(api.calls('POST /api/team/invite')[0]![1]!.body))).toEqual({ teamId: core.id, email: 'alan@example.com', role: 'MEMBER' });

    invite.release(jsonResponse(201, { success: true, data: { id: 'i1', teamId: core.id, email: 'alan@example.com', role: 'MEMBER', expiresAt: '2026-12-03T00:00:00.000Z' }, message: 'Invitation sent' }));
    expect((await within(form).findByRole('status')).textContent).toContain('Invitation sent to alan@example.com');
    expect((within(form).getByLabelText('E-mail') as HTMLInputElement).value).toBe('');
    // The invitation holds a seat: the seats are counted again, and the pending list fetched.
    await waitFor(() => expect(api.calls(`GET /api/team/${core.id}/seats`)).toHaveLength(2));
    await waitFor(() => expect(api.calls(`GET /api/team/${core.id}/invitations`)).toHaveLength(2));
  });

  it('resends and revokes pending invitations, each with its own flag', async () => {
    const invitation = (id: string, email: string) => ({ id, teamId: core.id, email, role: 'MEMBER', expiresAt: '2026-12-03T00:00:00.000Z' });
    const pending = [invitation('00000000-0000-4000-8000-0000000000e1', 'alan@example.com'), invitation('00000000-0000-4000-8000-0000000000e2', 'edsger@example.com')];
    const resend = held();
    const revoke = held();
    const api = stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada]),
      [`GET /api/team/${core.id}/invitations`]: () => ok(pending),
      [`POST /api/team/invitations/${pending[0]!.id}/resend`]: () => resend.response,
      [`DELETE /api/team/invitations/${pending[1]!.id}/revoke`]: () => revoke.response,
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const list = await screen.findByRole('region', { name: /Pending invitations/ });
    const alan = await within(list).findByRole('listitem', { name: 'alan@example.com' });
    const edsger = within(list).getByRole('listitem', { name: 'edsger@example.com' });
    expect(within(edsger).getByText('Invited as Member')).toBeTruthy();

    await user.click(within(alan).getByRole('button', { name: 'Resend' }));
    expect((within(alan).getByRole('button', { name: 'Resending…' }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(edsger).getByRole('button', { name: 'Resend' }) as HTMLButtonElement).disabled).toBe(false);

    await user.click(within(edsger).getByRole('button', { name: 'Revoke' }));
    await user.click(within(screen.getByRole('dialog', { name: 'Revoke the invitation to edsger@example.com?' })).getByRole('button', { name: 'Revoke invitation' }));
    expect((within(edsger).getByRole('button', { name: 'Revoking…' }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(alan).getByRole('button', { name: 'Revoke' }) as HTMLButtonElement).disabled).toBe(false);

    resend.release(ok(pending[0]));
    expect((await within(list).findByRole('status')).textContent).toBe('A new invitation is on its way to alan@example.com.');
    revoke.release(ok(pending[1]));
    await waitFor(() => expect(within(list).queryByRole('listitem', { name: 'edsger@example.com' })).toBeNull());
    expect(screen.queryByRole('dialog')).toBeNull();
    // Revoking frees a seat: the seats are counted again.
    await waitFor(() => expect(api.calls(`GET /api/team/${core.id}/seats`).length).toBeGreaterThanOrEqual(2));
  });

  it('shows the seats taken against the plan’s free seats', async () => {
    stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada, grace]),
      [`GET /api/team/${core.id}/seats`]: () => ok({ ...trialSeats, used: 2 }),
    });
    await renderInSite(<TeamScreen />);
    const seats = await screen.findByRole('region', { name: 'Seats' });
    expect((await within(seats).findByText(/free on your/)).textContent).toBe('2 of 2 seats free on your Free Trial plan taken. Choose a paid plan to add more.');
    expect(within(seats).getByRole('link', { name: 'See plans and subscription' }).getAttribute('href')).toBe('/dashboard/settings/subscription');
  });

  it("shows the server's refusal of an invitation", async () => {
    stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada]),
      'POST /api/team/invite': () =>
        jsonResponse(402, { success: false, data: null, message: 'Your Free trial plan includes 2 seats during the trial. Choose a paid plan to add more.' }),
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Invite a member' });
    await user.type(within(form).getByLabelText('E-mail'), 'alan@example.com');
    await user.click(within(form).getByRole('button', { name: 'Send invitation' }));
    expect((await within(form).findByRole('alert')).textContent).toBe('Your Free trial plan includes 2 seats during the trial. Choose a paid plan to add more.');
  });

  it('changes a role with that member’s own flag, and replaces only that member', async () => {
    const change = held();
    const api = stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada, grace, alan]),
      'PATCH /api/team/role': () => change.response,
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const graceRole = (await screen.findByRole('combobox', { name: 'Role of Grace' })) as HTMLSelectElement;

    await user.selectOptions(graceRole, 'ADMIN');
    expect(graceRole.disabled).toBe(true);
    expect(within(screen.getByRole('listitem', { name: 'Grace' })).getByText('Updating role…')).toBeTruthy();
    expect((screen.getByRole('combobox', { name: 'Role of Alan' }) as HTMLSelectElement).disabled).toBe(false);
    expect((within(screen.getByRole('listitem', { name: 'Grace' })).getByRole('button', { name: 'Remove' }) as HTMLButtonElement).disabled).toBe(false);
    expect((screen.getByRole('button', { name: 'Send invitation' }) as HTMLButtonElement).disabled).toBe(false);
    expect(JSON.parse(String(api.calls('PATCH /api/team/role')[0]![1]!.body))).toEqual({ teamId: core.id, userId: grace.id, role: 'ADMIN' });

    change.release(ok({ ...grace, role: 'ADMIN' }));
    await waitFor(() => expect(graceRole.disabled).toBe(false));
    expect(graceRole.value).toBe('ADMIN');
    expect((screen.getByRole('combobox', { name: 'Role of Alan' }) as HTMLSelectElement).value).toBe('MEMBER');
    expect(within(screen.getByRole('listitem', { name: 'Grace' })).queryByText('Updating role…')).toBeNull();
    // Replaced in place from the answer: the list was not fetched again.
    expect(api.calls(`GET /api/team/members/${core.id}`)).toHaveLength(1);
  });

  it('shows a refused role change and keeps the role', async () => {
    stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada, grace]),
      'PATCH /api/team/role': () =>
        jsonResponse(409, { success: false, data: null, message: 'A team needs at least one admin: make another member admin first' }),
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const adaRole = (await screen.findByRole('combobox', { name: 'Role of Ada Lovelace' })) as HTMLSelectElement;
    await user.selectOptions(adaRole, 'MEMBER');
    expect((await screen.findByRole('alert')).textContent).toBe('A team needs at least one admin: make another member admin first');
    expect(adaRole.value).toBe('ADMIN');
  });

  it('removes a member after confirming, with its own flag, and drops only them', async () => {
    const removal = held();
    const api = stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada, grace, alan]),
      'DELETE /api/team/member': () => removal.response,
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const graceRow = await screen.findByRole('listitem', { name: 'Grace' });

    await user.click(within(graceRow).getByRole('button', { name: 'Remove' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove Grace?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.calls('DELETE /api/team/member')).toHaveLength(0);

    await user.click(within(graceRow).getByRole('button', { name: 'Remove' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Remove member' }));
    expect((within(screen.getByRole('dialog')).getByRole('button', { name: 'Removing…' }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(screen.getByRole('listitem', { name: 'Alan' })).getByRole('button', { name: 'Remove' }) as HTMLButtonElement).disabled).toBe(false);
    expect((screen.getByRole('combobox', { name: 'Role of Grace' }) as HTMLSelectElement).disabled).toBe(false);
    expect(JSON.parse(String(api.calls('DELETE /api/team/member')[0]![1]!.body))).toEqual({ teamId: core.id, userId: grace.id });

    removal.release(ok({ teamId: core.id, userId: grace.id }));
    await waitFor(() => expect(screen.queryByRole('listitem', { name: 'Grace' })).toBeNull());
    expect(screen.queryByRole('dialog')).toBeNull();
    const memberRows = within(screen.getByRole('region', { name: /^Members/ })).getAllByRole('listitem');
    expect(memberRows.map((row) => row.getAttribute('aria-label'))).toEqual(['Ada Lovelace', 'Alan']);
    expect(api.calls(`GET /api/team/members/${core.id}`)).toHaveLength(1);
  });
});

describe('seat summary', () => {
  it('says what is taken, what is pending and what comes next on each kind of plan', () => {
    expect(seatSummary({ ...trialSeats, pending: 1 })).toBe('2 of 2 seats free on your Free Trial plan taken (1 by pending invitation). Choose a paid plan to add more.');
    expect(seatSummary(trialSeats)).toBe('1 of 2 seats free on your Free Trial plan taken. Choose a paid plan to go past them.');
    expect(seatSummary({ ...trialSeats, plan: 'Growth', planSlug: 'growth', paying: true, included: 5, used: 6, pending: 2, extraSeatMonthlyMicros: '8000000' })).toBe(
      '8 of 5 seats free on your Growth plan taken (2 by pending invitations). Each seat past them costs £8.00 a month.',
    );
    expect(seatSummary({ ...trialSeats, plan: 'Enterprise', planSlug: 'enterprise', paying: true, included: null, used: 40, extraSeatMonthlyMicros: null })).toBe(
      '40 seats taken. Your Enterprise plan has custom seats.',
    );
  });
});

describe('Data retention and the access review on the Team screen', () => {
  it('checks each setting against its bounds before calling, sends only what changed, and shows a refusal on its field', async () => {
    const sent: unknown[] = [];
    const api = stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada]),
      [`PUT /api/teams/${core.id}/retention`]: (body) => {
        sent.push(body);
        if ((body as { gpuSampleHours?: number }).gpuSampleHours === 30)
          return jsonResponse(400, { success: false, data: null, message: 'gpuSampleHours: must be between 24 and 30 hours', code: 'validation_failed', field: 'gpuSampleHours' });
        return ok({ ...retention, usageEvents: { ...retention.usageEvents, days: 120, effectiveDays: 120 } });
      },
    });
    await renderInSite(<TeamScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Data retention' });
    await user.type(within(form).getByLabelText('Keep raw usage events for (days)'), '30');
    await user.click(within(form).getByRole('button', { name: 'Save retention' }));
    expect(within(form).getByText('Enter a whole number of days from 90 to 400, or leave it empty')).toBeTruthy();
    expect(api.calls(`PUT /api/teams/${core.id}/retention`)).toHaveLength(0);

    await user.clear(within(form).getByLabelText('Keep raw usage events for (days)'));
    await user.type(within(form).getByLabelText('Keep raw usage events for (days)'), '120');
    await user.click(within(form).getByRole('button', { name: 'Save retention' }));
    await within(await screen.findByRole('form', { name: 'Data retention' })).findByText('Retention saved.');
    expect(sent).toEqual([{ usageEventDays: 120 }]);

    const saved = screen.getByRole('form', { name: 'Data retention' });
    await user.type(within(saved).getByLabelText('Keep raw GPU samples for (hours)'), '30');
    // The bounds shown are the server's at loading; a refusal it answers names the field.
    await user.click(within(saved).getByRole('button', { name: 'Save retention' }));
    expect(await within(saved).findByText('gpuSampleHours: must be between 24 and 30 hours')).toBeTruthy();
    expect(within(saved).getByLabelText('Keep raw GPU samples for (hours)').getAttribute('aria-invalid')).toBe('true');
  });

  it('says the access review is on the Enterprise plan without asking for it, and offers the export on Enterprise', async () => {
    const api = stubApi({ 'GET /api/team/': () => ok([core]), [`GET /api/team/members/${core.id}`]: () => ok([ada]) });
    await renderInSite(<TeamScreen />);
    const review = await screen.findByRole('region', { name: 'Access review' });
    expect(await within(review).findByText('ISO/SOC2 readiness (the access review) is part of the Enterprise plan; the Free Trial plan does not include it.')).toBeTruthy();
    expect(within(review).queryByRole('button', { name: 'Export access review (CSV)' })).toBeNull();
    expect(api.fetchMock.mock.calls.some(([input]) => String(input).includes('/access-review'))).toBe(false);
    cleanup();

    stubApi({
      'GET /api/team/': () => ok([core]),
      [`GET /api/team/members/${core.id}`]: () => ok([ada]),
      [`GET /api/team/${core.id}/seats`]: () => ok({ ...trialSeats, plan: 'Enterprise', planSlug: 'enterprise', paying: true, included: null }),
    });
    await renderInSite(<TeamScreen />);
    expect(await within(await screen.findByRole('region', { name: 'Access review' })).findByRole('button', { name: 'Export access review (CSV)' })).toBeTruthy();
  });
});
