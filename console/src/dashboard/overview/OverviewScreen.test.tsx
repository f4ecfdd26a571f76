// @vitest-environment happy-dom
// The overview against a stubbed API: the checklist ticked from the team and its
// overview, the snippets (placeholder, or the key just issued), the page updating by
// itself when the first request is recorded (the usage panels then replace the demo
// offer; UsageOverview.test.tsx tests them), and the fallback message when it fails.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { issueKeyMutation } from '../../api/keys/mutations.ts';
import type { TeamOverview } from '../../api/overview/types.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { OverviewScreen } from './OverviewScreen.tsx';
import { KEY_PLACEHOLDER } from './onboarding.ts';

const TEAM = { id: '11111111-1111-4111-8111-111111111111', name: 'Platform', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'ADMIN' };
/** The setup's answer (GET /usage/team); the usage panels read the rollup calls, stubbed here empty. */
const overview = (setup: Partial<TeamOverview['setup']>) => ({
  teamId: TEAM.id,
  setup: { connections: 0, groups: 0, keys: 0, firstRequestAt: null, ...setup },
  demo: null,
  thisMonth: null,
  daily: [],
});
const USAGE_SCOPE = { teamId: TEAM.id, startDate: '2026-10-28', endDate: '2026-11-26', timeZone: 'UTC' };
const AMOUNTS = {
  currency: 'GBP',
  totalCost: '0.004500',
  totalCostMicros: '4500',
  costCurrencyUsd: 'USD',
  totalCostUsd: '0.005700',
  totalCostUsdMicros: '5700',
  billedCost: '0.000000',
  requests: 3,
  errors: 0,
  totalTokens: 60,
  inputTokens: 36,
  cachedReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 24,
  reasoningTokens: 0,
  unpricedRequests: 0,
  estimatedRequests: 0,
};
const USAGE_ANSWERS: Record<string, unknown> = {
  '/api/usage/group/specific': { ...USAGE_SCOPE, ...AMOUNTS, latencyP50Ms: 300, latencyP95Ms: 500 },
  '/api/usage/cost/group': { ...USAGE_SCOPE, ...AMOUNTS, granularity: 'day', series: [] },
  '/api/usage/cost/group/specific': { ...USAGE_SCOPE, currency: 'GBP', thisMonth: { total: '0.004500', days: [] }, lastMonth: null },
  '/api/usage/distribution/group': { ...USAGE_SCOPE, by: 'model', currency: 'GBP', totalCost: '0.004500', items: [] },
  '/api/usage/requests': { ...USAGE_SCOPE, items: [], nextCursor: null },
};

let teams: unknown[];
let answer: () => Response;
const ok = (data: unknown) => jsonResponse(200, { success: true, data, message: 'ok' });

