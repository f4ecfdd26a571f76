// @vitest-environment happy-dom
// The overview of a team with usage against a stubbed API (answers shaped as the usage
// calls answer, spec §7): each panel's figures exact from the answers, unpriced requests
// never shown as £0, the filters read from and written to the URL and sent to every
// call, each panel's loading, error (spec §8 fallbacks) and empty state, the export
// fetched with the session's token and saved as a Blob, and the demo button of an
// empty team switching to the team it made, whose sample usage is shown landing day by
// day without a reload. The month's forecast sits among the panels
// (the team's, or the group's when filtered to one). A team member who is not its admin
// sees one of their groups (their first, or the URL's), picked among those groups only.
import { microsToDecimalString } from '@spendgate/core';
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestLogItem, UsageDistribution } from '../../api/usage/types.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { readOverviewSearch, usageFiltersOf, withFilter } from './filters.ts';
import { OverviewScreen } from './OverviewScreen.tsx';

const TEAM = { id: '11111111-1111-4111-8111-111111111111', name: 'Platform', description: '', timeZone: 'Europe/London', createdAt: '2026-11-01T00:00:00.000Z', role: 'ADMIN' };
const DEMO_TEAM_ID = '22222222-2222-4222-8222-222222222222';
const KEY_ID = '33333333-3333-4333-8333-333333333333';
const GROUP_ID = '44444444-4444-4444-8444-444444444444';
const OTHER_GROUP_ID = '66666666-6666-4666-8666-666666666666';
const scope = { teamId: TEAM.id, startDate: '2026-10-28', endDate: '2026-11-26', timeZone: 'Europe/London' };
const amount = (micros: bigint) => microsToDecimalString(micros);

/** Totals: 2^53 + 1 micro-pounds, beyond a float's exact integers, must still read exactly. */
const SPEND_MICROS = 2n ** 53n + 1n;
const summary = {
  ...scope,
  currency: 'GBP',
  totalCost: amount(SPEND_MICROS),
  totalCostMicros: SPEND_MICROS.toString(),
  costCurrencyUsd: 'USD',
  totalCostUsd: '12.345678',
  totalCostUsdMicros: '12345678',
  billedCost: '0.000000',
  requests: 1234,
  errors: 5,
  totalTokens: 9100,
  inputTokens: 5000,
  cachedReadTokens: 2000,
  cacheWriteTokens: 100,
  outputTokens: 1800,
  reasoningTokens: 200,
  unpricedRequests: 7,
  estimatedRequests: 2,
  latencyP50Ms: 420,
  latencyP95Ms: 1900,
};
const series = {
  ...summary,
  granularity: 'day',
  series: [
    { date: '2026-11-25', cost: '0.000000', costUsd: '0.000000', requests: 0, totalTokens: 0 },
    { date: '2026-11-26', cost: '1.250000', costUsd: '1.580000', requests: 12, totalTokens: 480 },
  ],
};
const month = {
  ...scope,
  currency: 'GBP',
  thisMonth: { total: '3.500000', days: [{ date: '2026-11-01', cost: '1.000000', cumulativeCost: '1.000000' }, { date: '2026-11-02', cost: '2.500000', cumulativeCost: '3.500000' }] },
  lastMonth: { total: '9.000000', days: [{ date: '2026-10-01', cost: '4.000000', cumulativeCost: '4.000000' }, { date: '2026-10-02', cost: '5.000000', cumulativeCost: '9.000000' }] },
};
const distribution = (by: UsageDistribution['by']): UsageDistribution => ({
  ...scope,
  by,
  currency: 'GBP',
  totalCost: '3.000000',
  items:
    by === 'key'
      ? [
          { key: KEY_ID, label: 'checkout-service', cost: '2.000000', costUsd: '2.500000', requests: 30, totalTokens: 900, share: 0.6667, unpricedRequests: 0 },
          { key: '55555555-5555-4555-8555-555555555555', label: 'local-llama', cost: '0.000000', costUsd: '0.000000', requests: 4, totalTokens: 80, share: 0, unpricedRequests: 4 },
        ]
      : by === 'model'
        ? [{ key: 'gpt-4o', label: 'gpt-4o', cost: '3.000000', costUsd: '3.750000', requests: 34, totalTokens: 980, share: 1, unpricedRequests: 0 }]
        : [{ key: 'openai', label: 'openai', cost: '3.000000', costUsd: '3.750000', requests: 34, totalTokens: 980, share: 1, unpricedRequests: 0 }],
});
const logItem = (requestId: string, priced: boolean): RequestLogItem => ({
  requestId,
  occurredAt: '2026-11-26T09:15:02.123456Z',
  groupId: GROUP_ID,
  groupName: 'Checkout',
  keyId: KEY_ID,
  keyName: 'checkout-service',
  keyPrefix: 'sg_live_ab',
  keyKind: 'byok',
  provider: 'openai',
  model: priced ? 'gpt-4o' : 'ft:custom-thing',
  endpoint: '/v1/chat/completions',
  route: 'requested',
  statusCode: 200,
  streamed: false,
  estimated: !priced,
  unpriced: !priced,
  inputTokens: 10,
  cachedReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 5,
  reasoningTokens: 0,
  totalTokens: 15,
  currency: 'GBP',
  cost: priced ? '0.004200' : null,
  costUsd: priced ? '0.005300' : null,
  latencyMs: 640,
});

