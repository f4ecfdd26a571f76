// The answer of GET /usage/cost/forecast (gateway/src/api/answers.ts StoredForecast): GBP micros as strings.

export interface ForecastDay {
  date: string;
  actualMicros: string | null;
  forecastMicros: string | null;
  lower80Micros: string | null;
  upper80Micros: string | null;
  lower95Micros: string | null;
  upper95Micros: string | null;
}

export interface StoredForecast {
  teamId: string;
  groupId: string | null;
  period: string;
  timeZone: string;
  forecast: {
    madeAt: string;
    method: string;
    fallback: boolean;
    actualMicros: string;
    projectedMicros: string;
    lower80Micros: string;
    upper80Micros: string;
    lower95Micros: string;
    upper95Micros: string;
    days: ForecastDay[];
  } | null;
  budget: { id: string; amountMicros: string; mode: 'hard' | 'soft' | 'downgrade' } | null;
  backtest: {
    madeAt: string;
    weeks: number;
    days: number;
    mase: number | null;
    coverage80: number;
    coverage95: number;
    wape: number | null;
  } | null;
}
