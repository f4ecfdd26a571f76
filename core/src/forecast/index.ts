// Forecasting: the method (forecast.ts), seasonality detection and the M4 accuracy measures.

export { type Backtest, backtestSteps } from './backtest.ts';
export { coverageCount, mase, msis, seasonalNaiveScale, smape } from './accuracy.ts';
export { type ForecastInput, forecastSeries, forecastSteps, type SeriesForecast, sliced } from './forecast.ts';
export { detectSeasonalPeriods } from './seasonality.ts';
export { addDays, daysBetween, type MonthProjection, nextMonthStart, type ProjectedDay, projectionHorizon, projectMonths } from './projection.ts';