/** The API's answer per path; a test replaces one to fail it or empty it. */
let answers: Record<string, (url: URL) => Response>;
/** Every usage call the page made (but the setup's /usage/team), by path. */
let calls: URL[];
const ok = (data: unknown) => jsonResponse(200, { success: true, data, message: 'ok' });
const group = (id: string, name: string, role: string) => ({ id, teamId: TEAM.id, name, description: '', createdAt: TEAM.createdAt, role, syntheticGroupUsers: [] });
/** No forecast made yet for the scope asked (teamId or groupId), as GET /usage/cost/forecast answers it. */
const noForecast = (url: URL) =>
  ok({ teamId: TEAM.id, groupId: url.searchParams.get('groupId'), period: '2026-11', timeZone: 'Europe/London', forecast: null, budget: null, backtest: null });
const overview = (firstRequestAt: string | null) => ({
  teamId: TEAM.id,
  setup: { connections: 1, groups: 1, keys: 1, firstRequestAt },
  demo: null,
  thisMonth: null,
  daily: [],
});

beforeEach(() => {
  calls = [];
  answers = {
    '/api/team/': () => ok([TEAM]),
    '/api/usage/team': () => ok(overview('2026-11-02T10:00:00.000Z')),
    '/api/usage/freshness': () => ok({ behindSeconds: 0, replicas: [] }),
    '/api/synthetic-group': () => ok([group(GROUP_ID, 'Checkout', 'ADMIN')]),
    '/api/usage/cost/forecast': noForecast,
    '/api/usage/group/specific': () => ok(summary),
    '/api/usage/cost/group': () => ok(series),
    '/api/usage/cost/group/specific': () => ok(month),
    '/api/usage/distribution/group': (url) => ok(distribution(url.searchParams.get('by') as UsageDistribution['by'])),
    '/api/usage/requests': (url) =>
      ok(
        url.searchParams.get('cursor') === 'page-2'
          ? { ...scope, items: [logItem('req-older', true)], nextCursor: null }
          : { ...scope, items: [logItem('req-priced', true), logItem('req-unpriced', false)], nextCursor: 'page-2' },
      ),
  };
  localStorage.setItem('token', 'the-session-token');
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input), 'http://console.test');
      if (url.pathname.startsWith('/api/usage/') && url.pathname !== '/api/usage/team' && url.pathname !== '/api/usage/freshness') calls.push(url);
      if (url.pathname === '/api/usage/export') {
        expect(new Headers(init?.headers).get('authorization')).toBe('Bearer the-session-token');
        return new Response('day,cost\n2026-11-26,1.25\n', { status: 200, headers: { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="platform-usage.csv"' } });
      }
      if (url.pathname === '/api/demo/team' && init?.method === 'POST') {
        return jsonResponse(201, { success: true, data: { teamId: DEMO_TEAM_ID, name: 'Demo team', state: 'filling', days: 90, daysFilled: 0, requests: 0 }, message: 'ok' });
      }
      const answer = answers[url.pathname];
      return answer ? answer(url) : jsonResponse(404, { success: false, data: null, message: `no stub for ${url.pathname}` });
    }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

const panel = async (title: string) => within((await screen.findByRole('heading', { name: title, level: 2 })).closest('section') as HTMLElement);
const figure = (region: ReturnType<typeof within>, term: string) => region.getByText(term, { selector: 'dt' }).nextElementSibling?.textContent;

describe('the overview of a team with usage', () => {
  it('shows each panel’s figures exactly as the API answered them', async () => {
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    const totals = await panel('Usage in this range');
    await totals.findByText('Spend', { selector: 'dt' });
    expect(figure(totals, 'Spend')).toBe('£9007199254.740993');
    expect(figure(totals, 'List price')).toBe('$12.345678');
    expect(figure(totals, 'Requests')).toBe('1,234');
    expect(figure(totals, 'Errors')).toBe('5');
    expect(figure(totals, 'Latency p50 / p95')).toBe('420 / 1,900 ms');
    expect(totals.getByText(/7 requests are unpriced:/).closest('p')?.textContent).toContain('not in the spend above (which is for the 1,227 priced requests)');
    expect(totals.getByText(/2 requests are estimated:/)).toBeTruthy();

    const spend = await panel('Spend over time');
    expect(await spend.findByRole('img', { name: 'Spend per day from 2026-10-28 to 2026-11-26: £9007199254.740993 in all' })).toBeTruthy();
    // The table lists the days with requests, GBP and USD exact.
    expect(spend.getByRole('row', { name: '2026-11-26 £1.25 $1.58 12 480' })).toBeTruthy();
    expect(spend.queryByRole('row', { name: /2026-11-25/ })).toBeNull();

    // The team's forecast, not made yet for this team.
    expect(await (await panel('Forecast: November 2026')).findByText(/^No forecast yet/)).toBeTruthy();
    expect(Object.fromEntries(calls.find((url) => url.pathname === '/api/usage/cost/forecast')!.searchParams)).toEqual({ teamId: TEAM.id });

    const thisMonth = await panel('This month against last');
    expect(thisMonth.getByRole('img', { name: 'Spend this month, day by day and cumulative: £3.50, against £9.00 last month' })).toBeTruthy();
    expect(thisMonth.getByRole('row', { name: '2 £3.50 £9.00' })).toBeTruthy();

    const tokens = await panel('Tokens by category');
    for (const row of ['Input 5,000', 'Cached read 2,000', 'Cache write 100', 'Output 1,800', 'Reasoning 200']) expect(tokens.getByRole('row', { name: row })).toBeTruthy();

    const keys = await panel('Top keys');
    expect(await keys.findByRole('row', { name: 'checkout-service £2.00 $2.50 30 900 66.7%' })).toBeTruthy();
    // A key whose every request is unpriced costs "Unpriced", never £0.
    expect(keys.getByRole('row', { name: 'local-llama Unpriced Unpriced 4 80 0.0%' })).toBeTruthy();
    expect((await panel('Spend by model')).getByRole('row', { name: 'gpt-4o £3.00 $3.75 34 980 100.0%' })).toBeTruthy();
    expect((await panel('Spend by provider')).getByRole('row', { name: 'openai £3.00 $3.75 34 980 100.0%' })).toBeTruthy();
  });

  it('says how far behind the figures are when a lagging replica serves them, and shows the admin each replica’s lag', async () => {
    answers['/api/usage/freshness'] = () => ok({ behindSeconds: 12.4, replicas: [{ lagSeconds: 12.4, serving: true }, { lagSeconds: null, serving: false }] });
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    const notice = await screen.findByText(/^Figures are/);
    expect(notice.getAttribute('role')).toBe('status');
    expect(notice.textContent).toBe('Figures are 12 s behind: they are read from a copy of the database that is catching up.');
    expect(screen.getByText('Database replica lag: 12.4 s, unreachable')).toBeTruthy();
  });

  it('says nothing of freshness when the figures are at most a few seconds behind, nor without replicas', async () => {
    answers['/api/usage/freshness'] = () => ok({ behindSeconds: 3, replicas: [{ lagSeconds: 3, serving: true }] });
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    await screen.findByText('Database replica lag: 3.0 s');
    expect(screen.queryByText(/^Figures are/)).toBeNull();
  });

  it('pages the request log, links each request to its detail and never shows an unpriced one as £0', async () => {
    const user = userEvent.setup();
    const { router } = await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    const log = await panel('Requests');
    const priced = await log.findByRole('link', { name: 'Request req-priced at 2026-11-26 09:15:02' });
    expect(priced.getAttribute('href')).toBe('/dashboard/requests/req-priced');
    // A router link: clicked, the page moves without a reload.
    await user.click(priced);
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard/requests/req-priced'));
    await router.history.back();
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    const unpricedRow = log.getByRole('link', { name: /req-unpriced/ }).closest('tr') as HTMLElement;
    expect(within(unpricedRow).getByText('Unpriced')).toBeTruthy();
    expect(within(unpricedRow).getByText('Estimated')).toBeTruthy();
    expect(unpricedRow.textContent).not.toContain('£0');
    expect(within(priced.closest('tr') as HTMLElement).getByText('£0.0042')).toBeTruthy();

    await user.click(log.getByRole('button', { name: 'Show older requests' }));
    expect(await log.findByRole('link', { name: /req-older/ })).toBeTruthy();
    expect(calls.filter((url) => url.pathname === '/api/usage/requests').map((url) => url.searchParams.get('cursor'))).toContain('page-2');
    expect(log.queryByRole('button', { name: 'Show older requests' })).toBeNull();
  });

  it('reads its filters from the URL, sends them to every usage call and writes a change back to the URL', async () => {
    const user = userEvent.setup();
    const { router } = await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}&start=2026-11-01&end=2026-11-20&model=gpt-4o&key=not-a-key&granularity=week` });
    await panel('Spend over time');
    await waitFor(() => expect(calls.length).toBeGreaterThan(5));
    // The forecast is the team's month, whatever the filters (checked on its own below).
    for (const url of calls.filter((call) => call.pathname !== '/api/usage/cost/forecast')) {
      expect(url.searchParams.get('teamId'), url.pathname).toBe(TEAM.id);
      expect(url.searchParams.get('model'), url.pathname).toBe('gpt-4o');
      // A malformed key id is dropped, not sent to fail.
      expect(url.searchParams.has('keyId'), url.pathname).toBe(false);
      // This month against last ignores the range: it is the calendar's months.
      if (url.pathname === '/api/usage/cost/group/specific') expect(url.searchParams.has('startDate')).toBe(false);
      else expect([url.searchParams.get('startDate'), url.searchParams.get('endDate')], url.pathname).toEqual(['2026-11-01', '2026-11-20']);
    }
    expect(calls.find((url) => url.pathname === '/api/usage/cost/group')?.searchParams.get('granularity')).toBe('day');
    expect((screen.getByLabelText('From') as HTMLInputElement).value).toBe('2026-11-01');
    expect((screen.getByLabelText('Model') as HTMLSelectElement).value).toBe('gpt-4o');

    calls = [];
    // Filtered to a group, the forecast is the group's.
    await user.selectOptions(screen.getByLabelText('Group'), GROUP_ID);
    await waitFor(() => expect(calls.some((url) => url.pathname === '/api/usage/cost/forecast' && url.searchParams.get('groupId') === GROUP_ID)).toBe(true));
    await user.selectOptions(screen.getByLabelText('Group'), '');

    calls = [];
    await user.selectOptions(screen.getByLabelText('Provider'), 'openai');
    await waitFor(() => expect(router.state.location.search).toMatchObject({ team: TEAM.id, provider: 'openai', model: 'gpt-4o', start: '2026-11-01' }));
    await waitFor(() => expect(calls.some((url) => url.pathname === '/api/usage/group/specific' && url.searchParams.get('provider') === 'openai')).toBe(true));

    await user.selectOptions(screen.getByLabelText('Granularity'), 'hour');
    await waitFor(() => expect(calls.some((url) => url.pathname === '/api/usage/cost/group' && url.searchParams.get('granularity') === 'hour')).toBe(true));
    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ team: TEAM.id }));
  });

  it('shows each panel’s spec §8 fallback when its call fails, and the others still', async () => {
    for (const path of ['/api/usage/group/specific', '/api/usage/cost/group', '/api/usage/cost/group/specific', '/api/usage/distribution/group', '/api/usage/requests']) {
      answers[path] = () => jsonResponse(500, {});
    }
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    const failed = async (title: string) => (await (await panel(title)).findByRole('alert')).textContent;
    expect(await failed('Usage in this range')).toContain('Failed to fetch usage');
    expect(await failed('Spend over time')).toContain('Failed to fetch chart cost data');
    expect(await failed('This month against last')).toContain('Failed to fetch chart cost data for this month');
    expect(await failed('Spend by model')).toContain('Failed to fetch cost');
    expect(await failed('Top keys')).toContain('Failed to fetch cost');
    expect(await failed('Requests')).toContain('Failed to fetch usage');
  });

  it('says a range without requests has none, and a range beyond the look-back names the limit', async () => {
    answers['/api/usage/cost/group'] = () => ok({ ...series, requests: 0, series: series.series.map((point) => ({ ...point, cost: '0.000000', requests: 0 })) });
    answers['/api/usage/distribution/group'] = (url) => ok({ ...distribution(url.searchParams.get('by') as UsageDistribution['by']), items: [] });
    answers['/api/usage/requests'] = () => ok({ ...scope, items: [], nextCursor: null });
    answers['/api/usage/group/specific'] = () => jsonResponse(403, { success: false, data: null, message: 'Your plan shows usage of the last 7 days: startDate must be 2026-11-19 or later' });
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    expect(await (await panel('Spend over time')).findByText('No requests in this range.')).toBeTruthy();
    expect(await (await panel('Top keys')).findByText('No requests in this range.')).toBeTruthy();
    expect(await (await panel('Requests')).findByText('No requests in this range.')).toBeTruthy();
    expect((await (await panel('Usage in this range')).findByRole('alert')).textContent).toContain('Your plan shows usage of the last 7 days');
  });

  it('downloads the export with the session’s token, as a file', async () => {
    const created: Blob[] = [];
    URL.createObjectURL = vi.fn((blob: Blob) => {
      created.push(blob);
      return 'blob:export';
    });
    URL.revokeObjectURL = vi.fn();
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      expect([this.href, this.download]).toEqual(['blob:export', 'platform-usage.csv']);
    });
    const user = userEvent.setup();
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}&provider=openai` });
    await user.click(await screen.findByRole('button', { name: 'Export FOCUS' }));
    expect(await screen.findByText('Downloaded platform-usage.csv.')).toBeTruthy();
    const exported = calls.find((url) => url.pathname === '/api/usage/export')!;
    expect(Object.fromEntries(exported.searchParams)).toEqual({ format: 'focus', teamId: TEAM.id, provider: 'openai' });
    expect(clicked).toHaveBeenCalledOnce();
    expect(await created[0]!.text()).toBe('day,cost\n2026-11-26,1.25\n');
  });

  it('offers an empty team demo data, switches to the demo team it made and shows its days landing without a reload', async () => {
    const user = userEvent.setup();
    let daysFilled = 0;
    const demoOverview = () => ({
      ...overview(daysFilled === 0 ? null : '2026-08-29T09:00:00.000Z'),
      teamId: DEMO_TEAM_ID,
      setup: { connections: 0, groups: 3, keys: 6, firstRequestAt: daysFilled === 0 ? null : '2026-08-29T09:00:00.000Z' },
      demo: { state: 'filling', days: 90, daysFilled, requests: daysFilled * 512 },
    });
    answers['/api/usage/team'] = (url) => ok(url.searchParams.get('teamId') === DEMO_TEAM_ID ? demoOverview() : overview(null));
    const { router } = await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    const empty = await panel('No usage yet');
    expect(screen.queryByRole('heading', { name: 'Usage in this range' })).toBeNull();
    answers['/api/team/'] = () => ok([TEAM, { ...TEAM, id: DEMO_TEAM_ID, name: 'Demo team' }]);
    await user.click(empty.getByRole('button', { name: 'Load demo data' }));
    await waitFor(() => expect(router.state.location.search).toEqual({ team: DEMO_TEAM_ID }));
    const progress = () => screen.getByRole('progressbar', { name: 'Loading demo data' });
    expect((await panel('Loading demo data')).getByRole('status').textContent).toBe(
      '0 of 90 days of sample usage recorded (0 requests), oldest first: the overview fills in as each day lands.',
    );
    expect(progress().getAttribute('value')).toBe('0');
    expect(screen.queryByRole('button', { name: 'Load demo data' })).toBeNull();

    // The overview asks again every 2 s while the sample lands: the days recorded show, and the usage panels beside them.
    daysFilled = 12;
    await waitFor(() => expect(progress().getAttribute('value')).toBe('12'), { timeout: 10_000 });
    expect((await panel('Loading demo data')).getByRole('status').textContent).toContain('12 of 90 days of sample usage recorded (6,144 requests)');
    expect(await screen.findByRole('heading', { name: 'Usage in this range' })).toBeTruthy();
  });
});

