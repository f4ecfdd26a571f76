/**
 * The panels of the dashboard's chart screens (the overview, GPU infrastructure): a titled
 * panel; one query's loading, error (the spec §8 fallback, or the server's message) and
 * empty states; and a chart with its figures as a table behind "Show data", so what the
 * chart draws can be read without it. Its classes began on the overview (overview-panel…).
 *
 * @example
 *   <Panel id="spend" title="Spend over time">
 *     <QueryStates query={series} loading="Loading spend…" failed="Spend could not be loaded" isEmpty={(data) => data.requests === 0}>
 *       {(data) => <ChartWithData label="…" option={…} columns={['Day', 'Spend']} rows={…} />}
 *     </QueryStates>
 *   </Panel>
 */
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { type ChartOption, EChart } from '../../shared/charts/EChart.tsx';
import { ErrorState, LoadingState } from './States.tsx';
import './panel.css';

export const NO_USAGE = 'No requests in this range.';

export function Panel({ id, title, meta, wide = false, children }: { id: string; title: string; meta?: ReactNode; wide?: boolean; children: ReactNode }) {
  return (
    <section className={`overview-panel${wide ? '' : ' overview-panel--half'}`} aria-labelledby={`${id}-title`}>
      <div className="overview-panel__header">
        <h2 id={`${id}-title`}>{title}</h2>
        {meta && <p className="overview-panel__meta">{meta}</p>}
      </div>
      {children}
    </section>
  );
}

export function QueryStates<T>({
  query,
  loading,
  failed,
  isEmpty,
  empty = NO_USAGE,
  children,
}: {
  query: Pick<UseQueryResult<T>, 'data' | 'error' | 'isPending' | 'isError' | 'isFetching' | 'refetch'>;
  loading: string;
  /** The error state's title; its text is the error's message. */
  failed: string;
  isEmpty?: (data: T) => boolean;
  empty?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <LoadingState label={loading} />;
  // A failed refresh keeps the figures last shown; only a first failure takes their place.
  if (query.isError && query.data === undefined) return <ErrorState error={query.error} title={failed} onRetry={() => query.refetch()} retrying={query.isFetching} />;
  const data = query.data as T;
  if (isEmpty?.(data)) return <p className="overview-panel__text">{empty}</p>;
  return children(data);
}

export function ChartWithData({
  label,
  option,
  height = 260,
  columns,
  rows,
}: {
  /** What the chart shows, in words: the figure's accessible name and the table's caption. */
  label: string;
  option: ChartOption;
  height?: number;
  columns: string[];
  /** One row per point: a unique key, then its cells, the first naming it. */
  rows: { key: string; cells: string[] }[];
}) {
  return (
    <>
      <EChart label={label} height={height} option={option} />
      <details className="overview-data">
        <summary>Show data</summary>
        <div className="table-scroll data-table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">{label}</caption>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th key={column} scope="col">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map(({ key, cells: [name, ...cells] }) => (
                <tr key={key}>
                  <th scope="row">{name}</th>
                  {cells.map((cell, index) => (
                    <td key={columns[index + 1]}>{cell}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}
