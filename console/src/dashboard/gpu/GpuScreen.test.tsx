// @vitest-environment happy-dom
// The GPU screen against a stubbed API: a team whose plan lacks GPU analytics (its seats say
// the plan) sees the plan-required message with Contact Sales and no GPU call is made, as when
// the server refuses one for the plan; an Enterprise admin sees the idle list
// with the process and its cost (unpriced where the model has none), the £ wasted by cluster
// or process, the heat map with its "Show data" table, and issues an ingest key shown once
// with the agent's command; a member reads the settings without changing them.
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GpuHeatmap, GpuIdleList, GpuPower, GpuSettings, GpuUtilization, GpuWaste } from '../../api/gpu/types.ts';
import type { Team, TeamSeats } from '../../api/team/types.ts';
import { saveSession } from '../../shared/session.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { GpuScreen } from './GpuScreen.tsx';

const TEAM: Team = { id: '00000000-0000-4000-8000-0000000000c1', name: 'Training', description: '', timeZone: 'UTC', createdAt: '2026-11-01T00:00:00.000Z', role: 'ADMIN' };
const GPU = { gpuId: '00000000-0000-4000-8000-0000000000a1', gpuUuid: 'GPU-16f6ff9f-3a6d-8e36-d344-b90f0080f305', model: 'NVIDIA H200', host: 'gpu-node-1', index: 0, cluster: 'training' };
const OTHER = { ...GPU, gpuId: '00000000-0000-4000-8000-0000000000a2', gpuUuid: 'GPU-0a1b2c3d-0000-1111-2222-333344445555', model: 'NVIDIA L4', index: 1 };
const RANGE = { from: '2026-11-25T15:00:00.000Z', to: '2026-11-26T15:00:00.000Z' };

const SETTINGS: GpuSettings = {
  teamId: TEAM.id,
  idleBelowPct: 5,
  idleAfterMinutes: 30,
  prices: [{ model: 'NVIDIA H200', perHour: '3.500000' }],
  models: ['NVIDIA H200', 'NVIDIA L4'],
  clusters: [{ id: '00000000-0000-4000-8000-0000000000b1', name: 'training' }],
  ingestKeys: [],
  exporters: [{ id: '00000000-0000-4000-8000-0000000000e1', cluster: 'training', url: 'https://dcgm.example.com:9400/metrics', createdAt: '2026-11-26T10:00:00.000Z', lastScrapedAt: '2026-11-26T14:00:00.000Z', lastError: 'The exporter answered HTTP 503' }],
};
const figures = (held: number, idle: number, wasted: string | null, unpriced = 0) => ({ heldMinutes: held, idleMinutes: idle, wasted, unpricedMinutes: unpriced });
const WASTE: GpuWaste = {
  ...RANGE,
  currency: 'GBP',
  total: figures(10, 70, '2.916667', 30),
  clusters: [{ cluster: 'training', ...figures(10, 70, '2.916667', 30) }],
  hosts: [{ cluster: 'training', host: 'gpu-node-1', ...figures(10, 70, '2.916667', 30) }],
  gpus: [
    { ...GPU, ...figures(10, 40, '2.916667') },
    { ...OTHER, ...figures(0, 30, null, 30) },
  ],
  processes: [{ ...GPU, pid: 607, processName: 'python3', peakMemoryMiB: 39278, ...figures(10, 0, '0.583333') }],
};
const IDLE: GpuIdleList = {
  ...RANGE,
  stretches: [
    { ...OTHER, start: '2026-11-26T13:00:00.000Z', end: '2026-11-26T13:30:00.000Z', ongoing: true, heldMinutes: 0, idleMinutes: 30, peakMemoryMiB: 0, process: null, wasted: null },
    { ...GPU, start: '2026-11-26T12:44:00.000Z', end: '2026-11-26T12:54:00.000Z', ongoing: false, heldMinutes: 10, idleMinutes: 0, peakMemoryMiB: 39287, process: { pid: 607, name: 'python3', memoryMiB: 39278 }, wasted: '0.583333' },
  ],
};
const HEATMAP: GpuHeatmap = { ...RANGE, gpus: [GPU], cells: [{ gpuId: GPU.gpuId, hour: '2026-11-26T12:00:00.000Z', meanUtilizationPct: 24.5, minutes: 59, idleMinutes: 41 }] };
const UTILIZATION: GpuUtilization = { ...RANGE, hours: [{ hour: '2026-11-26T12:00:00.000Z', gpus: 1, meanUtilizationPct: 24.5, activeMinutes: 18, idleHeldMinutes: 10, idleMinutes: 31 }] };
const POWER: GpuPower = { ...RANGE, models: [{ model: 'NVIDIA H200', energyKWh: 0.157, hours: [{ hour: '2026-11-26T12:00:00.000Z', gpus: 1, meanPowerW: 160 }] }] };

