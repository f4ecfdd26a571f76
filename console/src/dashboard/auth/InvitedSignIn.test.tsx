// @vitest-environment happy-dom
// Register and login with a team invitation's link (?invite=): the invitation's e-mail and
// team are shown, accepting sends the token (and a name when signing up), stores the
// session and opens the team; an account that exists is sent to log in; a bad token
// leaves the ordinary form with the reason.
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readToken, readUser } from '../../shared/session.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { LoginScreen } from './LoginScreen.tsx';
import { RegisterScreen } from './RegisterScreen.tsx';

const TOKEN = 'Tok3n_from-the-invitation-email-0123456789';
const team = { id: '00000000-0000-4000-8000-0000000000c1', name: 'Core', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'MEMBER' };
const grace = { id: '00000000-0000-4000-8000-00000000000b', email: 'grace@example.com', name: 'Grace Hopper', avatar: null, metadata: {}, emailVerified: true, subscription: null };
const preview = (accountExists: boolean) => ({ teamName: 'Core', email: 'grace@example.com', role: 'MEMBER', expiresAt: '2026-12-03T00:00:00.000Z', accountExists });
const ok = (data: unknown) => jsonResponse(200, { success: true, data, message: 'OK' });

function stubApi(routes: Record<string, (body: unknown) => Response>) {
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const key = `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}`;
    const route = routes[key];
    if (!route) throw new Error(`unexpected call ${key}`);
    return route(init?.body ? JSON.parse(String(init.body)) : undefined);
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    sent: (key: string) =>
      fetchMock.mock.calls
        .filter(([input, init]) => `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}` === key)
        .map(([, init]) => JSON.parse(String(init!.body))),
  };
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('register with an invitation', () => {
  it('signs up the invited e-mail into the team and opens it', async () => {
    const api = stubApi({
      'POST /api/team/invitation': () => ok(preview(false)),
      'POST /api/team/accept': () => ok({ token: 'jwt-grace', user: grace, team }),
    });
    const { router } = await renderInSite(<RegisterScreen />, { at: `/register?invite=${TOKEN}` });
    const user = userEvent.setup();

    expect((await screen.findByText(/You're invited to join/)).textContent).toBe("You're invited to join Core as Member.");
    const email = screen.getByLabelText('Work email') as HTMLInputElement;
    expect(email.value).toBe('grace@example.com');
    expect(email.readOnly).toBe(true);
    expect(api.sent('POST /api/team/invitation')).toEqual([{ token: TOKEN }]);

    await user.type(screen.getByLabelText('Full name'), 'Grace Hopper');
    await user.type(screen.getByLabelText('Password'), 'a long enough password');
    await user.click(screen.getByRole('button', { name: 'Create account and join' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard/settings/team'));
    expect(router.state.location.search).toEqual({ team: team.id });
    expect(api.sent('POST /api/team/accept')).toEqual([{ token: TOKEN, password: 'a long enough password', name: 'Grace Hopper' }]);
    expect(readToken()).toBe('jwt-grace');
    expect(readUser()?.email).toBe('grace@example.com');
  });

  it('sends an e-mail that has an account to log in with the same invitation', async () => {
    stubApi({ 'POST /api/team/invitation': () => ok(preview(true)) });
    await renderInSite(<RegisterScreen />, { at: `/register?invite=${TOKEN}` });
    const link = await screen.findByRole('link', { name: 'Log in to join' });
    expect(link.getAttribute('href')).toBe(`/login?invite=${TOKEN}`);
    expect(screen.queryByLabelText('Password')).toBeNull();
  });

  it('says why a used or expired invitation cannot be accepted and keeps the ordinary form', async () => {
    const api = stubApi({
      'POST /api/team/invitation': () =>
        jsonResponse(400, { success: false, data: null, message: 'token: this invitation is invalid, used or expired', field: 'token' }),
    });
    await renderInSite(<RegisterScreen />, { at: `/register?invite=${TOKEN}` });
    expect((await screen.findByRole('alert')).textContent).toBe("This invitation link is invalid, has been used or has expired. Ask the team's admin for a new one.");
    expect((screen.getByLabelText('Work email') as HTMLInputElement).readOnly).toBe(false);
    expect(screen.getByRole('button', { name: 'Create account' })).toBeTruthy();
    expect(api.sent('POST /api/team/invitation')).toHaveLength(1);
  });

  it('says when the invitation could not be read at all', async () => {
    stubApi({ 'POST /api/team/invitation': () => jsonResponse(503, { success: false, data: null, message: 'The service is unavailable' }) });
    await renderInSite(<LoginScreen />, { at: `/login?invite=${TOKEN}` });
    expect((await screen.findByRole('alert')).textContent).toBe('The service is unavailable');
    expect(screen.getByRole('button', { name: 'Log in' })).toBeTruthy();
  });

  it("shows the API's refusal of the password and stays", async () => {
    stubApi({
      'POST /api/team/invitation': () => ok(preview(false)),
      'POST /api/team/accept': () => jsonResponse(400, { success: false, data: null, message: 'password is too common; choose a less guessable one', field: 'password' }),
    });
    const { router } = await renderInSite(<RegisterScreen />, { at: `/register?invite=${TOKEN}` });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Full name'), 'Grace Hopper');
    await user.type(screen.getByLabelText('Password'), 'password1');
    await user.click(screen.getByRole('button', { name: 'Create account and join' }));
    expect((await screen.findByRole('alert')).textContent).toBe('password is too common; choose a less guessable one');
    expect(router.state.location.pathname).toBe('/register');
    expect(readToken()).toBeNull();
  });
});

describe('login with an invitation', () => {
  it('accepts with the password of the invited account and opens the team', async () => {
    const api = stubApi({
      'POST /api/team/invitation': () => ok(preview(true)),
      'POST /api/team/accept': () => ok({ token: 'jwt-grace', user: grace, team }),
    });
    const { router } = await renderInSite(<LoginScreen />, { at: `/login?invite=${TOKEN}` });
    const user = userEvent.setup();
    const email = (await screen.findByLabelText('Email')) as HTMLInputElement;
    expect(email.value).toBe('grace@example.com');
    expect(screen.queryByLabelText('Full name')).toBeNull();
    await user.type(screen.getByLabelText('Password'), 'a long enough password');
    await user.click(screen.getByRole('button', { name: 'Log in and join' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard/settings/team'));
    expect(api.sent('POST /api/team/accept')).toEqual([{ token: TOKEN, password: 'a long enough password' }]);
    expect(readToken()).toBe('jwt-grace');
  });
});
