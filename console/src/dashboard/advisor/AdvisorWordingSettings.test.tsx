// @vitest-environment happy-dom
// The advisor's wording setting against a stubbed API: off by default, checked before any
// call (a connection to choose, a model to name), saved as the server takes it, the server's
// refusal shown, and the operator's upstream offered only where the deployment has one.
import { cleanup, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdvisorWordingSetting } from '../../api/advisor/types.ts';
import { saveSession } from '../../shared/session.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { AdvisorWordingSettings } from './AdvisorWordingSettings.tsx';

const TEAM = '00000000-0000-4000-8000-0000000000c1';
const WRITER = '00000000-0000-4000-8000-0000000000e1';
const off: AdvisorWordingSetting = { teamId: TEAM, enabled: false, source: 'connection', connectionId: null, model: 'gpt-4o-mini', operatorAvailable: true, updatedAt: null };
const connection = (id: string, teamId: string, name: string) => ({
  id, teamId, provider: 'openai', name, baseUrl: 'https://api.openai.com/v1', baseUrlProblem: null, status: 'active', options: {}, apiKeyTail: '••••abcd', createdAt: '2026-11-01T00:00:00.000Z', thisMonth: null,
});
const ok = (data: unknown) => jsonResponse(200, { success: true, data, message: 'OK' });

/** A stubbed API answering the setting, the connections (one of another team) and each PUT with `put`. */
function stubApi(setting: AdvisorWordingSetting, put: (body: Record<string, unknown>) => Response) {
  const puts: Record<string, unknown>[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn<typeof fetch>(async (input, init) => {
      const key = `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}`;
      if (key === `GET /api/usage/ai-advisor/wording/${TEAM}`) return ok(setting);
      if (key === 'GET /api/provider/connections') return ok([connection(WRITER, TEAM, 'Writer'), connection('00000000-0000-4000-8000-0000000000e2', 'other-team', 'Elsewhere')]);
      if (key === `PUT /api/usage/ai-advisor/wording/${TEAM}`) {
        puts.push(JSON.parse(String(init!.body)));
        return put(puts.at(-1)!);
      }
      throw new Error(`unexpected call ${key}`);
    }),
  );
  return puts;
}

beforeEach(() => {
  localStorage.clear();
  saveSession('jwt-ada', { id: '00000000-0000-4000-8000-00000000000a', email: 'ada@example.com', name: 'Ada', avatar: null, emailVerified: true });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('AI advisor wording setting', () => {
  it('is off by default, asks for a connection before calling, and saves the team’s choice', async () => {
    const puts = stubApi(off, (body) => ok({ ...off, ...body, updatedAt: '2026-11-20T10:00:00.000Z' }));
    await renderInSite(<AdvisorWordingSettings teamId={TEAM} />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'AI advisor wording' });
    const check = within(form).getByRole('checkbox', { name: 'Word tips with a model' }) as HTMLInputElement;
    expect(check.checked).toBe(false);
    // Only the team's own connections are offered.
    const select = within(form).getByLabelText('Connection');
    await within(select).findByRole('option', { name: 'Writer (openai)' });
    expect(within(select).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose a connection', 'Writer (openai)']);

    await user.click(check);
    await user.click(within(form).getByRole('button', { name: 'Save wording' }));
    expect(within(form).getByText('Choose one of your connections')).toBeTruthy();
    expect(select.getAttribute('aria-invalid')).toBe('true');
    await user.clear(within(form).getByLabelText('Model'));
    await user.click(within(form).getByRole('button', { name: 'Save wording' }));
    expect(within(form).getByText('Enter the model that words the tips')).toBeTruthy();
    expect(puts).toEqual([]);

    await user.selectOptions(select, WRITER);
    await user.type(within(form).getByLabelText('Model'), ' gpt-4o-mini ');
    await user.click(within(form).getByRole('button', { name: 'Save wording' }));
    expect((await within(form).findByRole('status')).textContent).toBe('Tips will be worded by gpt-4o-mini.');
    expect(puts).toEqual([{ enabled: true, source: 'connection', connectionId: WRITER, model: 'gpt-4o-mini' }]);

    // Through the operator's upstream: no connection is sent.
    await user.click(within(form).getByRole('radio', { name: "Spendgate's optimised upstream" }));
    expect(within(form).queryByLabelText('Connection')).toBeNull();
    await user.click(within(form).getByRole('button', { name: 'Save wording' }));
    await vi.waitFor(() => expect(puts).toHaveLength(2));
    expect(puts[1]).toEqual({ enabled: true, source: 'operator', connectionId: null, model: 'gpt-4o-mini' });
  });

  it('shows the server’s refusal, and offers the operator’s upstream only where there is one', async () => {
    stubApi({ ...off, operatorAvailable: false }, () =>
      jsonResponse(400, { success: false, message: 'model: the operator’s upstream does not serve no-such-model', field: 'model' }),
    );
    await renderInSite(<AdvisorWordingSettings teamId={TEAM} />);
    const user = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'AI advisor wording' });
    const operator = within(form).getByRole('radio', { name: "Spendgate's optimised upstream (not offered here)" }) as HTMLInputElement;
    expect(operator.disabled).toBe(true);
    await user.click(within(form).getByRole('button', { name: 'Save wording' }));
    expect((await within(form).findByRole('alert')).textContent).toBe('model: the operator’s upstream does not serve no-such-model');
  });
});
