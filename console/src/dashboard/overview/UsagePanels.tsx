/**
 * The overview's usage panels, each over one usage call (spec §7, read from the
 * rollups) and each with its own loading, error and empty state: the range's totals
 * with unpriced and estimated requests called out, spend over time, this month against
 * last, tokens by category, and where the spend went (model, provider, top keys).
 * Amounts are GBP (what budgets counted) with the providers' USD list price beside;
 * a chart draws numbers, its "Show data" table and the totals stay exact.
 */
import { useQuery } from '@tanstack/react-query';
import { usageDistributionQuery, usageMonthQuery, usageSeriesQuery, usageSummaryQuery } from '../../api/usage/queries.ts';
import type { DistributionDimension, Granularity, UsageDistribution, UsageFilters, UsageTotals } from '../../api/usage/types.ts';
import type { ChartOption } from '../../shared/charts/EChart.tsx';
import { countText } from '../connections/format.ts';
import { amountText } from './filters.ts';
import { ChartWithData, Panel, QueryStates } from '../ui/Panel.tsx';

const gbp = (decimal: string) => amountText(decimal, 'GBP');
const usd = (decimal: string) => amountText(decimal, 'USD');
const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
const plural = (count: number, one: string, many: string) => `${countText(count)} ${count === 1 ? one : many}`;

/** A tooltip naming each point by its exact text, not the float the chart draws. */
const exactTooltip = (texts: string[][]): ChartOption['tooltip'] => ({
  trigger: 'axis',
  formatter: (params: unknown) => {
    const points = (Array.isArray(params) ? params : [params]) as { dataIndex: number; seriesIndex: number; seriesName: string; axisValueLabel?: string }[];
    const first = points[0];
    if (!first) return '';
    return [first.axisValueLabel ?? '', ...points.map((point) => `${point.seriesName}: ${texts[point.seriesIndex]?.[point.dataIndex] ?? ''}`)].join('<br/>');
  },
});

export function SummaryPanel({ filters }: { filters: UsageFilters }) {
  const summary = useQuery(usageSummaryQuery(filters));
  return (
    <Panel id="usage-summary" title="Usage in this range" meta={summary.data && `${summary.data.startDate} to ${summary.data.endDate} (${summary.data.timeZone})`} wide>
      <QueryStates query={summary} loading="Loading usage…" failed="Usage could not be loaded">
        {(data) => <SummaryFigures summary={data} />}
      </QueryStates>
    </Panel>
  );
}

function SummaryFigures({ summary }: { summary: UsageTotals }) {
  const priced = summary.requests - summary.unpricedRequests;
  return (
    <>
      <dl className="figures">
        <div className="figures__item">
          <dt>Spend</dt>
          <dd>{gbp(summary.totalCost)}</dd>
        </div>
        <div className="figures__item">
          <dt>List price</dt>
          <dd>{usd(summary.totalCostUsd)}</dd>
        </div>
        <div className="figures__item">
          <dt>Requests</dt>
          <dd>{countText(summary.requests)}</dd>
        </div>
        <div className="figures__item">
          <dt>Errors</dt>
          <dd>{countText(summary.errors)}</dd>
        </div>
        <div className="figures__item">
          <dt>Tokens</dt>
          <dd>{countText(summary.totalTokens)}</dd>
        </div>
        <div className="figures__item">
          <dt>Latency p50 / p95</dt>
          <dd>{summary.latencyP50Ms === null ? '—' : `${countText(summary.latencyP50Ms)} / ${countText(summary.latencyP95Ms ?? 0)} ms`}</dd>
        </div>
      </dl>
      {summary.unpricedRequests > 0 && (
        <p className="overview-note" role="note">
          <strong>{plural(summary.unpricedRequests, 'request is unpriced', 'requests are unpriced')}:</strong> no price is known for their model, so their cost is
          unknown and not in the spend above (which is for the {plural(priced, 'priced request', 'priced requests')}). Set a price for the model under pricing overrides.
        </p>
      )}
      {summary.estimatedRequests > 0 && (
        <p className="overview-note" role="note">
          <strong>{plural(summary.estimatedRequests, 'request is estimated', 'requests are estimated')}:</strong> the provider reported no usage for them (a stream
          cut short, for one), so Spendgate counted their tokens itself.
        </p>
      )}
    </>
  );
}

