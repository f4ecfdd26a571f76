// A team's forecast track record: a rolling-origin backtest of the daily forecaster over
// the last weeks. At the start of each of those weeks the forecaster sees only the days
// before it and forecasts the week; the actual days score it: MASE (scaled by the
// history's weekly seasonal-naive error, as M4 scores), 80 % and 95 % interval coverage,
// and the weighted absolute percentage error (Σ|actual − forecast| / Σ actual) shown as
// "within ±x %".

import { seasonalNaiveScale } from './accuracy.ts';
import { forecastSteps } from './forecast.ts';

export interface Backtest {
  /** Weeks scored (origins with at least one day of history before them). */
  origins: number;
  /** Days scored. */
  points: number;
  /** Mean MASE over origins whose history has a non-zero scale; null when none has. */
  mase: number | null;
  coverage80: number;
  coverage95: number;
  /** Σ|error| / Σ actual over every scored day; null when nothing was spent. */
  wape: number | null;
}

export function* backtestSteps(values: readonly number[], weeks = 8, horizon = 7): Generator<void, Backtest | null> {
  let origins = 0;
  let points = 0;
  let inside80 = 0;
  let inside95 = 0;
  let absoluteErrors = 0;
  let actualTotal = 0;
  const maseValues: number[] = [];
  for (let week = weeks; week >= 1; week--) {
    const origin = values.length - week * horizon;
    if (origin < 1) continue;
    const history = values.slice(0, origin);
    const actual = values.slice(origin, origin + horizon);
    const forecast = yield* forecastSteps({ values: history, horizon: actual.length, seasonalCandidates: [7] });
    let originError = 0;
    actual.forEach((y, h) => {
      const error = Math.abs(y - (forecast.point[h] as number));
      originError += error;
      absoluteErrors += error;
      actualTotal += y;
      if (y >= (forecast.lower80[h] as number) && y <= (forecast.upper80[h] as number)) inside80++;
      if (y >= (forecast.lower95[h] as number) && y <= (forecast.upper95[h] as number)) inside95++;
    });
    const period = history.length > 7 ? 7 : 1;
    const scale = history.length > period ? seasonalNaiveScale(history, period) : 0;
    if (scale > 0) maseValues.push(originError / actual.length / scale);
    origins++;
    points += actual.length;
  }
  if (points === 0) return null;
  return {
    origins,
    points,
    mase: maseValues.length === 0 ? null : maseValues.reduce((a, b) => a + b, 0) / maseValues.length,
    coverage80: inside80 / points,
    coverage95: inside95 / points,
    wape: actualTotal > 0 ? absoluteErrors / actualTotal : null,
  };
}
