/**
 * The request log on the overview: the filtered range's requests newest first, a page
 * at a time (GET /usage/requests, keyset cursor), each linking through the router to its
 * detail screen (/dashboard/requests/$requestId). An unpriced request says so instead of a cost.
 */
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { requestLogQuery } from '../../api/usage/queries.ts';
import type { RequestLogItem, UsageFilters } from '../../api/usage/types.ts';
import { countText } from '../connections/format.ts';
import { Badge } from '../ui/Badge.tsx';
import { Panel, QueryStates } from '../ui/Panel.tsx';
import { amountText } from './filters.ts';

const timeText = (iso: string) => iso.slice(0, 19).replace('T', ' ');

/** Who sent a request: its key and group, or the AI advisor's wording, which the team calls without a key. */
export function senderOf(item: Pick<RequestLogItem, 'keyId' | 'keyName' | 'groupName'>): { key: string; group: string } {
  if (item.keyId === null) return { key: 'AI advisor wording', group: 'The whole team' };
  return { key: item.keyName ?? 'Deleted key', group: item.groupName ?? 'Deleted group' };
}

function costCell(item: RequestLogItem) {
  if (item.unpriced || item.cost === null) return <Badge>Unpriced</Badge>;
  return (
    <>
      {amountText(item.cost, 'GBP')}
      {item.costUsd !== null && <span className="overview-log__usd"> ({amountText(item.costUsd, 'USD')})</span>}
    </>
  );
}

export function RequestLog({ filters }: { filters: UsageFilters }) {
  const log = useInfiniteQuery(requestLogQuery(filters));
  const items = log.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <Panel id="usage-requests" title="Requests" meta={log.data && `Newest first, times in UTC`} wide>
      <QueryStates query={log} loading="Loading requests…" failed="Requests could not be loaded" isEmpty={() => items.length === 0}>
        {() => (
          <>
            <div className="table-scroll">
              <table className="overview-log">
                <caption className="visually-hidden">Requests in this range, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Key</th>
                    <th scope="col">Model</th>
                    <th scope="col">Status</th>
                    <th scope="col">Tokens</th>
                    <th scope="col">Cost</th>
                    <th scope="col">Latency</th>
                  </tr>
                </thead>
                <tbody>
                  {items.map((item) => (
                    <tr key={item.requestId}>
                      <th scope="row">
                        <Link to="/dashboard/requests/$requestId" params={{ requestId: item.requestId }} aria-label={`Request ${item.requestId} at ${timeText(item.occurredAt)}`}>
                          {timeText(item.occurredAt)}
                        </Link>
                      </th>
                      <td>
                        {senderOf(item).key}
                        <span className="overview-log__sub">{senderOf(item).group}</span>
                      </td>
                      <td>
                        {item.model}
                        <span className="overview-log__sub">{item.provider}</span>
                      </td>
                      <td>{item.statusCode}</td>
                      <td>
                        {countText(item.totalTokens)}
                        {item.estimated && <> <Badge>Estimated</Badge></>}
                      </td>
                      <td>{costCell(item)}</td>
                      <td>{countText(item.latencyMs)} ms</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {log.hasNextPage && (
              <button type="button" className="button button--ghost button--small overview-log__more" onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>
                {log.isFetchingNextPage ? 'Loading…' : 'Show older requests'}
              </button>
            )}
          </>
        )}
      </QueryStates>
    </Panel>
  );
}
