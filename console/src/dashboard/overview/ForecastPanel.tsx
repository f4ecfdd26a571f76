/**
 * The forecast panel of the overview: a team's (or group's) month day by day — actual
 * spend, the forecast line and its 80 % and 95 % bands — the month-end projection against
 * the month's budget, and the forecasts' track record (the 8-week backtest). The chart has
 * a table of the same numbers for screen readers. Amounts are GBP budget spend.
 *
 * @example <ForecastPanel teamId={team.id} />
 */
import { useQuery } from '@tanstack/react-query';
import { storedForecastQuery } from '../../api/forecast/queries.ts';
import type { ForecastDay, StoredForecast } from '../../api/forecast/types.ts';
import { type ChartOption, EChart } from '../../shared/charts/EChart.tsx';
import { costText } from '../connections/format.ts';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import './forecast.css';

const gbp = (micros: string) => costText(micros, 'GBP');
/** Chart values in pounds (drawing only; every figure in text comes from the micros). */
const pounds = (micros: string | null) => (micros === null ? null : Number(micros) / 1_000_000);
const percent = (share: number) => `${Math.round(share * 100)} %`;

function monthName(period: string): string {
  return new Date(`${period}-01T00:00:00Z`).toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

function chartOption(days: ForecastDay[]): ChartOption {
  const lower = (key: 'lower80Micros' | 'lower95Micros') => days.map((day) => pounds(day[key]));
  const width = (low: 'lower80Micros' | 'lower95Micros', high: 'upper80Micros' | 'upper95Micros') =>
    days.map((day) => (day[low] === null || day[high] === null ? null : (pounds(day[high]) as number) - (pounds(day[low]) as number)));
  const band = (name: string, stack: string, data: (number | null)[], opacity: number) =>
    ({ name, type: 'line', stack, data, symbol: 'none', lineStyle: { opacity: 0 }, areaStyle: { opacity }, tooltip: { show: false } }) as const;
  return {
    grid: { left: 48, right: 16, top: 56, bottom: 32 },
    tooltip: { trigger: 'axis' },
    legend: { top: 0, data: ['Actual', 'Forecast', '80 % band', '95 % band'] },
    xAxis: { type: 'category', data: days.map((day) => day.date.slice(8)) },
    yAxis: { type: 'value', axisLabel: { formatter: '£{value}' } },
    series: [
      { ...band('95 % band', 'b95', lower('lower95Micros'), 0), areaStyle: { opacity: 0 } },
      band('95 % band', 'b95', width('lower95Micros', 'upper95Micros'), 0.15),
      { ...band('80 % band', 'b80', lower('lower80Micros'), 0), areaStyle: { opacity: 0 } },
      band('80 % band', 'b80', width('lower80Micros', 'upper80Micros'), 0.3),
      { name: 'Actual', type: 'bar', data: days.map((day) => pounds(day.actualMicros)) },
      { name: 'Forecast', type: 'line', data: days.map((day) => pounds(day.forecastMicros)), symbol: 'none', lineStyle: { type: 'dashed', width: 2 } },
    ],
  };
}

function Projection({ data }: { data: StoredForecast }) {
  const forecast = data.forecast as NonNullable<StoredForecast['forecast']>;
  const budget = data.budget;
  const share = budget && BigInt(budget.amountMicros) > 0n ? Number(forecast.projectedMicros) / Number(budget.amountMicros) : null;
  return (
    <dl className="forecast-figures">
      <div>
        <dt>Spent so far</dt>
        <dd>{gbp(forecast.actualMicros)}</dd>
      </div>
      <div>
        <dt>Projected month-end</dt>
        <dd>
          {gbp(forecast.projectedMicros)}
          <span className="forecast-figures__range">
            80 %: {gbp(forecast.lower80Micros)} – {gbp(forecast.upper80Micros)}; 95 %: {gbp(forecast.lower95Micros)} – {gbp(forecast.upper95Micros)}
          </span>
        </dd>
      </div>
      <div>
        <dt>Monthly budget</dt>
        <dd>
          {budget === null ? (
            'None set'
          ) : (
            <>
              {gbp(budget.amountMicros)} ({budget.mode})
              {share !== null && (
                <span className={`forecast-figures__range${BigInt(forecast.upper80Micros) > BigInt(budget.amountMicros) ? ' forecast-figures__range--warn' : ''}`}>
                  Projected {percent(share)} of it
                  {BigInt(forecast.upper80Micros) > BigInt(budget.amountMicros) ? '; the 80 % band reaches past it' : ''}
                </span>
              )}
            </>
          )}
        </dd>
      </div>
    </dl>
  );
}

function TrackRecord({ backtest }: { backtest: StoredForecast['backtest'] }) {
  if (backtest === null) return <p className="overview-panel__text">No track record yet: it needs a week of spend before each of the weeks it scores.</p>;
  return (
    <p className="overview-panel__text">
      {backtest.wape === null ? 'Forecasts for this scope were scored' : `Forecasts for this scope were within ±${percent(backtest.wape)}`} over the last{' '}
      {backtest.weeks} weeks ({backtest.days} days forecast a week ahead{backtest.mase === null ? '' : `, MASE ${backtest.mase.toFixed(2)}`}); the 80 % band held{' '}
      {percent(backtest.coverage80)} of the days and the 95 % band {percent(backtest.coverage95)}.
    </p>
  );
}

export function ForecastPanel({ teamId, groupId }: { teamId: string; groupId?: string }) {
  const query = useQuery(storedForecastQuery({ teamId, groupId }));
  return (
    <section className="overview-panel" aria-labelledby="forecast-title">
      <div className="overview-panel__header">
        <h2 id="forecast-title">Forecast{query.data ? `: ${monthName(query.data.period)}` : ''}</h2>
        {query.data?.forecast && <p className="overview-panel__meta">Method: {query.data.forecast.method}</p>}
      </div>
      {query.isPending ? (
        <LoadingState label="Loading forecast…" />
      ) : query.isError ? (
        <ErrorState error={query.error} onRetry={() => query.refetch()} retrying={query.isRefetching} />
      ) : query.data.forecast === null ? (
        <p className="overview-panel__text">No forecast yet: one is made every 6 hours once there is a complete day of spend.</p>
      ) : (
        <>
          <Projection data={query.data} />
          <EChart
            label={`Daily spend in ${monthName(query.data.period)}: actual so far, then the forecast with its 80 % and 95 % bands; the same numbers are in the table below`}
            option={chartOption(query.data.forecast.days)}
          />
          <TrackRecord backtest={query.data.backtest} />
          <details className="forecast-table">
            <summary>The forecast as a table</summary>
            <table>
              <caption className="visually-hidden">Daily spend, actual and forecast, with the 80 % and 95 % bands</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Actual</th>
                  <th scope="col">Forecast</th>
                  <th scope="col">80 % band</th>
                  <th scope="col">95 % band</th>
                </tr>
              </thead>
              <tbody>
                {query.data.forecast.days.map((day) => (
                  <tr key={day.date}>
                    <th scope="row">{day.date}</th>
                    <td>{day.actualMicros === null ? '' : gbp(day.actualMicros)}</td>
                    <td>{day.forecastMicros === null ? '' : gbp(day.forecastMicros)}</td>
                    <td>{day.lower80Micros === null || day.upper80Micros === null ? '' : `${gbp(day.lower80Micros)} – ${gbp(day.upper80Micros)}`}</td>
                    <td>{day.lower95Micros === null || day.upper95Micros === null ? '' : `${gbp(day.lower95Micros)} – ${gbp(day.upper95Micros)}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}