const ok = (data: unknown, status = 200) => jsonResponse(status, { success: true, data, message: 'OK' });
const seats = (planSlug: TeamSeats['planSlug'], plan: string): TeamSeats => ({ plan, planSlug, paying: true, included: null, used: 1, pending: 0, currency: 'GBP', extraSeatMonthlyMicros: null });

function stubApi(given: Record<string, (body: unknown) => Response>) {
  const routes: typeof given = {
    'GET /api/team/': () => ok([TEAM]),
    [`GET /api/team/${TEAM.id}/seats`]: () => ok(seats('enterprise', 'Enterprise')),
    'GET /api/gpu/settings': () => ok(SETTINGS),
    'GET /api/gpu/utilization': () => ok(UTILIZATION),
    'GET /api/gpu/heatmap': () => ok(HEATMAP),
    'GET /api/gpu/idle': () => ok(IDLE),
    'GET /api/gpu/power': () => ok(POWER),
    'GET /api/gpu/waste': () => ok(WASTE),
    ...given,
  };
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const key = `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}`;
    const route = routes[key];
    if (!route) throw new Error(`unexpected call ${key}`);
    return route(init?.body ? JSON.parse(String(init.body)) : undefined);
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls: (key: string) => fetchMock.mock.calls.filter(([input, init]) => `${init?.method ?? 'GET'} ${new URL(String(input), 'http://localhost').pathname}` === key) };
}

