// Month-end projections from a daily forecast, in the team's calendar: a month's spend is
// what its complete days so far spent plus the forecast of the rest, and its bounds add
// the daily bounds (a conservative interval: it assumes the days' errors move together).
// Amounts are integer micro-units; the forecast's fractions are rounded per day.

import type { SeriesForecast } from './forecast.ts';

const DAY_MS = 86_400_000;

export const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
export const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/** The first day of the month after `day`'s, as yyyy-mm-dd. */
export function nextMonthStart(day: string): string {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 10);
}

export interface ProjectedDay {
  date: string;
  actualMicros: bigint | null;
  forecastMicros: bigint | null;
  lower80Micros: bigint | null;
  upper80Micros: bigint | null;
  lower95Micros: bigint | null;
  upper95Micros: bigint | null;
}

export interface MonthProjection {
  /** yyyy-mm */
  period: string;
  actualMicros: bigint;
  projectedMicros: bigint;
  lower80Micros: bigint;
  upper80Micros: bigint;
  lower95Micros: bigint;
  upper95Micros: bigint;
  days: ProjectedDay[];
}

/** How many days a forecast made on `today` needs: today to the end of next month. */
export const projectionHorizon = (today: string) => daysBetween(today, nextMonthStart(nextMonthStart(today)));

/**
 * This month's and next month's projections. `actualByDay` holds the complete days'
 * spend (days before `today`; a day absent spent nothing); `forecast` starts on `today`.
 */
export function projectMonths(today: string, actualByDay: ReadonlyMap<string, bigint>, forecast: SeriesForecast): MonthProjection[] {
  const micros = (value: number | undefined) => BigInt(Math.round(value ?? 0));
  const thisMonth = `${today.slice(0, 7)}-01`;
  const nextMonth = nextMonthStart(today);
  return [thisMonth, nextMonth].map((start) => {
    const end = nextMonthStart(start);
    const projection: MonthProjection = {
      period: start.slice(0, 7),
      actualMicros: 0n,
      projectedMicros: 0n,
      lower80Micros: 0n,
      upper80Micros: 0n,
      lower95Micros: 0n,
      upper95Micros: 0n,
      days: [],
    };
    for (let date = start; date < end; date = addDays(date, 1)) {
      if (date < today) {
        const actual = actualByDay.get(date) ?? 0n;
        projection.actualMicros += actual;
        projection.days.push({ date, actualMicros: actual, forecastMicros: null, lower80Micros: null, upper80Micros: null, lower95Micros: null, upper95Micros: null });
        continue;
      }
      const h = daysBetween(today, date);
      const day: ProjectedDay = {
        date,
        actualMicros: null,
        forecastMicros: micros(forecast.point[h]),
        lower80Micros: micros(forecast.lower80[h]),
        upper80Micros: micros(forecast.upper80[h]),
        lower95Micros: micros(forecast.lower95[h]),
        upper95Micros: micros(forecast.upper95[h]),
      };
      projection.days.push(day);
      projection.projectedMicros += day.forecastMicros as bigint;
      projection.lower80Micros += day.lower80Micros as bigint;
      projection.upper80Micros += day.upper80Micros as bigint;
      projection.lower95Micros += day.lower95Micros as bigint;
      projection.upper95Micros += day.upper95Micros as bigint;
    }
    for (const field of ['projectedMicros', 'lower80Micros', 'upper80Micros', 'lower95Micros', 'upper95Micros'] as const) projection[field] += projection.actualMicros;
    return projection;
  });
}
