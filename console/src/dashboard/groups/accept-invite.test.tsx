// @vitest-environment happy-dom
// Spec §4's invitation acceptance on /groups/accept-invite?token=: idle, then loading
// (the button waits), then succeeded (the accepted group, opened from there) or failed
// (the error, the button usable again); without a session it is refused with spec §5's
// message before anything is sent, and logging in from there comes back to it.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryHistory, createRootRoute, createRouter, RouterProvider } from '@tanstack/react-router';
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { saveSession } from '../../shared/session.ts';
import { jsonResponse } from '../../testing/render.tsx';
import { AcceptInviteScreen } from '../auth/AcceptInviteScreen.tsx';

const GROUP_ID = '0b7c1a52-8c6e-4f43-9d55-3f0f6d9a8e11';
const TOKEN = 'k3y-0f-the-invitation-link-123456';

async function openInvitation() {
  const router = createRouter({
    routeTree: createRootRoute({ component: AcceptInviteScreen }),
    history: createMemoryHistory({ initialEntries: [`/?token=${TOKEN}`] }),
  });
  await router.load();
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { queryClient };
}

const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  localStorage.clear();
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('accepting a group invitation', () => {
  it("without a session: 'Please log in to Continue!', nothing sent", async () => {
    await openInvitation();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Accept invitation' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Please log in to Continue!');
    expect(fetchMock).not.toHaveBeenCalled();
    // Logging in comes back to this invitation.
    expect(screen.getByRole('link', { name: 'Log in' }).getAttribute('href')).toBe(`/login?next=${encodeURIComponent(`/groups/accept-invite?token=${TOKEN}`)}`);
    expect(screen.getByRole('link', { name: 'Sign up' }).getAttribute('href')).toBe('/register');
  });

  it('loading, then the accepted group, which the page opens', async () => {
    saveSession('jwt-olive', { id: 'u-olive', email: 'olive@example.com' });
    let answer: (response: Response) => void = () => {};
    fetchMock.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    await openInvitation();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Accept invitation' }));
    const waiting = await screen.findByRole('button', { name: 'Accepting…' });
    expect((waiting as HTMLButtonElement).disabled).toBe(true);
    expect(JSON.parse(String(fetchMock.mock.calls[0]![1]!.body))).toEqual({ token: TOKEN });
    answer(jsonResponse(200, { success: true, data: { group: { id: GROUP_ID, name: 'Search' } }, message: 'Invitation accepted' }));
    expect(await screen.findByText('You have joined Search.')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Open Search' }).getAttribute('href')).toBe(`/dashboard/synthetic-groups?group=${GROUP_ID}`);
  });

  it('a refused token: the error shows and the button can be used again', async () => {
    saveSession('jwt-olive', { id: 'u-olive', email: 'olive@example.com' });
    fetchMock.mockResolvedValue(jsonResponse(400, { success: false, data: null, message: 'token: this invitation is invalid, used or expired' }));
    await openInvitation();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Accept invitation' }));
    expect((await screen.findByRole('alert')).textContent).toBe('token: this invitation is invalid, used or expired');
    expect((screen.getByRole('button', { name: 'Accept invitation' }) as HTMLButtonElement).disabled).toBe(false);
  });
});
