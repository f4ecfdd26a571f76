// @vitest-environment happy-dom
// The register screen against a stubbed API: leaving the e-mail field asks once per
// address whether it has an account and, when it has, points to /login; an incomplete
// address is not asked about; with Google sign-in off there is no Google button.
import { cleanup, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { RegisterScreen } from './RegisterScreen.tsx';

const ok = (data: unknown) => jsonResponse(200, { success: true, data, message: 'OK' });

function stubApi(accounts: string[]) {
  const asked: string[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn<typeof fetch>(async (input, init) => {
      const key = `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}`;
      if (key === 'GET /api/auth/sign-in-options') return ok({ google: null });
      if (key !== 'POST /api/auth/check-email') throw new Error(`unexpected call ${key}`);
      const { email } = JSON.parse(String(init!.body)) as { email: string };
      asked.push(email);
      return ok({ exists: accounts.includes(email) });
    }),
  );
  return asked;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('register screen', () => {
  it('points an address that has an account to /login, asking once per address', async () => {
    const asked = stubApi(['grace@example.com']);
    await renderInSite(<RegisterScreen />, { at: '/register' });
    const user = userEvent.setup();
    const email = await screen.findByLabelText('Work email');

    await user.type(email, 'grace@');
    await user.tab();
    expect(asked, 'an incomplete address is not asked about').toEqual([]);

    await user.type(email, 'Example.com');
    await user.tab();
    const note = await screen.findByRole('status');
    expect(note.textContent).toBe('An account with this e-mail already exists. Log in instead');
    expect(screen.getByRole('link', { name: 'Log in instead' }).getAttribute('href')).toBe('/login');
    expect(asked).toEqual(['grace@example.com']);

    // Another address: no note; back to the first: the kept answer, not a second question.
    await user.clear(email);
    await user.type(email, 'new@example.com');
    expect(screen.queryByRole('status'), 'the note follows the address typed').toBeNull();
    await user.tab();
    await waitFor(() => expect(asked).toEqual(['grace@example.com', 'new@example.com']));
    expect(screen.queryByRole('status')).toBeNull();
    await user.clear(email);
    await user.type(email, 'grace@example.com');
    await user.tab();
    await screen.findByRole('status');
    expect(asked).toEqual(['grace@example.com', 'new@example.com']);
  });

  it('shows no Google button while Google sign-in is off', async () => {
    stubApi([]);
    await renderInSite(<RegisterScreen />, { at: '/register' });
    await screen.findByLabelText('Work email');
    await waitFor(() => expect(vi.mocked(fetch).mock.calls.some(([input]) => String(input).includes('/auth/sign-in-options'))).toBe(true));
    expect(screen.queryByText('or')).toBeNull();
    expect(document.querySelector('iframe, script[src]')).toBeNull();
  });
});