beforeEach(() => {
  localStorage.clear();
  saveSession('jwt-ada', { id: '00000000-0000-4000-8000-00000000000a', email: 'ada@example.com', name: 'Ada', avatar: null, emailVerified: true });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('GPU screen', () => {
  it('shows the plan-required message with Contact Sales to a team on another plan, and makes no GPU call', async () => {
    const api = stubApi({ [`GET /api/team/${TEAM.id}/seats`]: () => ok(seats('growth', 'Growth')) });
    await renderInSite(<GpuScreen />);
    expect(await screen.findByRole('heading', { name: 'GPU analytics is on the Enterprise plan' })).toBeTruthy();
    expect(screen.getByText('GPU infrastructure analytics is part of the Enterprise plan; the Growth plan does not include it')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Contact Sales' }).getAttribute('href')).toMatch(/^mailto:/);
    expect(api.calls('GET /api/gpu/settings')).toHaveLength(0);
  });

  it("says the server's reason when it refuses the plan (one that changed since), and asks nothing more", async () => {
    const message = 'GPU infrastructure analytics is part of the Enterprise plan; the Developers plan does not include it';
    const api = stubApi({ 'GET /api/gpu/settings': () => jsonResponse(403, { success: false, data: null, message, code: 'plan_required', requestId: 'r1' }) });
    await renderInSite(<GpuScreen />);
    expect(await screen.findByText(message)).toBeTruthy();
    expect(api.calls('GET /api/gpu/settings')).toHaveLength(1);
    expect(api.calls('GET /api/gpu/idle')).toHaveLength(0);
  });

  it('lists idle stretches with the process and cost, the £ wasted by cluster and by process, and the heat map with its data', async () => {
    stubApi({});
    await renderInSite(<GpuScreen />);
    const idle = await screen.findByRole('region', { name: 'Idle GPUs' });
    const rows = await within(idle).findAllByRole('row');
    expect(rows[1]?.textContent).toBe('gpu-node-1 · GPU 1NVIDIA L4 · training2026-11-26 13:00 UTC Still idle30 minNone—Unpriced');
    expect(rows[2]?.textContent).toBe('gpu-node-1 · GPU 0NVIDIA H200 · training2026-11-26 12:44 UTC10 min38.4 GiBpython3 (pid 607)£0.583333');

    const waste = screen.getByRole('region', { name: '£ wasted by idle GPUs' });
    expect(within(waste).getByText('£2.916667 in this range')).toBeTruthy();
    expect(within(waste).getByRole('note').textContent).toContain('30 min of idle time is on GPU models without a price');
    expect(within(waste).getAllByRole('row')[1]?.textContent).toBe('training10 min1 h 10 min£2.916667');
    await userEvent.setup().selectOptions(within(waste).getByLabelText('By'), 'process');
    expect(within(waste).getAllByRole('row')[1]?.textContent).toBe('python3 (pid 607), gpu-node-1 · GPU 010 min0 min£0.583333');

    const heatmap = screen.getByRole('region', { name: 'GPUs by hour' });
    expect(within(heatmap).getByRole('img', { name: 'Mean utilisation of 1 GPUs per hour' })).toBeTruthy();
    expect(within(heatmap).getAllByRole('row')[1]?.textContent).toBe('gpu-node-1 · GPU 011-26 12:0024.5 %5941');
    expect(within(screen.getByRole('region', { name: 'Settings' })).getByText(/failed: The exporter answered HTTP 503/)).toBeTruthy();
  });

  it('issues an ingest key, shown once with the command that runs the agent, and saves prices', async () => {
    const prices: unknown[] = [];
    stubApi({
      'POST /api/gpu/ingest-keys': (body) =>
        ok({ id: '00000000-0000-4000-8000-0000000000f1', name: (body as { name: string }).name, prefix: 'sg_gpu_abcdef', createdAt: '2026-11-26T14:00:00.000Z', lastUsedAt: null, key: 'sg_gpu_abcdefSECRET' }, 201),
      'PUT /api/gpu/prices': (body) => {
        prices.push(body);
        return ok(SETTINGS);
      },
    });
    await renderInSite(<GpuScreen />);
    const user = userEvent.setup();
    const settings = await screen.findByRole('region', { name: 'Settings' });
    await user.type(within(settings).getByLabelText('Key name'), 'node agents');
    await user.click(within(settings).getByRole('button', { name: 'Issue key' }));
    expect(((await within(settings).findByLabelText('Ingest key node agents (shown once)')) as HTMLInputElement).value).toBe('sg_gpu_abcdefSECRET');
    expect((within(settings).getByLabelText('Run the agent on each GPU host') as HTMLTextAreaElement).value).toContain('SPENDGATE_GPU_KEY=sg_gpu_abcdefSECRET');

    // The L4 the fleet reports has no price yet: its row waits for one.
    const l4 = within(settings).getByDisplayValue('NVIDIA L4').closest('li') as HTMLElement;
    await user.type(within(l4).getByLabelText('£ an hour'), '0.80');
    await user.click(within(settings).getByRole('button', { name: 'Save prices' }));
    await waitFor(() => expect(prices).toHaveLength(1));
    expect(prices[0]).toEqual({ teamId: TEAM.id, prices: [{ model: 'NVIDIA H200', perHour: '3.50' }, { model: 'NVIDIA L4', perHour: '0.80' }] });
  });

  it('lets a member read the settings without changing them', async () => {
    stubApi({ 'GET /api/team/': () => ok([{ ...TEAM, role: 'MEMBER' }]) });
    await renderInSite(<GpuScreen />);
    const settings = await screen.findByRole('region', { name: 'Settings' });
    expect(within(settings).getByText('Read only: team admins change these.')).toBeTruthy();
    expect(within(settings).queryByRole('button', { name: 'Save prices' })).toBeNull();
    expect(within(settings).queryByRole('button', { name: 'Issue key' })).toBeNull();
    expect((within(settings).getByLabelText('Threshold (%)') as HTMLInputElement).disabled).toBe(true);
  });
});
