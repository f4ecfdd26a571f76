/**
 * The subscription's plan and status: the trial's days left, the current period, a
 * cancellation already asked for; changing plan with a preview of the proration
 * (proration.ts), cancelling at the period's end or at once after a confirm dialog, and
 * — without a card on file or once cancelled — choosing a plan to pay for at checkout.
 */
import { formatMoney, money } from '@spendgate/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { cancelSubscriptionMutation, changePlanMutation } from '../../api/subscription/mutations.ts';
import { currentSubscriptionQuery, plansQuery } from '../../api/subscription/queries.ts';
import type { CurrentSubscription, Plan, SubscriptionStatus } from '../../api/subscription/types.ts';
import { isContactSales, listedPlans, priceLabel } from '../../site/components/pricing.ts';
import { DASHBOARD_SCREENS } from '../screens.ts';
import { Badge, type BadgeTone } from '../ui/Badge.tsx';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { SelectInput } from '../ui/Field.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';
import { choosePlan, openPlanRequired } from './plan-selection.ts';
import { type ProrationPreview, prorationPreview, trialDaysLeft } from './proration.ts';

/** What a panel that failed to load says (spec §8). */
export const FAILED_TO_LOAD = DASHBOARD_SCREENS.subscription.failureMessage;

const STATUS_LABELS: Record<SubscriptionStatus, string> = {
  trialing: 'Free trial',
  active: 'Active',
  past_due: 'Payment overdue',
  paused: 'Trial ended',
  canceled: 'Cancelled',
};
const STATUS_TONES: Record<SubscriptionStatus, BadgeTone> = { trialing: 'brand', active: 'good', past_due: 'danger', paused: 'brand', canceled: 'danger' };

export const billingDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const day = (iso: string) => billingDate.format(new Date(iso));
const gbp = (micros: bigint) => formatMoney(money(micros, 'GBP'));

/** The sentence under the plan's name: the trial, the period, what happens at its end. */
export function statusSentence(subscription: CurrentSubscription, now: Date): string {
  if (subscription.status === 'canceled') return subscription.canceledAt ? `Cancelled on ${day(subscription.canceledAt)}.` : 'Cancelled.';
  const { currentPeriodStart: start, currentPeriodEnd: end } = subscription;
  const ends = end === null ? 'its end' : day(end);
  if (subscription.status === 'trialing' && subscription.trialEnd) {
    const days = trialDaysLeft(subscription.trialEnd, now);
    const left = `${days} day${days === 1 ? '' : 's'} left in your free trial (it ends on ${day(subscription.trialEnd)}).`;
    return subscription.hasPaymentMethod ? `${left} Your card is charged then.` : `${left} Add a card or choose a plan before then to keep your plan's paid features.`;
  }
  if (subscription.status === 'paused') return 'Your trial has ended without a card to pay with. Choose a plan and pay to carry on.';
  if (subscription.cancelAtPeriodEnd) return `Cancelled for the end of this period: it stays as it is until ${ends}.`;
  if (subscription.status === 'past_due') return `The last payment failed. Update your card before ${ends}.`;
  return start === null || end === null ? '' : `This period runs from ${day(start)} to ${ends}.`;
}

export function prorationSentence(preview: ProrationPreview | null, trialing: boolean): string {
  if (trialing) return 'Nothing is charged during the trial: the new plan applies at once.';
  if (preview === null) return 'This plan is priced by arrangement.';
  const net = preview.netMicros >= 0n ? `${gbp(preview.netMicros)} added to` : `${gbp(-preview.netMicros)} taken off`;
  return `For the rest of this period: ${gbp(preview.chargeMicros)} for the new plan, less ${gbp(preview.creditMicros)} unused on this one — ${net} your next invoice (estimate; the invoice is exact).`;
}

export function PlanPanel() {
  const subscription = useQuery(currentSubscriptionQuery());
  const plans = useQuery(plansQuery());
  return (
    <section className="settings-panel billing-panel" aria-labelledby="plan-title">
      <h2 id="plan-title" className="settings-panel__title">
        Plan
      </h2>
      {subscription.isPending || plans.isPending ? (
        <LoadingState label="Loading your subscription…" />
      ) : subscription.isError ? (
        <ErrorState title={FAILED_TO_LOAD} error={subscription.error} onRetry={() => subscription.refetch()} retrying={subscription.isRefetching} />
      ) : plans.isError ? (
        <ErrorState title={FAILED_TO_LOAD} error={plans.error} onRetry={() => plans.refetch()} retrying={plans.isRefetching} />
      ) : (
        <PlanDetails subscription={subscription.data} plans={plans.data} />
      )}
    </section>
  );
}

