// @vitest-environment happy-dom
// The AI Connections screen against a stubbed API: the list's facts, spec §4's
// transitions as a user sees them (status, delete after confirmation, create then open),
// testing unsaved settings before saving, and spec §8's fallback messages.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Connection, ListedConnection, Provider } from '../../api/connections/types.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { monthUsage, usageTotals } from '../../testing/usage.ts';
import { AiConnectionsScreen } from './AiConnectionsScreen.tsx';

const TEAM = '11111111-1111-4111-8111-111111111111';
const providers: Provider[] = [
  {
    id: 'openai',
    name: 'OpenAI',
    format: 'openai',
    authFields: [{ name: 'apiKey', label: 'API key', type: 'secret', required: true }],
    baseUrl: { default: 'https://api.openai.com/v1', required: false, rules: 'http(s) only' },
    models: ['gpt-4o-mini'],
    optionFields: [],
  },
  {
    id: 'azure-openai',
    name: 'Azure OpenAI',
    format: 'openai',
    authFields: [{ name: 'apiKey', label: 'API key', type: 'secret', required: true }],
    baseUrl: { default: null, required: true, rules: 'http(s) only' },
    models: [],
    optionFields: [{ name: 'apiVersion', label: 'API version', help: 'Requests name the Azure deployment as their model.', placeholder: '2024-10-21' }],
  },
];
const connection = (id: string, changes: Partial<Connection> = {}): ListedConnection => ({
  id,
  teamId: TEAM,
  provider: 'openai',
  name: `Prod ${id}`,
  baseUrl: 'https://api.openai.com/v1',
  baseUrlProblem: null,
  status: 'active',
  options: {},
  apiKeyTail: '••••wxyz',
  createdAt: '2026-11-01T00:00:00.000Z',
  thisMonth: monthUsage({ requests: 1234, costMicros: 2_500_000n, costUsdMicros: 3_100_000n }),
  ...changes,
});

type Route = (body: unknown, url: URL) => Response;
let routes: Record<string, Route>;
const calls: { method: string; path: string; body: unknown }[] = [];
const ok = (data: unknown, status = 200) => jsonResponse(status, { success: true, data, message: 'ok' });

beforeEach(() => {
  calls.length = 0;
  routes = {
    'GET /api/team/': () => ok([{ id: TEAM, name: 'Platform', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'ADMIN' }]),
    'GET /api/provider': () => ok(providers),
    'GET /api/provider/connections': () => ok([connection('a'), connection('b', { status: 'disabled', baseUrlProblem: 'is a loopback address, which the operator does not allow' })]),
  };
  localStorage.setItem('token', 'a-token');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input), 'http://console.test');
      const method = init?.method ?? 'GET';
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      calls.push({ method, path: url.pathname, body });
      const pattern = (key: string) => new RegExp(`^${key.replaceAll(':id', '[^/]+')}$`);
      const key = Object.keys(routes).find((candidate) => pattern(candidate).test(`${method} ${url.pathname}`));
      const route = key ? routes[key] : undefined;
      return route ? route(body, url) : jsonResponse(404, { success: false, data: null, message: `no stub for ${method} ${url.pathname}` });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

const card = async (name: string) => (await screen.findByRole('heading', { name })).closest('article') as HTMLElement;

