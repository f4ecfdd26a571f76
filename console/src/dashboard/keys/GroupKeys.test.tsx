// @vitest-environment happy-dom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GROUP_ROLES } from '@spendgate/core';
import type { CreatedKey, ListedKey } from '../../api/keys/types.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { GroupKeys, KEY_SHOWN_ONCE_WARNING } from './GroupKeys.tsx';

const GROUP_ID = '6f1c1a52-7a4c-4f51-8f0b-3e1f8f1d2a01';
const TEAM_ID = '0b8a2b0e-9a8f-4a63-9a53-b2f1c2d3e4f5';
const PLAINTEXT = 'sg_live_4Xq9TOPSECRETb7Yw2mZr8Kc3Lp6Nd1Vf';
// Group roles as the group's answer gives them (a variable: a literal `role` reads as an ARIA role to the linter).
const [ADMIN, MAINTAINER, OBSERVER] = GROUP_ROLES;

const storedKey: ListedKey = {
  id: 'a1b2c3d4-0000-4000-8000-000000000001',
  groupId: GROUP_ID,
  connectionId: 'c0000000-0000-4000-8000-000000000001',
  kind: 'byok',
  name: 'Checkout',
  prefix: 'sg_live_4Xq9',
  settings: { rateLimit: { requestsPerMinute: 60 } },
  createdAt: '2026-11-20T10:00:00.000Z',
  lastUsedAt: null,
};

/** The API as the key list sees it: a group whose keys change as they are issued and revoked. */
function fakeApi(options: { teamRole?: string; keys?: ListedKey[] } = {}) {
  let keys = options.keys ?? [];
  const calls: { method: string; url: string; body: unknown }[] = [];
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, url, body });
    if (method === 'GET' && url === `/api/synthetic-group/${GROUP_ID}`) {
      return jsonResponse(200, { success: true, data: { id: GROUP_ID, teamId: TEAM_ID, name: 'Web', role: 'ADMIN', syntheticGroupProviderKeys: keys }, message: '' });
    }
    if (method === 'GET' && url === '/api/team/') {
      return jsonResponse(200, { success: true, data: [{ id: TEAM_ID, name: 'Acme', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: options.teamRole ?? 'ADMIN' }], message: '' });
    }
    if (method === 'GET' && url === '/api/provider/connections') {
      return jsonResponse(200, {
        success: true,
        data: [
          { id: storedKey.connectionId, teamId: TEAM_ID, provider: 'openai', name: 'OpenAI prod', status: 'active', apiKeyTail: '••••abcd' },
          { id: 'c0000000-0000-4000-8000-000000000002', teamId: TEAM_ID, provider: 'openai', name: 'Old', status: 'disabled', apiKeyTail: '••••dead' },
          { id: 'c0000000-0000-4000-8000-000000000003', teamId: 'another-team', provider: 'openai', name: 'Elsewhere', status: 'active', apiKeyTail: '••••beef' },
          { id: 'c0000000-0000-4000-8000-000000000004', teamId: TEAM_ID, provider: 'openai-compatible', name: 'Our vLLM', status: 'active', apiKeyTail: '' },
        ],
        message: '',
      });
    }
    if (method === 'GET' && url.startsWith('/api/budgets?')) return jsonResponse(200, { success: true, data: [], message: '' });
    if (method === 'GET' && url === `/api/team/${TEAM_ID}/seats`) {
      const seats = { plan: 'Growth', planSlug: 'growth', paying: true, included: 5, used: 1, pending: 0, currency: 'GBP', extraSeatMonthlyMicros: '8000000' };
      return jsonResponse(200, { success: true, data: seats, message: '' });
    }
    if (method === 'POST' && url === `/api/synthetic-group/provider-key/create/${GROUP_ID}`) {
      const created: CreatedKey = { key: PLAINTEXT, providerKey: { ...storedKey, name: body.name, settings: body.settings ?? {} } };
      keys = [...keys, { ...created.providerKey, lastUsedAt: null }];
      return jsonResponse(201, { success: true, data: created, message: 'Key created. Copy it now: it will not be shown again.' });
    }
    if (method === 'DELETE' && url.startsWith('/api/synthetic-group/provider-key/')) {
      const id = url.split('/').pop();
      keys = keys.filter((key) => key.id !== id);
      return jsonResponse(200, { success: true, data: { id, groupId: GROUP_ID }, message: 'Key revoked' });
    }
    if (method === 'PATCH' && url.startsWith('/api/synthetic-group/provider-key/')) {
      keys = keys.map((key) => (url.endsWith(key.id) ? { ...key, ...body } : key));
      return jsonResponse(200, { success: true, data: keys[0], message: 'Key updated' });
    }
    return jsonResponse(404, { success: false, message: `unexpected ${method} ${url}` });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, writes: () => calls.filter((call) => call.method !== 'GET') };
}