export function SpendPanel({ filters, granularity }: { filters: UsageFilters; granularity: Granularity }) {
  const series = useQuery(usageSeriesQuery(filters, granularity));
  const unit = granularity === 'hour' ? 'hour' : 'day';
  return (
    <Panel id="usage-spend" title="Spend over time" meta={series.data && `${gbp(series.data.totalCost)} (${usd(series.data.totalCostUsd)} list price)`} wide>
      <QueryStates query={series} loading="Loading spend…" failed="Spend could not be loaded" isEmpty={(data) => data.requests === 0}>
        {(data) => {
          const points = data.series;
          const when = (date: string) => (granularity === 'hour' ? date.slice(0, 16).replace('T', ' ') : date);
          return (
            <ChartWithData
              label={`Spend per ${unit} from ${data.startDate} to ${data.endDate}: ${gbp(data.totalCost)} in all`}
              option={{
                animation: false,
                grid: { left: 56, right: 16, top: 16, bottom: 28 },
                tooltip: exactTooltip([points.map((point) => `${gbp(point.cost)} (${usd(point.costUsd)}), ${plural(point.requests, 'request', 'requests')}`)]),
                xAxis: { type: 'category', data: points.map((point) => (granularity === 'hour' ? point.date.slice(11, 16) : point.date.slice(5))) },
                yAxis: { type: 'value', axisLabel: { formatter: '£{value}' } },
                series: [{ type: 'bar', name: 'Spend', data: points.map((point) => Number(point.cost)) }],
              }}
              columns={[granularity === 'hour' ? 'Hour' : 'Day', 'Spend (GBP)', 'List price (USD)', 'Requests', 'Tokens']}
              rows={points
                .filter((point) => point.requests > 0)
                .map((point) => ({ key: point.date, cells: [when(point.date), gbp(point.cost), usd(point.costUsd), countText(point.requests), countText(point.totalTokens)] }))}
            />
          );
        }}
      </QueryStates>
    </Panel>
  );
}

export function MonthPanel({ filters }: { filters: UsageFilters }) {
  // This month and last are calendar months: the range does not apply.
  const { startDate: _start, endDate: _end, ...rest } = filters;
  const month = useQuery(usageMonthQuery(rest));
  return (
    <Panel id="usage-month" title="This month against last" meta={month.data && `${gbp(month.data.thisMonth.total)} so far`}>
      <QueryStates query={month} loading="Loading this month…" failed="This month could not be loaded">
        {(data) => {
          const last = data.lastMonth;
          const days = Math.max(data.thisMonth.days.length, last?.days.length ?? 0);
          const dayNumbers = Array.from({ length: days }, (_, index) => String(index + 1));
          const thisTexts = data.thisMonth.days.map((day) => gbp(day.cumulativeCost));
          const lastTexts = last?.days.map((day) => gbp(day.cumulativeCost)) ?? [];
          return (
            <>
              {!last && <p className="overview-panel__text">Last month is beyond your plan’s look-back.</p>}
              <ChartWithData
                label={`Spend this month, day by day and cumulative: ${gbp(data.thisMonth.total)}${last ? `, against ${gbp(last.total)} last month` : ''}`}
                height={240}
                option={{
                  animation: false,
                  grid: { left: 56, right: 16, top: 36, bottom: 28 },
                  legend: { top: 0 },
                  tooltip: exactTooltip(last ? [thisTexts, lastTexts] : [thisTexts]),
                  xAxis: { type: 'category', data: dayNumbers },
                  yAxis: { type: 'value', axisLabel: { formatter: '£{value}' } },
                  series: [
                    { type: 'line', name: 'This month', showSymbol: false, data: data.thisMonth.days.map((day) => Number(day.cumulativeCost)) },
                    ...(last ? [{ type: 'line' as const, name: 'Last month', showSymbol: false, lineStyle: { type: 'dashed' as const }, data: last.days.map((day) => Number(day.cumulativeCost)) }] : []),
                  ],
                }}
                columns={['Day of the month', 'This month, cumulative', 'Last month, cumulative']}
                rows={dayNumbers.map((day, index) => ({ key: day, cells: [day, thisTexts[index] ?? '—', lastTexts[index] ?? '—'] }))}
              />
            </>
          );
        }}
      </QueryStates>
    </Panel>
  );
}

/** Token counts on an axis: 5M rather than 5,000,000, which would run into each other on a phone (en-US: en-GB writes 5m). */
const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact' });

const TOKEN_CATEGORIES = [
  ['Input', 'inputTokens'],
  ['Cached read', 'cachedReadTokens'],
  ['Cache write', 'cacheWriteTokens'],
  ['Output', 'outputTokens'],
  ['Reasoning', 'reasoningTokens'],
] as const;

