/**
 * A group's usage over a date range (GET /synthetic-group/{id}/usage): requests, tokens
 * in (and read from the provider's cache) and out, cost in GBP with the providers' USD list
 * price, and how many requests had no price. The range lives in the URL
 * (`from`, `to`); without one the API answers the last 30 days, whose dates fill the inputs.
 */
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { groupUsageQuery } from '../../api/groups/queries.ts';
import { costText, countText } from '../connections/format.ts';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import type { GroupsSearch } from './search.ts';

export function GroupUsagePanel({ groupId, search }: { groupId: string; search: GroupsSearch }) {
  const range = { ...(search.from && { startDate: search.from }), ...(search.to && { endDate: search.to }) };
  const usage = useQuery(groupUsageQuery(groupId, range));
  const navigate = useNavigate();

  function pick(edge: 'from' | 'to', value: string) {
    const next = { ...search, [edge]: value || undefined };
    if (next.from && next.to && next.from > next.to) return;
    void navigate({ to: '/dashboard/synthetic-groups', search: next as never, replace: true, resetScroll: false });
  }

  return (
    <section className="group-panel" aria-labelledby="group-usage-title">
      <div className="group-panel__head">
        <h2 className="group-panel__title" id="group-usage-title">
          Usage
        </h2>
        <div className="group-usage-range">
          <label>
            From
            <input type="date" value={search.from ?? usage.data?.startDate ?? ''} max={search.to ?? usage.data?.endDate} onChange={(event) => pick('from', event.target.value)} />
          </label>
          <label>
            To
            <input type="date" value={search.to ?? usage.data?.endDate ?? ''} min={search.from ?? usage.data?.startDate} onChange={(event) => pick('to', event.target.value)} />
          </label>
        </div>
      </div>
      {usage.isPending ? (
        <LoadingState label="Loading usage…" />
      ) : usage.isError ? (
        <ErrorState error={usage.error} onRetry={() => usage.refetch()} retrying={usage.isFetching} />
      ) : usage.data.requests === 0 ? (
        <p className="group-panel__empty">No requests in this range yet. Requests made with the group's keys show here.</p>
      ) : (
        <dl className="group-usage-figures">
          <div>
            <dt>Requests</dt>
            <dd>{countText(usage.data.requests)}</dd>
          </div>
          <div>
            <dt>Input tokens</dt>
            <dd>{countText(usage.data.inputTokens)}</dd>
          </div>
          {usage.data.cachedReadTokens > 0 && (
            <div>
              <dt>Cached input tokens</dt>
              <dd>{countText(usage.data.cachedReadTokens)}</dd>
            </div>
          )}
          <div>
            <dt>Output tokens</dt>
            <dd>{countText(usage.data.outputTokens)}</dd>
          </div>
          <div>
            <dt>Cost</dt>
            <dd>{costText(usage.data.totalCostMicros, usage.data.currency)}</dd>
          </div>
          <div>
            <dt>Provider list price</dt>
            <dd>{costText(usage.data.totalCostUsdMicros, usage.data.costCurrencyUsd)}</dd>
          </div>
          {usage.data.unpricedRequests > 0 && (
            <div>
              <dt>Unpriced requests</dt>
              <dd>{countText(usage.data.unpricedRequests)}</dd>
            </div>
          )}
        </dl>
      )}
    </section>
  );
}