beforeEach(() => {
  teams = [TEAM];
  answer = () => ok(overview({ connections: 1, groups: 1 }));
  localStorage.setItem('token', 'a-token');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(String(input), 'http://console.test');
      if (url.pathname === '/api/team/') return ok(teams);
      if (url.pathname === '/api/usage/team' && url.searchParams.get('teamId') === TEAM.id) return answer();
      if (url.pathname in USAGE_ANSWERS) return ok(USAGE_ANSWERS[url.pathname]);
      if (url.pathname === '/api/synthetic-group/provider-key/create/group-1') return ok({ key: 'sg_live_just_issued_123', providerKey: { id: 'k' } });
      if (url.pathname.startsWith('/api/synthetic-group')) return ok([]);
      return jsonResponse(404, { success: false, data: null, message: `no stub for ${url.pathname}` });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

const step = (title: string) => screen.getAllByRole('listitem').find((item) => item.querySelector('.checklist__title')?.textContent?.endsWith(title)) as HTMLElement;

describe('OverviewScreen', () => {
  it('asks a user without a team to create or join one first', async () => {
    teams = [];
    await renderInSite(<OverviewScreen />);
    expect(await screen.findByText('0 of 5 done')).toBeTruthy();
    expect(within(step('Create or join a team')).getByRole('link', { name: 'Set up your team' }).getAttribute('href')).toBe('/dashboard/settings/team');
    expect(screen.queryByLabelText('OpenAI SDK (openai)')).toBeNull();
  });

  it('ticks the steps the team has done and links the next one', async () => {
    await renderInSite(<OverviewScreen />);
    expect(await screen.findByText('3 of 5 done')).toBeTruthy();
    expect(step('Create or join a team').textContent).toContain('Done: ');
    expect(step('Connect a provider').textContent).toContain('Done: ');
    expect(step('Create a group').textContent).toContain('Done: ');
    expect(step('Issue a key').textContent).toContain('To do: ');
    expect(within(step('Issue a key')).getByRole('link', { name: 'Issue a key' }).getAttribute('href')).toBe('/dashboard/synthetic-groups');
    expect(step('Send a first request').textContent).toContain('To do: ');
    expect(screen.queryByRole('heading', { name: 'Usage in this range' })).toBeNull();
  });

  it('tells a team member who may not add connections to ask a team admin', async () => {
    teams = [{ ...TEAM, role: 'MEMBER' }];
    answer = () => ok(overview({}));
    await renderInSite(<OverviewScreen />);
    expect(await screen.findByText('1 of 5 done')).toBeTruthy();
    expect(within(step('Connect a provider')).getByText('A team admin connects the provider accounts your team uses: ask one to add them.')).toBeTruthy();
    expect(within(step('Connect a provider')).queryByRole('link')).toBeNull();
    expect(within(step('Create a group')).getByRole('link', { name: 'Create a group' }).className).toContain('button--primary');
  });

  it('gives snippets for both SDKs with the gateway URL and a marked placeholder key', async () => {
    await renderInSite(<OverviewScreen />);
    const openai = (await screen.findByLabelText('OpenAI SDK (openai)')) as HTMLTextAreaElement;
    expect(openai.value).toContain(`new OpenAI({ baseURL: '${window.location.origin}/v1', apiKey: '${KEY_PLACEHOLDER}' })`);
    const anthropic = screen.getByLabelText('Anthropic SDK (@anthropic-ai/sdk)') as HTMLTextAreaElement;
    expect(anthropic.value).toContain(`new Anthropic({ baseURL: '${window.location.origin}', apiKey: '${KEY_PLACEHOLDER}' })`);
    expect(screen.getByText(`Replace ${KEY_PLACEHOLDER}`)).toBeTruthy();
  });

  it('puts a key issued in this session into the snippets', async () => {
    const { queryClient } = await renderInSite(<OverviewScreen />);
    await screen.findByLabelText('OpenAI SDK (openai)');
    // Issued as the group's key screen issues it (dashboard/keys), through the same mutation.
    await queryClient.getMutationCache().build(queryClient, issueKeyMutation(queryClient, 'group-1')).execute({ name: 'Checkout', kind: 'optimised' });
    await waitFor(() => expect((screen.getByLabelText('OpenAI SDK (openai)') as HTMLTextAreaElement).value).toContain("apiKey: 'sg_live_just_issued_123'"));
    expect(screen.getByText(/These snippets hold the key you just issued/)).toBeTruthy();
    expect(screen.queryByText(`Replace ${KEY_PLACEHOLDER}`)).toBeNull();
  });

  it('shows the first request without a reload, then the usage panels in place of the checklist and the demo offer', async () => {
    answer = () => ok(overview({ connections: 1, groups: 1, keys: 1 }));
    await renderInSite(<OverviewScreen />);
    expect(await screen.findByText('4 of 5 done')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Load demo data' })).toBeTruthy();
    answer = () => ok(overview({ connections: 1, groups: 1, keys: 1, firstRequestAt: '2026-11-03T10:00:00.000Z' }));
    // The overview polls while the setup is incomplete (every 2 s).
    const heading = await screen.findByRole('heading', { name: 'Usage in this range' }, { timeout: 5_000 });
    expect(screen.queryByText('Get started')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Load demo data' })).toBeNull();
    const figures = within(heading.closest('section') as HTMLElement);
    const figure = (term: string) => figures.getByText(term, { selector: 'dt' }).nextElementSibling?.textContent;
    await figures.findByText('Requests', { selector: 'dt' });
    expect(figure('Requests')).toBe('3');
    expect(figure('Spend')).toBe('£0.0045');
    expect(figure('List price')).toBe('$0.0057');
  });

  it('says why the overview failed and retries', async () => {
    answer = () => jsonResponse(500, {});
    const user = userEvent.setup();
    await renderInSite(<OverviewScreen />);
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to fetch usage');
    answer = () => ok(overview({ connections: 1 }));
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('2 of 5 done')).toBeTruthy();
  });
});
