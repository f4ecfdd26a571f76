// @vitest-environment happy-dom
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Budget } from '../../api/budgets/types.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { TeamBudget } from './BudgetEntries.tsx';

const TEAM_ID = '0b8a2b0e-9a8f-4a63-9a53-b2f1c2d3e4f5';
const monthly: Budget = {
  id: 'b0000000-0000-4000-8000-000000000001',
  teamId: TEAM_ID,
  scope: 'team',
  scopeId: TEAM_ID,
  currency: 'GBP',
  amount: '10.000000',
  window: 'month',
  mode: 'hard',
  alertAt: [50, 80, 100],
  spent: '4.200000',
  reserved: '0.300000',
  remaining: '5.800000',
  resetsAt: '2026-12-01T00:00:00.000Z',
  unpricedModels: 'refused',
};

function fakeApi({ teamRole = 'ADMIN', budgets = [monthly] }: { teamRole?: string; budgets?: Budget[] } = {}) {
  let stored = budgets;
  const writes: { method: string; url: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn<typeof fetch>(async (input, init) => {
      const url = String(input);
      const method = init?.method ?? 'GET';
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      if (method !== 'GET') writes.push({ method, url, body });
      if (url === '/api/team/') {
        return jsonResponse(200, { success: true, data: [{ id: TEAM_ID, name: 'Acme', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: teamRole }], message: '' });
      }
      if (method === 'GET' && url === `/api/budgets?scope=team&scopeId=${TEAM_ID}`) return jsonResponse(200, { success: true, data: stored, message: '' });
      if (method === 'POST' && url === '/api/budgets') {
        const created: Budget = { ...monthly, id: 'b0000000-0000-4000-8000-000000000002', ...body, amount: '25.500000', spent: '0.000000', reserved: '0.000000', remaining: '25.500000' };
        stored = [...stored, created];
        return jsonResponse(201, { success: true, data: created, message: 'Budget created' });
      }
      if (method === 'PATCH') {
        stored = stored.map((budget) => (url.includes(budget.id) ? { ...budget, ...body, amount: '12.000000' } : budget));
        return jsonResponse(200, { success: true, data: stored[0], message: 'Budget updated' });
      }
      if (method === 'DELETE') {
        stored = stored.filter((budget) => !url.includes(budget.id));
        return jsonResponse(200, { success: true, data: null, message: 'Budget deleted' });
      }
      return jsonResponse(404, { success: false, message: `unexpected ${method} ${url}` });
    }),
  );
  return writes;
}

beforeEach(() => localStorage.setItem('token', 'session-token'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('TeamBudget', () => {
  it('shows spent and reserved against the cap, what remains in pounds, the reset time and the alerts', async () => {
    fakeApi({ teamRole: 'MEMBER' });
    await renderInSite(<TeamBudget />);
    const card = await screen.findByRole('article', { name: '£10.00 monthly budget' });
    const bar = within(card).getByRole('progressbar', { name: 'Spend against the £10.00 monthly budget' });
    expect(bar.getAttribute('aria-valuenow')).toBe('45');
    expect(bar.getAttribute('aria-valuetext')).toBe('45%: £4.20 spent, £0.30 reserved of £10.00');
    expect(card.textContent).toContain('Hard cap');
    expect(card.textContent).toContain('Remaining£5.80');
    expect(card.textContent).toContain('Resets1 Dec 2026, 00:00 (UTC)');
    expect(card.textContent).toContain('Alerts at50%, 80%, 100%');
    // Only team admins manage budgets.
    expect(within(card).queryByRole('button', { name: /Edit|Delete/ })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add budget' })).toBeNull();
    expect(screen.getByText('Read only: team admins set and change budgets.')).toBeTruthy();
  });

  it('checks a new budget before sending it, then sends the exact amount', async () => {
    const writes = fakeApi({ budgets: [] });
    await renderInSite(<TeamBudget teamId={TEAM_ID} />);
    const user = userEvent.setup();
    expect(await screen.findByText('No budget: spend here is not capped.')).toBeTruthy();
    expect(screen.queryByText('Read only: team admins set and change budgets.')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Add budget' }));
    const form = screen.getByRole('form', { name: 'New budget' });
    await user.type(within(form).getByLabelText('Amount (£)'), '0');
    await user.clear(within(form).getByLabelText('Alert at (% of the amount)'));
    await user.type(within(form).getByLabelText('Alert at (% of the amount)'), '50, 2000');
    await user.click(within(form).getByRole('button', { name: 'Create budget' }));
    expect(within(form).getByText('Amount must be more than 0')).toBeTruthy();
    expect(within(form).getByText('Alert thresholds must be whole percentages from 1 to 1000')).toBeTruthy();
    expect(writes).toEqual([]);

    await user.clear(within(form).getByLabelText('Amount (£)'));
    await user.type(within(form).getByLabelText('Amount (£)'), '25.50');
    await user.clear(within(form).getByLabelText('Alert at (% of the amount)'));
    await user.type(within(form).getByLabelText('Alert at (% of the amount)'), '90');
    await user.selectOptions(within(form).getByLabelText('Window'), 'day');
    await user.click(within(form).getByRole('button', { name: 'Create budget' }));
    expect(await screen.findByRole('article', { name: '£25.50 daily budget' })).toBeTruthy();
    expect(writes).toEqual([{ method: 'POST', url: '/api/budgets', body: { scope: 'team', scopeId: TEAM_ID, amount: '25.50', window: 'day', mode: 'hard', alertAt: [90] } }]);
  });

  it('edits a budget and deletes it after confirmation', async () => {
    const writes = fakeApi();
    await renderInSite(<TeamBudget />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit the £10.00 monthly budget' }));
    const form = screen.getByRole('form', { name: 'Edit the £10.00 monthly budget' });
    expect((within(form).getByLabelText('Amount (£)') as HTMLInputElement).value).toBe('10');
    await user.clear(within(form).getByLabelText('Amount (£)'));
    await user.type(within(form).getByLabelText('Amount (£)'), '12');
    await user.click(within(form).getByRole('button', { name: 'Save budget' }));
    await user.click(await screen.findByRole('button', { name: 'Delete the £12.00 monthly budget' }));
    await user.click(within(screen.getByRole('dialog', { name: 'Delete the £12.00 monthly budget?' })).getByRole('button', { name: 'Delete budget' }));
    expect(await screen.findByText('No budget: spend here is not capped.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(writes).toEqual([
      { method: 'PATCH', url: `/api/budgets/${monthly.id}?teamId=${TEAM_ID}`, body: { amount: '12', window: 'month', mode: 'hard', alertAt: [50, 80, 100] } },
      { method: 'DELETE', url: `/api/budgets/${monthly.id}?teamId=${TEAM_ID}`, body: undefined },
    ]);
  });
});