function PlanDetails({ subscription, plans }: { subscription: CurrentSubscription; plans: Plan[] }) {
  const current = plans.find((plan) => plan.slug === subscription.plan);
  const canceled = subscription.status === 'canceled';
  const sentence = statusSentence(subscription, new Date());
  return (
    <>
      <p className="billing-plan">
        <strong className="billing-plan__name">{subscription.planName}</strong>
        <Badge tone={STATUS_TONES[subscription.status]}>{STATUS_LABELS[subscription.status]}</Badge>
        {current && priceLabel(current) && <span className="billing-plan__price">{priceLabel(current)}</span>}
      </p>
      {sentence && <p className="settings-panel__text">{sentence}</p>}
      {(canceled || !subscription.hasPaymentMethod) && (
        <button
          type="button"
          className="button button--primary"
          onClick={() => {
            if (current) choosePlan(current.id);
            openPlanRequired(canceled ? 'Your subscription has ended.' : 'No card is saved to pay when your trial ends.');
          }}
        >
          Choose a plan and pay
        </button>
      )}
      {!canceled && current && <ChangePlan subscription={subscription} current={current} plans={plans} />}
      {!canceled && !subscription.cancelAtPeriodEnd && <CancelSubscription />}
    </>
  );
}

function ChangePlan({ subscription, current, plans }: { subscription: CurrentSubscription; current: Plan; plans: Plan[] }) {
  const change = useMutation(changePlanMutation(useQueryClient()));
  const others = listedPlans(plans).filter((plan) => plan.id !== current.id && !isContactSales(plan));
  const [target, setTarget] = useState('');
  const chosen = others.find((plan) => plan.id === target);
  if (others.length === 0) return null;
  return (
    <form
      className="billing-change"
      aria-label="Change plan"
      onSubmit={(event) => {
        event.preventDefault();
        if (chosen) change.mutate(chosen.id, { onSuccess: () => setTarget('') });
      }}
    >
      <SelectInput label="New plan" id="change-plan" value={target} onChange={(event) => setTarget(event.target.value)}>
        <option value="">Choose a plan…</option>
        {others.map((plan) => (
          <option key={plan.id} value={plan.id}>
            {plan.name} {priceLabel(plan) && `(${priceLabel(plan)})`}
          </option>
        ))}
      </SelectInput>
      {chosen && (
        <p className="settings-panel__text" aria-live="polite">
          {prorationSentence(prorationPreview(subscription, current, chosen, new Date()), subscription.status === 'trialing')}
        </p>
      )}
      {change.isError && (
        <p className="alert alert--error" role="alert">
          {change.error.message}
        </p>
      )}
      <button type="submit" className="button button--ghost" disabled={!chosen || change.isPending}>
        {change.isPending ? 'Changing plan…' : chosen ? `Change to ${chosen.name}` : 'Change plan'}
      </button>
    </form>
  );
}

function CancelSubscription() {
  const cancel = useMutation(cancelSubscriptionMutation(useQueryClient()));
  const [asking, setAsking] = useState(false);
  const [immediate, setImmediate] = useState(false);
  const close = () => {
    setAsking(false);
    setImmediate(false);
    cancel.reset();
  };
  return (
    <>
      <button type="button" className="button button--ghost billing-cancel" onClick={() => setAsking(true)}>
        Cancel subscription
      </button>
      {asking && (
        <ConfirmDialog
          title="Cancel your subscription?"
          confirmLabel={immediate ? 'Cancel now' : 'Cancel at period end'}
          cancelLabel="Keep subscription"
          destructive
          busy={cancel.isPending}
          error={cancel.error?.message}
          onConfirm={() => cancel.mutate(immediate, { onSuccess: close })}
          onCancel={close}
        >
          <fieldset className="plan-choice">
            <legend className="plan-choice__legend">When</legend>
            <label className="plan-choice__option">
              <input type="radio" name="cancel-when" checked={!immediate} onChange={() => setImmediate(false)} />
              At the end of this period: everything keeps working until then.
            </label>
            <label className="plan-choice__option">
              <input type="radio" name="cancel-when" checked={immediate} onChange={() => setImmediate(true)} />
              Now: the plan ends at once and the usage so far is invoiced.
            </label>
          </fieldset>
        </ConfirmDialog>
      )}
    </>
  );
}
