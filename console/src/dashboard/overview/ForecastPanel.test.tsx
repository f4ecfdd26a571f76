// @vitest-environment happy-dom
// The forecast panel against a stubbed API answer: the month's figures from the micros
// (never a float), the projection against the budget, the track record sentence, the
// table of days, the state before a first forecast — asked again soon, so the first
// forecast shows without a reload, backing off to hourly after a bound — and the spec's
// fallback message.
import { cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FIRST_FORECAST_POLLS, FORECAST_POLL_MS, forecastPollMs } from '../../api/forecast/queries.ts';
import type { StoredForecast } from '../../api/forecast/types.ts';
import { jsonResponse, renderInSite } from '../../testing/render.tsx';
import { ForecastPanel } from './ForecastPanel.tsx';

const TEAM_ID = '11111111-1111-4111-8111-111111111111';
const day = (date: string, actual: string | null, forecast: [string, string, string, string, string] | null) => ({
  date,
  actualMicros: actual,
  forecastMicros: forecast?.[0] ?? null,
  lower80Micros: forecast?.[1] ?? null,
  upper80Micros: forecast?.[2] ?? null,
  lower95Micros: forecast?.[3] ?? null,
  upper95Micros: forecast?.[4] ?? null,
});
const STORED: StoredForecast = {
  teamId: TEAM_ID,
  groupId: null,
  period: '2026-11',
  timeZone: 'UTC',
  forecast: {
    madeAt: '2026-11-26T06:00:00.000Z',
    method: 'seasonal-naive-drift(7) log',
    fallback: false,
    actualMicros: '75000000',
    projectedMicros: '90000001',
    lower80Micros: '85000000',
    upper80Micros: '101000000',
    lower95Micros: '80000000',
    upper95Micros: '110000000',
    days: [day('2026-11-25', '3000000', null), day('2026-11-26', null, ['3100000', '2900000', '3300000', '2800000', '3400000'])],
  },
  budget: { id: '22222222-2222-4222-8222-222222222222', amountMicros: '100000000', mode: 'soft' },
  backtest: { madeAt: '2026-11-26T06:00:00.000Z', weeks: 8, days: 56, mase: 0.73, coverage80: 0.82, coverage95: 0.95, wape: 0.064 },
};

function stub(answer: () => Response) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(String(input), 'http://console.test');
      if (url.pathname === '/api/usage/cost/forecast' && url.searchParams.get('teamId') === TEAM_ID) return answer();
      return jsonResponse(404, { success: false, data: null, message: `no stub for ${url.pathname}` });
    }),
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('ForecastPanel', () => {
  it('shows the month’s projection against the budget, the track record and the days', async () => {
    stub(() => jsonResponse(200, { success: true, data: STORED, message: 'OK' }));
    await renderInSite(<ForecastPanel teamId={TEAM_ID} />);
    expect((await screen.findByRole('heading', { name: 'Forecast: November 2026' })).textContent).toBeTruthy();
    const figures = screen.getByText('Projected month-end').parentElement as HTMLElement;
    expect(figures.textContent).toContain('£90.000001');
    expect(figures.textContent).toContain('80 %: £85.00 – £101.00; 95 %: £80.00 – £110.00');
    const budget = screen.getByText('Monthly budget').parentElement as HTMLElement;
    expect(budget.textContent).toContain('£100.00 (soft)');
    expect(budget.textContent).toContain('Projected 90 % of it; the 80 % band reaches past it');
    expect(screen.getByText(/within ±6 % over the last 8 weeks/).textContent).toContain('MASE 0.73); the 80 % band held 82 % of the days and the 95 % band 95 %');
    expect(screen.getByRole('img', { name: /Daily spend in November 2026/ })).toBeTruthy();
    const rows = within(screen.getByRole('table')).getAllByRole('row');
    expect(rows[1]?.textContent).toBe('2026-11-25£3.00');
    expect(rows[2]?.textContent).toBe('2026-11-26£3.10£2.90 – £3.30£2.80 – £3.40');
  });

  it('says when no forecast has been made yet', async () => {
    stub(() => jsonResponse(200, { success: true, data: { ...STORED, forecast: null, backtest: null }, message: 'OK' }));
    await renderInSite(<ForecastPanel teamId={TEAM_ID} />);
    expect(await screen.findByText(/No forecast yet/)).toBeTruthy();
  });

  it('shows the first forecast without a reload: while there is none it asks again within seconds', async () => {
    const answers = [{ ...STORED, forecast: null, backtest: null }, STORED];
    let asked = 0;
    stub(() => jsonResponse(200, { success: true, data: answers[Math.min(asked++, answers.length - 1)], message: 'OK' }));
    await renderInSite(<ForecastPanel teamId={TEAM_ID} />);
    expect(await screen.findByText(/No forecast yet/)).toBeTruthy();
    // The worker has made it meanwhile: the next ask, 2 s on, finds it.
    const projected = await screen.findByText('Projected month-end', {}, { timeout: 10_000 });
    expect((projected.parentElement as HTMLElement).textContent).toContain('£90.000001');
    expect(screen.queryByText(/No forecast yet/)).toBeNull();
    expect(asked).toBeGreaterThanOrEqual(2);
  });

  it('asks soon, then less often, while there is no forecast, and hourly after the bound or once there is one', () => {
    const none = { ...STORED, forecast: null };
    expect([1, 2, 3, 4, 5, 6, 7, 8, FIRST_FORECAST_POLLS - 1].map((answers) => forecastPollMs(none, answers))).toEqual([
      2_000, 3_000, 4_500, 6_750, 10_125, 15_188, 22_781, 30_000, 30_000,
    ]);
    expect(forecastPollMs(none, FIRST_FORECAST_POLLS)).toBe(FORECAST_POLL_MS);
    expect(forecastPollMs(STORED, 1)).toBe(FORECAST_POLL_MS);
    expect(forecastPollMs(undefined, 0)).toBe(FORECAST_POLL_MS);
  });

  it('falls back to the spec’s message when the server gives none', async () => {
    stub(() => new Response('oops', { status: 502 }));
    await renderInSite(<ForecastPanel teamId={TEAM_ID} />);
    expect((await screen.findByRole('alert')).textContent).toContain('Failed to fetch forecast');
  });
});
