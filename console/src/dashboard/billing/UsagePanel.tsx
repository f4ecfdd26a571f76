/**
 * This billing period's usage (GET usage?period=current), priced as its invoice would be:
 * a line per charge (plan fee, optimised uplift and minimum fees, BYOM routing fees,
 * advisor insights, extra keys, groups and seats) and the total so far; then each team's
 * allowances: seats, synthetic groups and optimised keys used of those included. A 404
 * (the server knows no period under way) is said as such, not as a failure.
 */
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../api/client.ts';
import { usageQuery } from '../../api/subscription/queries.ts';
import type { Allowance, Allowances, SubscriptionUsage } from '../../api/subscription/types.ts';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { InvoiceLinesTable, pounds } from './InvoicesPanel.tsx';
import { billingDate, FAILED_TO_LOAD } from './PlanPanel.tsx';
import '../ui/panel.css';

const ALLOWANCE_LABELS: Record<keyof Allowances, string> = { optimisedKeys: 'Optimised keys', syntheticGroups: 'Synthetic groups', seats: 'Seats' };

const count = new Intl.NumberFormat('en-GB');

function allowanceText({ used, included, extra }: Allowance): string {
  if (included === null) return `${count.format(used)} (unlimited)`;
  return `${count.format(used)} of ${count.format(included)} included${extra > 0 ? `, ${count.format(extra)} extra` : ''}`;
}

export function UsagePanel() {
  const usage = useQuery(usageQuery());
  return (
    <section className="settings-panel billing-panel" aria-labelledby="usage-title">
      <h2 id="usage-title" className="settings-panel__title">
        This period's usage
      </h2>
      {usage.isPending ? (
        <LoadingState label="Loading usage…" />
      ) : usage.error instanceof ApiError && usage.error.status === 404 ? (
        <p className="settings-panel__text">No billing period is under way: usage is counted from the start of the next one.</p>
      ) : usage.isError ? (
        <ErrorState title={FAILED_TO_LOAD} error={usage.error} onRetry={() => usage.refetch()} retrying={usage.isRefetching} />
      ) : (
        <UsageDetails usage={usage.data} />
      )}
    </section>
  );
}

function UsageDetails({ usage }: { usage: SubscriptionUsage }) {
  const { period } = usage;
  return (
    <>
      <p className="settings-panel__text">
        {period.trial ? 'Your free trial' : 'This period'}: {billingDate.format(new Date(period.start))} – {billingDate.format(new Date(period.end))}.{' '}
        {usage.charged ? `So far: ${pounds(usage.totalPence)}.` : `Nothing is charged for it (so far it would be ${pounds(usage.totalPence)}).`}
      </p>
      {usage.lines.length === 0 ? (
        <p className="settings-panel__text">Nothing used yet this period.</p>
      ) : (
        <InvoiceLinesTable caption="This period's charges so far" lines={usage.lines} totalPence={usage.totalPence} />
      )}
      {usage.teams.map((team) => (
        <div key={team.teamId} className="table-scroll data-table-scroll">
          <table className="data-table">
            <caption className="data-table__caption">{team.name}: allowances</caption>
            <thead>
              <tr>
                <th scope="col">Allowance</th>
                <th scope="col">Used now</th>
              </tr>
            </thead>
            <tbody>
              {(Object.keys(ALLOWANCE_LABELS) as (keyof Allowances)[]).map((kind) => (
                <tr key={kind}>
                  <th scope="row">{ALLOWANCE_LABELS[kind]}</th>
                  <td>{allowanceText(team.allowances[kind])}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </>
  );
}