export function TokensPanel({ filters }: { filters: UsageFilters }) {
  // The same call as the totals: React Query asks once for both.
  const summary = useQuery(usageSummaryQuery(filters));
  return (
    <Panel id="usage-tokens" title="Tokens by category" meta={summary.data && `${countText(summary.data.totalTokens)} in all`}>
      <QueryStates query={summary} loading="Loading tokens…" failed="Tokens could not be loaded" isEmpty={(data) => data.totalTokens === 0}>
        {(data) => (
          <ChartWithData
            label={`Tokens by category: ${TOKEN_CATEGORIES.map(([name, field]) => `${name.toLowerCase()} ${countText(data[field])}`).join(', ')}`}
            height={240}
            option={{
              animation: false,
              grid: { left: 96, right: 24, top: 8, bottom: 28 },
              tooltip: { trigger: 'axis' },
              xAxis: { type: 'value', axisLabel: { formatter: (value: number) => COMPACT.format(value) } },
              yAxis: { type: 'category', inverse: true, data: TOKEN_CATEGORIES.map(([name]) => name) },
              series: [{ type: 'bar', name: 'Tokens', data: TOKEN_CATEGORIES.map(([, field]) => data[field]) }],
            }}
            columns={['Category', 'Tokens']}
            rows={TOKEN_CATEGORIES.map(([name, field]) => ({ key: field, cells: [name, countText(data[field])] }))}
          />
        )}
      </QueryStates>
    </Panel>
  );
}

/** How many of a distribution's items the chart draws (its table lists them all). */
const CHARTED_ITEMS = 10;

const DISTRIBUTION_TITLES: Record<Exclude<DistributionDimension, 'group' | 'connection'>, { title: string; column: string }> = {
  model: { title: 'Spend by model', column: 'Model' },
  provider: { title: 'Spend by provider', column: 'Provider' },
  key: { title: 'Top keys', column: 'Key' },
};

export function DistributionPanel({ filters, by, wide = false }: { filters: UsageFilters; by: keyof typeof DISTRIBUTION_TITLES; wide?: boolean }) {
  const distribution = useQuery(usageDistributionQuery(filters, by));
  const { title, column } = DISTRIBUTION_TITLES[by];
  return (
    <Panel id={`usage-by-${by}`} title={title} meta={distribution.data && plural(distribution.data.items.length, column.toLowerCase(), `${column.toLowerCase()}s`)} wide={wide}>
      <QueryStates query={distribution} loading={`Loading ${title.toLowerCase()}…`} failed={`${title} could not be loaded`} isEmpty={(data) => data.items.length === 0}>
        {(data) => <DistributionChart distribution={data} title={title} column={column} />}
      </QueryStates>
    </Panel>
  );
}

function DistributionChart({ distribution, title, column }: { distribution: UsageDistribution; title: string; column: string }) {
  const charted = distribution.items.slice(0, CHARTED_ITEMS);
  const costText = (item: UsageDistribution['items'][number]) =>
    item.unpricedRequests === item.requests ? 'Unpriced' : `${gbp(item.cost)}${item.unpricedRequests > 0 ? ` + ${countText(item.unpricedRequests)} unpriced` : ''}`;
  return (
    <ChartWithData
      label={`${title}, largest first: ${charted.map((item) => `${item.label} ${costText(item)} (${percent(item.share)})`).join(', ')}`}
      height={Math.max(140, charted.length * 32 + 40)}
      option={{
        animation: false,
        grid: { left: 132, right: 24, top: 8, bottom: 24 },
        tooltip: exactTooltip([charted.map((item) => `${costText(item)} (${percent(item.share)}), ${plural(item.requests, 'request', 'requests')}`)]),
        xAxis: { type: 'value', axisLabel: { formatter: '£{value}' } },
        yAxis: { type: 'category', inverse: true, data: charted.map((item) => item.label), axisLabel: { width: 120, overflow: 'truncate' } },
        series: [{ type: 'bar', name: 'Spend', data: charted.map((item) => Number(item.cost)) }],
      }}
      columns={[column, 'Spend (GBP)', 'List price (USD)', 'Requests', 'Tokens', 'Share']}
      rows={distribution.items.map((item) => ({
        key: item.key,
        cells: [item.label, costText(item), item.unpricedRequests === item.requests ? 'Unpriced' : usd(item.costUsd), countText(item.requests), countText(item.totalTokens), percent(item.share)],
      }))}
    />
  );
}
