// @vitest-environment happy-dom
// The Account screen against a stubbed API: each form's checks before any call, what it
// sends, and what follows a save (the stored session keeps up with the name and the new
// password's token).
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PublicUser } from '../../api/auth/types.ts';
import { readToken, readUser, saveSession } from '../../shared/session.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { AccountScreen } from './AccountScreen.tsx';

const ada: PublicUser = { id: '00000000-0000-4000-8000-00000000000a', email: 'ada@example.com', name: 'Ada Lovelace', avatar: null, emailVerified: true };
const ok = (data: unknown) => jsonResponse(200, { success: true, data, message: 'OK' });

const passwordOnly = { password: true, google: false, singleSignOn: [] };

/** `routes` over the defaults: an account with a password only, on a server without Google sign-in. */
function stubApi(routes: Record<string, (body: unknown) => Response>) {
  const withDefaults: Record<string, (body: unknown) => Response> = {
    'GET /api/auth/sign-in-methods': () => ok(passwordOnly),
    'GET /api/auth/sign-in-options': () => ok({ google: null }),
    ...routes,
  };
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const key = `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}`;
    const route = withDefaults[key];
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

beforeEach(() => {
  localStorage.clear();
  saveSession('jwt-ada', ada);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('Account screen', () => {
  it('shows the account from the API, with its verification state', async () => {
    stubApi({ 'GET /api/auth/profile': () => ok({ user: { ...ada, emailVerified: false } }) });
    await renderInSite(<AccountScreen />);
    const profile = await screen.findByRole('form', { name: 'Profile' });
    expect((within(profile).getByLabelText('Name') as HTMLInputElement).value).toBe('Ada Lovelace');
    expect((within(profile).getByLabelText('E-mail') as HTMLInputElement).readOnly).toBe(true);
    expect(screen.getByText('Not verified')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Verify my e-mail' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Your initials: no avatar yet' }).textContent).toBe('AL');
  });

  it('says why the account could not be loaded', async () => {
    stubApi({ 'GET /api/auth/profile': () => jsonResponse(500, { success: false, data: null, message: 'Failed to fetch profile' }) });
    await renderInSite(<AccountScreen />);
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to fetch profile');
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('checks the name, then saves it and the stored session follows', async () => {
    const api = stubApi({
      'GET /api/auth/profile': () => ok({ user: ada }),
      'PATCH /api/auth/update-profile': (body) => ok({ user: { ...ada, ...(body as object) } }),
    });
    await renderInSite(<AccountScreen />);
    const user = userEvent.setup();
    const profile = await screen.findByRole('form', { name: 'Profile' });
    const name = within(profile).getByLabelText('Name');

    await user.clear(name);
    await user.type(name, '   ');
    await user.click(within(profile).getByRole('button', { name: 'Save name' }));
    expect(within(profile).getByText('Name is required')).toBeTruthy();
    await user.clear(name);
    await user.type(name, 'a'.repeat(201));
    await user.click(within(profile).getByRole('button', { name: 'Save name' }));
    expect(within(profile).getByText('Name must be at most 200 characters')).toBeTruthy();
    expect(api.sent('PATCH /api/auth/update-profile')).toEqual([]);

    await user.clear(name);
    await user.type(name, ' Ada King ');
    await user.click(within(profile).getByRole('button', { name: 'Save name' }));
    expect((await within(profile).findByRole('status')).textContent).toBe('Your name has been saved.');
    expect(api.sent('PATCH /api/auth/update-profile')).toEqual([{ name: 'Ada King' }]);
    expect(readUser()?.name).toBe('Ada King');
    expect(readToken()).toBe('jwt-ada');
  });

  it('takes an https image URL as the avatar and refuses anything else before calling', async () => {
    const api = stubApi({
      'GET /api/auth/profile': () => ok({ user: ada }),
      'PATCH /api/auth/update-profile': (body) => ok({ user: { ...ada, ...(body as object) } }),
    });
    await renderInSite(<AccountScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Avatar from a URL' });
    const url = within(form).getByLabelText('Or use an image URL');

    await user.click(within(form).getByRole('button', { name: 'Use this URL' }));
    expect(within(form).getByText('Image URL is required')).toBeTruthy();
    for (const refused of ['http://img.example.com/a.png', 'javascript:alert(1)', 'data:image/png;base64,AAAA']) {
      await user.clear(url);
      await user.type(url, refused);
      await user.click(within(form).getByRole('button', { name: 'Use this URL' }));
      expect(within(form).getByText('Image URL must be an https:// address')).toBeTruthy();
    }
    expect(api.sent('PATCH /api/auth/update-profile')).toEqual([]);

    await user.clear(url);
    await user.type(url, 'https://img.example.com/ada.png');
    await user.click(within(form).getByRole('button', { name: 'Use this URL' }));
    expect(((await screen.findByRole('img', { name: 'Your avatar' })) as HTMLImageElement).src).toBe('https://img.example.com/ada.png');
    expect(api.sent('PATCH /api/auth/update-profile')).toEqual([{ avatar: 'https://img.example.com/ada.png' }]);
    expect(readUser()?.avatar).toBe('https://img.example.com/ada.png');

    await user.click(screen.getByRole('button', { name: 'Remove avatar' }));
    expect(await screen.findByRole('img', { name: 'Your initials: no avatar yet' })).toBeTruthy();
    expect(api.sent('PATCH /api/auth/update-profile').at(-1)).toEqual({ avatar: null });
  });

  it('refuses an upload that is not a PNG, JPEG, GIF or WebP image', async () => {
    const api = stubApi({ 'GET /api/auth/profile': () => ok({ user: ada }) });
    await renderInSite(<AccountScreen />);
    const user = userEvent.setup({ applyAccept: false });
    const input = await screen.findByLabelText('Upload a picture');
    await user.upload(input, new File(['<svg/>'], 'ada.svg', { type: 'image/svg+xml' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Choose a PNG, JPEG, GIF or WebP image');
    expect(api.sent('PATCH /api/auth/update-profile')).toEqual([]);
  });

  it('checks a password change, then keeps the session with the token it answers', async () => {
    const api = stubApi({
      'GET /api/auth/profile': () => ok({ user: ada }),
      'PATCH /api/auth/update-password': () => ok({ token: 'jwt-ada-new', user: ada }),
    });
    await renderInSite(<AccountScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Change password' });
    const field = (label: string) => within(form).getByLabelText(label);

    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(within(form).getByText('Current password is required')).toBeTruthy();
    expect(within(form).getByText('New password must be at least 8 characters')).toBeTruthy();
    await user.type(field('Current password'), 'the old password');
    await user.type(field('New password'), 'the old password');
    await user.type(field('Confirm new password'), 'the old password');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(within(form).getByText('New password must differ from the current one')).toBeTruthy();
    await user.clear(field('New password'));
    await user.type(field('New password'), 'a brand new passphrase');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(within(form).getByText('The passwords do not match')).toBeTruthy();
    expect(field('Confirm new password').getAttribute('aria-invalid')).toBe('true');
    expect(api.sent('PATCH /api/auth/update-password')).toEqual([]);

    await user.clear(field('Confirm new password'));
    await user.type(field('Confirm new password'), 'a brand new passphrase');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect((await within(form).findByRole('status')).textContent).toBe('Your password has been changed.');
    expect(api.sent('PATCH /api/auth/update-password')).toEqual([{ currentPassword: 'the old password', newPassword: 'a brand new passphrase' }]);
    await waitFor(() => expect(readToken()).toBe('jwt-ada-new'));
    expect((field('Current password') as HTMLInputElement).value).toBe('');
  });

  it("shows the API's refusal of the current password", async () => {
    stubApi({
      'GET /api/auth/profile': () => ok({ user: ada }),
      'PATCH /api/auth/update-password': () => jsonResponse(400, { success: false, data: null, message: 'currentPassword is incorrect', field: 'currentPassword' }),
    });
    await renderInSite(<AccountScreen />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Change password' });
    await user.type(within(form).getByLabelText('Current password'), 'not my password');
    await user.type(within(form).getByLabelText('New password'), 'a brand new passphrase');
    await user.type(within(form).getByLabelText('Confirm new password'), 'a brand new passphrase');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect((await within(form).findByRole('alert')).textContent).toBe('currentPassword is incorrect');
    expect(readToken()).toBe('jwt-ada');
  });

  it('lists how the account signs in; an account without a password is shown how to set one, not a change form', async () => {
    stubApi({
      'GET /api/auth/profile': () => ok({ user: ada }),
      'GET /api/auth/sign-in-methods': () =>
        ok({ password: false, google: true, singleSignOn: [{ teamId: 't-1', teamName: 'Acme', issuer: 'https://login.acme.example/realms/staff', linkedAt: '2026-11-02T09:00:00.000Z' }] }),
    });
    await renderInSite(<AccountScreen />);
    const methods = await screen.findByRole('region', { name: 'Sign-in methods' });
    expect(within(methods).getAllByRole('listitem').map((item) => item.textContent?.trim())).toEqual([
      'Password Not set',
      'Google Linked',
      'Single sign-on for Acme Linked at login.acme.example since 2 Nov 2026',
    ]);
    expect(screen.queryByRole('form', { name: 'Change password' })).toBeNull();
    const noPassword = screen.getByRole('region', { name: 'Password' });
    expect(within(noPassword).getByRole('link', { name: 'Set a password' }).getAttribute('href')).toBe('/forgot-password');
  });

  it('leaves Google out for an unlinked account on a server without Google sign-in, and offers linking where it has it', async () => {
    stubApi({ 'GET /api/auth/profile': () => ok({ user: ada }) });
    await renderInSite(<AccountScreen />);
    const methods = await screen.findByRole('region', { name: 'Sign-in methods' });
    await screen.findByRole('form', { name: 'Change password' });
    expect(within(methods).getAllByRole('listitem').map((item) => item.textContent?.trim())).toEqual(['Password Set']);
    cleanup();

    stubApi({
      'GET /api/auth/profile': () => ok({ user: ada }),
      'GET /api/auth/sign-in-options': () => ok({ google: { clientId: 'spendgate.apps.googleusercontent.com', scriptUrl: 'https://accounts.google.com/gsi/client' } }),
    });
    await renderInSite(<AccountScreen />);
    const offered = await screen.findByRole('region', { name: 'Sign-in methods' });
    await waitFor(() => expect(within(offered).getAllByRole('listitem')).toHaveLength(2));
    expect(within(offered).getAllByRole('listitem')[1]!.textContent).toBe('Google Not linked Signing in with Google once, with this e-mail, links it.');
  });
});
