/**
 * This billing period's usage against the plan's allowances (GET usage?period=current):
 * optimised keys, groups, seats and AI advisor insights used of those included, what
 * the ones beyond cost so far; the per-request fees (optimised, BYOM); the total so far.
 */
import { formatMoney, money } from '@spendgate/core';
import { useQuery } from '@tanstack/react-query';
import { usageQuery } from '../../api/subscription/queries.ts';
import type { AllowanceKind, RequestFeeKind, SubscriptionUsage } from '../../api/subscription/types.ts';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { billingDate, FAILED_TO_LOAD } from './PlanPanel.tsx';

const ALLOWANCE_LABELS: Record<AllowanceKind, string> = {
  keys: 'Optimised keys',
  groups: 'Synthetic groups',
  seats: 'Seats',
  'advisor-insights': 'AI advisor insights',
};

const FEE_LABELS: Record<RequestFeeKind, string> = {
  'optimised-uplift': 'Optimised requests (uplift)',
  'optimised-minimum-fee': 'Optimised minimum fees (under 100 tokens)',
  'byom-routing-fee': 'BYOM routing fees',
};

const gbp = (micros: string) => formatMoney(money(BigInt(micros), 'GBP'));
const count = new Intl.NumberFormat('en-GB');

export function UsagePanel() {
  const usage = useQuery(usageQuery());
  return (
    <section className="settings-panel billing-panel" aria-labelledby="usage-title">
      <h2 id="usage-title" className="settings-panel__title">
        This period's usage
      </h2>
      {usage.isPending ? (
        <LoadingState label="Loading usage…" />
      ) : usage.isError ? (
        <ErrorState title={FAILED_TO_LOAD} error={usage.error} onRetry={() => usage.refetch()} retrying={usage.isRefetching} />
      ) : (
        <UsageTable usage={usage.data} />
      )}
    </section>
  );
}

function UsageTable({ usage }: { usage: SubscriptionUsage }) {
  const empty = usage.allowances.every((allowance) => allowance.used === 0) && usage.requestFees.every((fee) => BigInt(fee.requests) === 0n);
  return (
    <>
      <p className="settings-panel__text">
        {billingDate.format(new Date(usage.periodStart))} – {billingDate.format(new Date(usage.periodEnd))}.{' '}
        {empty ? 'Nothing used yet this period.' : `So far: ${gbp(usage.totalMicros)} beyond the plan's fee.`}
      </p>
      <div className="table-scroll billing-table-scroll">
        <table className="billing-table">
          <caption className="visually-hidden">Usage against the plan's allowances</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Used</th>
              <th scope="col">Charged so far</th>
            </tr>
          </thead>
          <tbody>
            {usage.allowances.map((allowance) => (
              <tr key={allowance.kind}>
                <th scope="row">{ALLOWANCE_LABELS[allowance.kind]}</th>
                <td>
                  {count.format(allowance.used)} of {allowance.included === null ? 'unlimited' : `${count.format(allowance.included)} included`}
                </td>
                <td>{gbp(allowance.chargeMicros)}</td>
              </tr>
            ))}
            {usage.requestFees.map((fee) => (
              <tr key={fee.kind}>
                <th scope="row">{FEE_LABELS[fee.kind]}</th>
                <td>
                  {count.format(BigInt(fee.requests))} request{fee.requests === '1' ? '' : 's'}
                </td>
                <td>{gbp(fee.chargeMicros)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td />
              <td>{gbp(usage.totalMicros)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );
}
