// The spot forecast gives the event loop turns while it computes: a request arriving during
// a three-year forecast is served between its slices, not after it.

import { describe, expect, it } from 'vitest';
import { FORECAST_LIMITS, forecastInSlices } from './forecasts.ts';

const WEEKDAY_SHAPE = [1.2, 1.3, 1.25, 1.2, 1.1, 0.5, 0.45];
const threeYears = Array.from({ length: FORECAST_LIMITS.historyDays }, (_, d) => (20 + d / 10) * (WEEKDAY_SHAPE[d % 7] as number));

describe('forecastInSlices', () => {
  it('lets other work run between slices of a three-year forecast', async () => {
    let turns = 0;
    let computing = true;
    const tick = () => {
      if (!computing) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const forecast = await forecastInSlices(threeYears, FORECAST_LIMITS.daysToForecast);
    computing = false;
    expect(forecast.point).toHaveLength(FORECAST_LIMITS.daysToForecast);
    // Computed whole, the ticker would have run at most once before the forecast ended.
    expect(turns).toBeGreaterThan(20);
  });
});