describe('AiConnectionsScreen', () => {
  it("lists each connection's provider, name, status, masked key and this month's requests and cost", async () => {
    await renderInSite(<AiConnectionsScreen />);
    const first = within(await card('Prod a'));
    expect(first.getByText('OpenAI')).toBeTruthy();
    expect(first.getByText('Active')).toBeTruthy();
    expect(first.getByText('••••wxyz')).toBeTruthy();
    expect(first.getByText('1,234')).toBeTruthy();
    expect(first.getByText('£2.50')).toBeTruthy();
    const second = within(await card('Prod b'));
    expect(second.getByText('Disabled')).toBeTruthy();
    expect(second.getByRole('alert').textContent).toBe(
      'Requests through this connection are refused: its base URL is a loopback address, which the operator does not allow.',
    );
  });

  it("shows an open connection's usage in GBP with the USD list price, over the range the API chose", async () => {
    routes['GET /api/provider/connections/:id/usage'] = () =>
      ok(usageTotals({ requests: 2, costMicros: 6_000n, costUsdMicros: 7_000n, inputTokens: 2_000, outputTokens: 200 }, { teamId: TEAM, connectionId: 'a' }));
    await renderInSite(<AiConnectionsScreen />, { at: '/?connection=a' });
    const usage = within((await screen.findByRole('heading', { name: 'Usage of Prod a' })).closest('section') as HTMLElement);
    expect(await usage.findByText('£0.006')).toBeTruthy();
    expect(usage.getByText('$0.007')).toBeTruthy();
    expect((usage.getByLabelText('From') as HTMLInputElement).value).toBe('2026-10-28');
    // No range in the URL: the API's default (the last 30 days, or the plan's look-back) is asked for.
    expect(calls.find((call) => call.path === '/api/provider/connections/a/usage')).toBeTruthy();
  });

  it("hides the team's usage from a member: no month's figures, no usage panel", async () => {
    routes['GET /api/team/'] = () => ok([{ id: TEAM, name: 'Platform', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'MEMBER' }]);
    routes['GET /api/provider/connections'] = () => ok([{ ...connection('a'), thisMonth: null }]);
    await renderInSite(<AiConnectionsScreen />, { at: '/?connection=a' });
    const first = within(await card('Prod a'));
    expect(first.getByText('••••wxyz')).toBeTruthy();
    expect(first.queryByText('Cost this month')).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Usage of Prod a' })).toBeNull();
    expect(calls.some((call) => call.path.endsWith('/usage'))).toBe(false);
  });

  it('shows the empty state, and the fallback message with Retry when the list fails', async () => {
    routes['GET /api/provider/connections'] = () => jsonResponse(500, {});
    const user = userEvent.setup();
    await renderInSite(<AiConnectionsScreen />);
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to fetch connections');
    routes['GET /api/provider/connections'] = () => ok([]);
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('heading', { name: 'No connections yet' })).toBeTruthy();
  });

  it('disables and enables a connection, showing the returned status', async () => {
    routes['PATCH /api/provider/connections/status/:id'] = (body, url) => ok({ id: url.pathname.split('/').at(-1), status: (body as { statusValue: string }).statusValue });
    const user = userEvent.setup();
    await renderInSite(<AiConnectionsScreen />);
    const first = within(await card('Prod a'));
    await user.click(first.getByRole('button', { name: 'Disable' }));
    await waitFor(() => expect(first.getByText('Disabled')).toBeTruthy());
    expect(calls.find((call) => call.method === 'PATCH')).toMatchObject({ path: '/api/provider/connections/status/a', body: { statusValue: 'disabled' } });
    await user.click(first.getByRole('button', { name: 'Enable' }));
    await waitFor(() => expect(first.getByText('Active')).toBeTruthy());
  });

  it('reports a failed status change with the fallback message', async () => {
    routes['PATCH /api/provider/connections/status/:id'] = () => jsonResponse(500, {});
    const user = userEvent.setup();
    await renderInSite(<AiConnectionsScreen />);
    const first = within(await card('Prod a'));
    await user.click(first.getByRole('button', { name: 'Disable' }));
    expect((await first.findByRole('alert')).textContent).toBe('Failed to update connection status');
    expect(first.getByText('Active')).toBeTruthy();
  });

  it('deletes a connection only after confirmation', async () => {
    routes['DELETE /api/provider/connections/:id'] = (_body, url) => ok({ id: url.pathname.split('/').at(-1) });
    const user = userEvent.setup();
    await renderInSite(<AiConnectionsScreen />);
    await user.click(within(await card('Prod a')).getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete Prod a?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((call) => call.method === 'DELETE')).toBe(false);
    await user.click(within(await card('Prod a')).getByRole('button', { name: 'Delete' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete connection' }));
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Prod a' })).toBeNull());
    expect(screen.getByRole('heading', { name: 'Prod b' })).toBeTruthy();
  });

  it('checks the form, tests unsaved settings, then adds the connection and opens it', async () => {
    let created: Connection | undefined;
    routes['POST /api/provider/test/connection'] = (body) =>
      (body as { apiKey?: string }).apiKey === 'az-key'
        ? ok({ ok: true, provider: 'azure-openai', baseUrl: 'https://r.openai.azure.com', latencyMs: 42 })
        : jsonResponse(422, { success: false, data: null, message: 'Azure OpenAI refused the API key (HTTP 401)' });
    routes['POST /api/provider/connections'] = (body) => {
      const { apiKey: _key, ...rest } = body as Partial<Connection> & { apiKey: string };
      created = { ...connection('c'), ...rest, provider: 'azure-openai', apiKeyTail: '••••-key' };
      return ok({ newConnection: created }, 201);
    };
    const listed = routes['GET /api/provider/connections']!;
    routes['GET /api/provider/connections'] = (body, url) =>
      created ? ok([connection('a'), connection('b'), { ...created, thisMonth: monthUsage({ requests: 0, costMicros: 0n, costUsdMicros: 0n }) }]) : listed(body, url);
    routes['GET /api/provider/connections/:id/usage'] = () =>
      ok(usageTotals({ requests: 0, costMicros: 0n, costUsdMicros: 0n }, { teamId: TEAM, connectionId: 'c' }));
    const user = userEvent.setup();
    await renderInSite(<AiConnectionsScreen />);
    await user.click(await screen.findByRole('button', { name: 'Add connection' }));
    const form = within(screen.getByRole('form', { name: 'Add a connection' }));
    await user.selectOptions(form.getByLabelText(/Provider/), 'azure-openai');
    expect(form.getByText('Requests name the Azure deployment as their model.')).toBeTruthy();

    await user.click(form.getByRole('button', { name: 'Add connection' }));
    expect(form.getByText('Name the connection')).toBeTruthy();
    expect(form.getByText('Enter the API key')).toBeTruthy();
    expect(form.getByText('Enter the base URL: Azure OpenAI has no default')).toBeTruthy();
    expect(calls.some((call) => call.method === 'POST')).toBe(false);

    await user.type(form.getByLabelText(/Name/), 'Azure EU');
    await user.type(form.getByLabelText(/API key/), 'wrong');
    await user.type(form.getByLabelText(/Base URL/), 'https://r.openai.azure.com');
    await user.type(form.getByLabelText('API version'), '2025-01-01-preview');
    await user.click(form.getByRole('button', { name: 'Test connection' }));
    expect((await form.findByRole('alert')).textContent).toBe('Azure OpenAI refused the API key (HTTP 401)');
    await user.clear(form.getByLabelText(/API key/));
    await user.type(form.getByLabelText(/API key/), 'az-key');
    await user.click(form.getByRole('button', { name: 'Test connection' }));
    expect((await form.findByRole('status')).textContent).toBe('Connection works: Azure OpenAI answered in 42 ms.');
    expect(calls.filter((call) => call.path === '/api/provider/test/connection').at(-1)!.body).toEqual({
      teamId: TEAM,
      provider: 'azure-openai',
      apiKey: 'az-key',
      baseUrl: 'https://r.openai.azure.com',
    });

    await user.click(form.getByRole('button', { name: 'Add connection' }));
    expect(await screen.findByRole('heading', { name: 'Azure EU' })).toBeTruthy();
    expect(calls.find((call) => call.path === '/api/provider/connections' && call.method === 'POST')!.body).toEqual({
      teamId: TEAM,
      provider: 'azure-openai',
      name: 'Azure EU',
      apiKey: 'az-key',
      baseUrl: 'https://r.openai.azure.com',
      options: { apiVersion: '2025-01-01-preview' },
    });
    // The new connection is open: its usage panel shows.
    expect(await screen.findByText(/No requests went through this connection/)).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Add a connection' })).toBeNull();
  });

  it('edits a connection: the stored key is kept unless a new one is typed, and the list shows the answer', async () => {
    routes['PUT /api/provider/connections/:id'] = (body) => ok({ ...connection('a'), ...(body as Partial<Connection>), apiKeyTail: '••••wxyz' });
    routes['GET /api/provider/connections/:id/usage'] = () => jsonResponse(500, {});
    const user = userEvent.setup();
    await renderInSite(<AiConnectionsScreen />);
    await user.click(within(await card('Prod a')).getByRole('button', { name: 'Edit' }));
    const form = within(screen.getByRole('form', { name: 'Edit Prod a' }));
    expect((form.getByLabelText(/Provider/) as HTMLSelectElement).disabled).toBe(true);
    expect(form.getByText('Stored as ••••wxyz. Leave empty to keep it.')).toBeTruthy();
    await user.click(form.getByRole('button', { name: 'Save changes' }));
    expect(form.getByRole('alert').textContent).toBe('Nothing to save: change a field first.');
    await user.clear(form.getByLabelText(/Name/));
    await user.type(form.getByLabelText(/Name/), 'Prod EU');
    await user.click(form.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByRole('heading', { name: 'Prod EU' })).toBeTruthy();
    expect(calls.find((call) => call.method === 'PUT')).toMatchObject({ path: '/api/provider/connections/a', body: { name: 'Prod EU' } });
    // The open connection's usage panel says why its usage could not be loaded.
    expect((await screen.findByText('Failed to fetch usage')).closest('[role="alert"]')).toBeTruthy();
  });

  it("adds a team's own model server without a key through POST /provider", async () => {
    providers.push({
      id: 'openai-compatible',
      name: 'OpenAI-compatible endpoint (self-hosted)',
      format: 'openai',
      authFields: [{ name: 'apiKey', label: 'API key', type: 'secret', required: false }],
      baseUrl: { default: null, required: true, rules: 'http(s) only' },
      models: [],
      optionFields: [],
    });
    routes['POST /api/provider'] = (body) => ok({ ...connection('m'), ...(body as Partial<Connection>), provider: 'openai-compatible', apiKeyTail: '••••' }, 201);
    const user = userEvent.setup();
    try {
      await renderInSite(<AiConnectionsScreen />);
      await user.click(await screen.findByRole('button', { name: 'Add connection' }));
      const form = within(screen.getByRole('form', { name: 'Add a connection' }));
      await user.selectOptions(form.getByLabelText(/Provider/), 'openai-compatible');
      expect(form.getByText('Optional: many self-hosted servers take no key.')).toBeTruthy();
      await user.type(form.getByLabelText(/Name/), 'Ollama');
      await user.type(form.getByLabelText(/Base URL/), 'http://10.0.0.5:11434/v1');
      await user.click(form.getByRole('button', { name: 'Add connection' }));
      await waitFor(() => expect(calls.some((call) => call.method === 'POST' && call.path === '/api/provider')).toBe(true));
      expect(calls.find((call) => call.path === '/api/provider' && call.method === 'POST')!.body).toEqual({ teamId: TEAM, name: 'Ollama', baseUrl: 'http://10.0.0.5:11434/v1' });
    } finally {
      providers.pop();
    }
  });

  it('a member who is not a team admin sees the connections without the actions', async () => {
    routes['GET /api/team/'] = () => ok([{ id: TEAM, name: 'Platform', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'MEMBER' }]);
    await renderInSite(<AiConnectionsScreen />);
    const first = within(await card('Prod a'));
    expect(first.getByRole('button', { name: 'Usage' })).toBeTruthy();
    expect(first.queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(first.queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add connection' })).toBeNull();
  });
});