describe('the overview of a team member who is not its admin', () => {
  const member = { ...TEAM, role: 'MEMBER' };
  beforeEach(() => {
    answers['/api/team/'] = () => ok([member]);
    // GET /synthetic-group lists only the groups a member may view.
    answers['/api/synthetic-group'] = () => ok([group(GROUP_ID, 'Checkout', 'OBSERVER'), group(OTHER_GROUP_ID, 'Search', 'MAINTAINER')]);
    // The team's whole usage is for its admins: a call without a group the member may view is refused, as the API does.
    for (const path of ['/api/usage/group/specific', '/api/usage/cost/group', '/api/usage/cost/group/specific', '/api/usage/distribution/group', '/api/usage/requests', '/api/usage/cost/forecast']) {
      const allowed = answers[path]!;
      answers[path] = (url) =>
        [GROUP_ID, OTHER_GROUP_ID].includes(url.searchParams.get('groupId') ?? '')
          ? allowed(url)
          : jsonResponse(403, { success: false, data: null, message: "Only team admins can see the whole team's usage: ask for a group's" });
    }
  });

  it('shows their first group, every panel asking for it, and lets them pick another of theirs', async () => {
    const user = userEvent.setup();
    const { router } = await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    const totals = await panel('Usage in this range');
    await totals.findByText('Spend', { selector: 'dt' });
    expect(figure(totals, 'Spend')).toBe('£9007199254.740993');
    expect(await (await panel('Forecast: November 2026')).findByText(/^No forecast yet/)).toBeTruthy();
    expect(await (await panel('Requests')).findByRole('link', { name: /req-priced/ })).toBeTruthy();
    expect(screen.queryByText(/Only team admins/)).toBeNull();
    for (const url of calls) expect(url.searchParams.get('groupId'), url.pathname).toBe(GROUP_ID);

    // The picker holds their groups only: no "All groups", which would be refused.
    const picker = screen.getByLabelText('Group') as HTMLSelectElement;
    expect(picker.value).toBe(GROUP_ID);
    expect([...picker.options].map((option) => option.textContent)).toEqual(['Checkout', 'Search']);
    // Their default group is no filter of theirs: nothing to clear.
    expect(screen.queryByRole('button', { name: 'Clear filters' })).toBeNull();

    calls = [];
    await user.selectOptions(picker, OTHER_GROUP_ID);
    await waitFor(() => expect(router.state.location.search).toEqual({ team: TEAM.id, group: OTHER_GROUP_ID }));
    await waitFor(() => expect(calls.some((url) => url.pathname === '/api/usage/cost/forecast' && url.searchParams.get('groupId') === OTHER_GROUP_ID)).toBe(true));
    expect(calls.filter((url) => url.searchParams.get('groupId') !== OTHER_GROUP_ID)).toEqual([]);
  });

  it('shows the URL’s group when it is one of theirs, else their first', async () => {
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}&group=${OTHER_GROUP_ID}` });
    expect(((await screen.findByLabelText('Group')) as HTMLSelectElement).value).toBe(OTHER_GROUP_ID);
    cleanup();
    calls = [];
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}&group=77777777-7777-4777-8777-777777777777` });
    expect(((await screen.findByLabelText('Group')) as HTMLSelectElement).value).toBe(GROUP_ID);
    await waitFor(() => expect(calls.length).toBeGreaterThan(3));
    for (const url of calls) expect(url.searchParams.get('groupId'), url.pathname).toBe(GROUP_ID);
  });

  it('says so when they are in none of the team’s groups, calling no usage at all', async () => {
    answers['/api/synthetic-group'] = () => ok([]);
    await renderInSite(<OverviewScreen />, { at: `/?team=${TEAM.id}` });
    expect(await (await panel('No group to show')).findByText(/The team’s whole usage is for its admins/)).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Usage in this range' })).toBeNull();
    expect(calls).toEqual([]);
  });
});

describe('the overview’s URL filters', () => {
  it('keeps well-formed values and drops the rest', () => {
    expect(readOverviewSearch({ team: 't', start: '2026-11-01', end: '2026-10-01', group: GROUP_ID, key: 'x', model: 'has space', provider: 'openai', granularity: 'hour', other: '1' })).toEqual({
      team: 't',
      start: '2026-11-01',
      group: GROUP_ID,
      provider: 'openai',
      granularity: 'hour',
    });
    expect(readOverviewSearch({ start: '2026-13-01', granularity: 'week' })).toEqual({});
  });

  it('sets and clears one filter, keeping the others', () => {
    const search = { team: 't', model: 'gpt-4o' };
    expect(withFilter(search, 'provider', 'openai')).toEqual({ team: 't', model: 'gpt-4o', provider: 'openai' });
    expect(withFilter(search, 'model', '')).toEqual({ team: 't' });
    expect(usageFiltersOf('team-1', { team: 'ignored', start: '2026-11-01', key: KEY_ID, granularity: 'hour' })).toEqual({ teamId: 'team-1', startDate: '2026-11-01', keyId: KEY_ID });
  });
});
