/**
 * One connection's usage over a date range (GET /provider/connections/{id}/usage):
 * requests, tokens by kind, cost in GBP and the providers' USD list price. The range
 * lives in the URL (`from`, `to`); without one the API answers the last 30 days (spec §3),
 * whose dates fill the inputs.
 */
import { useQuery } from '@tanstack/react-query';
import { connectionUsageQuery, type DateRange } from '../../api/connections/queries.ts';
import type { Connection } from '../../api/connections/types.ts';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { costText, countText } from './format.ts';

export function ConnectionUsagePanel({ connection, range, onRange }: { connection: Connection; range: DateRange; onRange: (range: DateRange) => void }) {
  const usage = useQuery(connectionUsageQuery(connection.id, range));
  const headingId = `usage-${connection.id}`;
  return (
    <section className="connection-usage" aria-labelledby={headingId}>
      <div className="connection-usage__header">
        <h3 id={headingId}>Usage of {connection.name}</h3>
        <fieldset className="connection-usage__range">
          <legend className="visually-hidden">Date range</legend>
          <label>
            From
            <input
              type="date"
              value={range.startDate ?? usage.data?.startDate ?? ''}
              max={range.endDate ?? usage.data?.endDate}
              onChange={(event) => event.target.value && onRange({ ...range, startDate: event.target.value })}
            />
          </label>
          <label>
            To
            <input
              type="date"
              value={range.endDate ?? usage.data?.endDate ?? ''}
              min={range.startDate ?? usage.data?.startDate}
              onChange={(event) => event.target.value && onRange({ ...range, endDate: event.target.value })}
            />
          </label>
        </fieldset>
      </div>
      {usage.isPending ? (
        <LoadingState label="Loading usage…" />
      ) : usage.isError ? (
        <ErrorState error={usage.error} title="Usage could not be loaded" onRetry={() => usage.refetch()} retrying={usage.isFetching} />
      ) : usage.data.requests === 0 ? (
        <p className="connection-usage__empty">
          No requests went through this connection from {usage.data.startDate} to {usage.data.endDate}.
        </p>
      ) : (
        <dl className="figures">
          <div className="figures__item">
            <dt>Requests</dt>
            <dd>{countText(usage.data.requests)}</dd>
          </div>
          <div className="figures__item">
            <dt>Cost</dt>
            <dd>{costText(usage.data.totalCostMicros, usage.data.currency)}</dd>
          </div>
          <div className="figures__item">
            <dt>Provider list price</dt>
            <dd>{costText(usage.data.totalCostUsdMicros, usage.data.costCurrencyUsd)}</dd>
          </div>
          <div className="figures__item">
            <dt>Input tokens</dt>
            <dd>{countText(usage.data.inputTokens + usage.data.cachedReadTokens + usage.data.cacheWriteTokens)}</dd>
          </div>
          <div className="figures__item">
            <dt>Output tokens</dt>
            <dd>{countText(usage.data.outputTokens)}</dd>
          </div>
          {usage.data.unpricedRequests > 0 && (
            <div className="figures__item">
              <dt>Unpriced requests</dt>
              <dd>{countText(usage.data.unpricedRequests)}</dd>
            </div>
          )}
        </dl>
      )}
    </section>
  );
}