beforeEach(() => {
  localStorage.setItem('token', 'session-token');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('GroupKeys', () => {
  it('shows a new key’s plaintext once, with a copy button and a warning, and never again', async () => {
    const api = fakeApi();
    await renderInSite(<GroupKeys groupId={GROUP_ID} role={MAINTAINER} />);
    const user = userEvent.setup();
    expect(await screen.findByText('No keys yet. Issue one to call the gateway for this group.')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Issue key' }));
    const form = screen.getByRole('form', { name: 'Issue a key' });
    await user.type(within(form).getByLabelText('Name'), 'Checkout');
    const connection = within(form).getByLabelText('Connection') as HTMLSelectElement;
    await waitFor(() =>
      expect([...connection.options].map((option) => option.text)).toEqual(['Choose a connection', 'OpenAI prod (openai, ••••abcd)', 'Our vLLM (openai-compatible)']),
    );
    await user.selectOptions(connection, storedKey.connectionId!);
    await user.type(within(form).getByLabelText('Requests per minute'), '60');
    await user.click(within(form).getByRole('button', { name: 'Issue key' }));

    const shown = (await screen.findByLabelText('Your new key')) as HTMLInputElement;
    expect(shown.value).toBe(PLAINTEXT);
    expect(shown.readOnly).toBe(true);
    expect(screen.getByRole('button', { name: 'Copy Your new key' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toContain(KEY_SHOWN_ONCE_WARNING);
    expect(api.writes()).toEqual([
      { method: 'POST', url: `/api/synthetic-group/provider-key/create/${GROUP_ID}`, body: { name: 'Checkout', kind: 'byok', connectionId: storedKey.connectionId, settings: { rateLimit: { requestsPerMinute: 60 } } } },
    ]);
    // The list shows the key by its prefix only.
    const row = (await screen.findByRole('rowheader', { name: 'Checkout' })).closest('tr')!;
    expect(row.textContent).toContain('sg_live_4Xq9…');
    expect(row.textContent).toContain('Never');
    expect(row.textContent).not.toContain(PLAINTEXT);

    await user.click(screen.getByRole('button', { name: 'I have copied it' }));
    expect(screen.queryByLabelText('Your new key')).toBeNull();
    expect(document.body.innerHTML).not.toContain(PLAINTEXT);
  });

  it('checks the issue form before sending anything, and says the server’s refusal', async () => {
    const api = fakeApi();
    await renderInSite(<GroupKeys groupId={GROUP_ID} role={ADMIN} />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Issue key' }));
    const form = screen.getByRole('form', { name: 'Issue a key' });
    await user.type(within(form).getByLabelText('Timeout (ms)'), '10');
    await user.click(within(form).getByRole('button', { name: 'Issue key' }));

    expect(within(form).getByText('Name is required')).toBeTruthy();
    expect(within(form).getByText('Choose the connection the key uses')).toBeTruthy();
    expect(within(form).getByText('Timeout must be at least 1,000')).toBeTruthy();
    expect(within(form).getByLabelText('Name').getAttribute('aria-invalid')).toBe('true');
    expect(api.writes()).toEqual([]);

    // Optimised keys take routing and no connection; the plan says what they cost (spec §9).
    await user.click(within(form).getByLabelText(/Optimised/));
    expect(within(form).queryByLabelText('Connection')).toBeNull();
    expect(
      within(form).getByText('Growth plan: base model cost + 25% per request, £0.0018 for a request under 100 tokens; 10 optimised keys, then £3.00 a key a month.'),
    ).toBeTruthy();
    expect(within(form).getByText(/Empty: your plan's weights \(cost 0.5, speed 0.2, accuracy 0.3\)/)).toBeTruthy();
    await user.type(within(form).getByLabelText('Name'), 'Router');
    await user.clear(within(form).getByLabelText('Timeout (ms)'));
    await user.type(within(form).getByLabelText('Cost weight'), '0');
    await user.type(within(form).getByLabelText('Speed weight'), '0');
    await user.type(within(form).getByLabelText('Accuracy weight'), '0');
    await user.click(within(form).getByRole('button', { name: 'Issue key' }));
    expect(within(form).getByText('The weights must not all be zero')).toBeTruthy();
    expect(api.writes()).toEqual([]);

    vi.stubGlobal('fetch', vi.fn(async () => jsonResponse(402, { success: false, message: 'Your Developers plan includes 2 optimised keys during the trial. Choose a paid plan to add more.' })));
    await user.clear(within(form).getByLabelText('Cost weight'));
    await user.type(within(form).getByLabelText('Cost weight'), '1');
    await user.click(within(form).getByRole('button', { name: 'Issue key' }));
    expect((await within(form).findByRole('alert')).textContent).toBe('Your Developers plan includes 2 optimised keys during the trial. Choose a paid plan to add more.');
  });

  it('issues a BYOM key only on the team’s own model endpoint, saying the plan’s routing fee', async () => {
    const api = fakeApi();
    await renderInSite(<GroupKeys groupId={GROUP_ID} role={ADMIN} />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Issue key' }));
    const form = screen.getByRole('form', { name: 'Issue a key' });
    await user.click(within(form).getByLabelText(/BYOM/));
    const connection = within(form).getByLabelText('Connection') as HTMLSelectElement;
    await waitFor(() => expect([...connection.options].map((option) => option.text)).toEqual(['Choose a connection', 'Our vLLM (openai-compatible)']));
    expect(await within(form).findByText('Growth plan: £0.004 routing fee per request.')).toBeTruthy();
    expect(within(form).queryByLabelText('Cost weight')).toBeNull();
    await user.type(within(form).getByLabelText('Name'), 'Self-hosted');
    await user.selectOptions(connection, 'c0000000-0000-4000-8000-000000000004');
    await user.click(within(form).getByRole('button', { name: 'Issue key' }));
    expect(await screen.findByRole('textbox', { name: 'Your new key' })).toBeTruthy();
    expect(api.writes()).toEqual([
      { method: 'POST', url: `/api/synthetic-group/provider-key/create/${GROUP_ID}`, body: { name: 'Self-hosted', kind: 'byom', connectionId: 'c0000000-0000-4000-8000-000000000004' } },
    ]);
  });

  it('revokes a key only after confirmation', async () => {
    const api = fakeApi({ keys: [storedKey] });
    await renderInSite(<GroupKeys groupId={GROUP_ID} role={ADMIN} />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Revoke Checkout' }));
    const dialog = screen.getByRole('dialog', { name: 'Revoke Checkout?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.writes()).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Revoke Checkout' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Revoke key' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.writes()).toEqual([{ method: 'DELETE', url: `/api/synthetic-group/provider-key/${storedKey.id}`, body: undefined }]);
    expect(await screen.findByText('No keys yet. Issue one to call the gateway for this group.')).toBeTruthy();
  });

  it('changes a key’s settings, replacing them as a whole', async () => {
    const api = fakeApi({ keys: [storedKey] });
    await renderInSite(<GroupKeys groupId={GROUP_ID} role={MAINTAINER} />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Open settings and budget of Checkout' }));
    const form = screen.getByRole('form', { name: 'Settings of Checkout' });
    expect((within(form).getByLabelText('Requests per minute') as HTMLInputElement).value).toBe('60');
    expect(within(form).queryByLabelText('Cost weight')).toBeNull();
    await user.clear(within(form).getByLabelText('Key name'));
    await user.clear(within(form).getByLabelText('Requests per minute'));
    await user.type(within(form).getByLabelText('Requests per minute'), '0');
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));
    expect(within(form).getByText('Name is required')).toBeTruthy();
    expect(within(form).getByText('Requests per minute must be at least 1')).toBeTruthy();
    expect(api.writes()).toEqual([]);
    await user.type(within(form).getByLabelText('Key name'), 'Checkout');
    await user.clear(within(form).getByLabelText('Requests per minute'));
    await user.type(within(form).getByLabelText('Tokens per minute'), '5000');
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));
    expect(await within(form).findByText('Settings saved. Gateways apply them to the next request.')).toBeTruthy();
    expect(api.writes()).toEqual([{ method: 'PATCH', url: `/api/synthetic-group/provider-key/${storedKey.id}`, body: { name: 'Checkout', settings: { rateLimit: { tokensPerMinute: 5000 } } } }]);
  });

  it('edits a BYOK key’s model overrides and output cap, naming the part that is wrong, and says the server’s refusal', async () => {
    const overridden: ListedKey = { ...storedKey, settings: { modelOverrides: [{ replace: 'gpt-4o', with: 'gpt-4o-mini' }] } };
    const api = fakeApi({ keys: [overridden] });
    await renderInSite(<GroupKeys groupId={GROUP_ID} role={ADMIN} />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Open settings and budget of Checkout' }));
    const form = screen.getByRole('form', { name: 'Settings of Checkout' });
    const first = within(form).getByRole('group', { name: 'Override 1' });
    expect((within(first).getByLabelText('Requested model') as HTMLInputElement).value).toBe('gpt-4o');
    expect((within(first).getByLabelText('Send instead') as HTMLInputElement).value).toBe('gpt-4o-mini');
    // The team's other active connections: not the key's own, a disabled one or another team's.
    const through = within(first).getByLabelText('Through connection') as HTMLSelectElement;
    await waitFor(() => expect([...through.options].map((option) => option.text)).toEqual(['This key’s connection', 'Our vLLM (openai-compatible)']));

    await user.click(within(form).getByRole('button', { name: 'Add a model override' }));
    const second = within(form).getByRole('group', { name: 'Override 2' });
    await user.type(within(second).getByLabelText('Requested model'), 'gpt-4.1');
    await user.type(within(form).getByLabelText('Max output tokens'), '0');
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));
    expect(within(second).getByText('Name the model to send instead')).toBeTruthy();
    expect(within(second).getByLabelText('Send instead').getAttribute('aria-invalid')).toBe('true');
    expect(within(form).getByText('Max output tokens must be at least 1')).toBeTruthy();
    expect(api.writes()).toEqual([]);

    await user.type(within(second).getByLabelText('Send instead'), 'gpt-4.1');
    await user.selectOptions(within(second).getByLabelText('Through connection'), 'c0000000-0000-4000-8000-000000000004');
    await user.clear(within(form).getByLabelText('Max output tokens'));
    await user.type(within(form).getByLabelText('Max output tokens'), '1024');
    await user.click(within(first).getByRole('button', { name: 'Remove override 1' }));
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));
    expect(await within(form).findByText('Settings saved. Gateways apply them to the next request.')).toBeTruthy();
    expect(api.writes()).toEqual([
      {
        method: 'PATCH',
        url: `/api/synthetic-group/provider-key/${storedKey.id}`,
        body: { name: 'Checkout', settings: { maxOutputTokens: 1024, modelOverrides: [{ replace: 'gpt-4.1', with: 'gpt-4.1', connectionId: 'c0000000-0000-4000-8000-000000000004' }] } },
      },
    ]);

    const refusal = 'settings.modelOverrides.0: "gpt-4.1" is not a model the price catalog lists for OpenAI (a team admin can add a price for it)';
    vi.stubGlobal('fetch', vi.fn(async () => jsonResponse(400, { success: false, message: refusal, field: 'settings.modelOverrides.0.connectionId' })));
    await user.click(within(form).getByRole('button', { name: 'Save settings' }));
    expect((await within(form).findByRole('alert')).textContent).toBe(refusal);
  });

  it('lets an observer read keys and their settings but change nothing', async () => {
    const api = fakeApi({ teamRole: 'MEMBER', keys: [{ ...storedKey, lastUsedAt: '2026-11-25T09:30:00.000Z' }] });
    await renderInSite(<GroupKeys groupId={GROUP_ID} role={OBSERVER} />);
    const user = userEvent.setup();
    const row = (await screen.findByRole('rowheader', { name: 'Checkout' })).closest('tr')!;
    expect(row.textContent).toContain('25 Nov 2026');
    expect(screen.queryByRole('button', { name: 'Issue key' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Revoke Checkout' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Open settings and budget of Checkout' }));
    const form = screen.getByRole('form', { name: 'Settings of Checkout' });
    expect((within(form).getByLabelText('Requests per minute') as HTMLInputElement).disabled).toBe(true);
    expect(within(form).queryByRole('button', { name: 'Save settings' })).toBeNull();
    expect(within(form).getByText("Read only: a group admin or maintainer changes a key's settings.")).toBeTruthy();
    expect(await screen.findByText('Read only: team admins set and change budgets.')).toBeTruthy();
    expect(await screen.findByText('No budget: spend here is not capped.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Add budget' })).toBeNull();
    expect(api.writes()).toEqual([]);
  });

  it('says why the keys could not be loaded and retries', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => jsonResponse(500, { success: false, message: 'Failed to fetch group' })));
    await renderInSite(<GroupKeys groupId={GROUP_ID} role={ADMIN} />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Failed to fetch group');
    fakeApi({ keys: [storedKey] });
    await userEvent.setup().click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('rowheader', { name: 'Checkout' })).toBeTruthy();
  });
});
