/**
 * The plan-required modal (spec §3): shown when an action needs a plan the team lacks
 * (plan-selection.ts opens it, with the server's words for why). It lists the plans a
 * team can buy (free trial hidden, oldest first; Enterprise by e-mail to sales), and
 * "Continue to checkout" opens the payment provider's checkout for the plan chosen.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { createCheckoutSessionMutation } from '../../api/subscription/mutations.ts';
import { plansQuery } from '../../api/subscription/queries.ts';
import { isContactSales, listedPlans, priceLabel } from '../../site/components/pricing.ts';
import { salesMailto } from '../../shared/config.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { LoadingState } from '../ui/States.tsx';
import { choosePlan, closePlanRequired, setPlanSelectionError, usePlanSelection } from './plan-selection.ts';
import './billing.css';

/** Where a started checkout goes: the payment provider's page (a full page load). */
const goToCheckout = (url: string) => window.location.assign(url);

/** `openCheckout`: what opens the checkout's page (a test watches it instead). */
export function PlanRequiredModal({ openCheckout = goToCheckout }: { openCheckout?: (url: string) => void }) {
  const selection = usePlanSelection();
  if (!selection.modalOpen) return null;
  return <PlanChoice reason={selection.reason} selectedPlanId={selection.selectedPlanId} error={selection.error} openCheckout={openCheckout} />;
}

function PlanChoice({
  reason,
  selectedPlanId,
  error,
  openCheckout,
}: {
  reason: string | null;
  selectedPlanId: string | null;
  error: string | null;
  openCheckout: (url: string) => void;
}) {
  const plans = useQuery(plansQuery());
  const checkout = useMutation(createCheckoutSessionMutation());
  const offered = plans.data ? listedPlans(plans.data) : [];
  const chosen = offered.find((plan) => plan.id === selectedPlanId && !isContactSales(plan));

  const proceed = () => {
    if (!chosen) return setPlanSelectionError('Choose a plan to continue.');
    checkout.mutate(chosen.id, { onSuccess: ({ url }) => openCheckout(url), onError: (failure) => setPlanSelectionError(failure.message) });
  };

  return (
    <ConfirmDialog
      title="Choose a plan"
      confirmLabel={checkout.isPending ? 'Opening checkout…' : 'Continue to checkout'}
      busy={checkout.isPending}
      error={error ?? (plans.isError ? plans.error.message : undefined)}
      onConfirm={proceed}
      onCancel={closePlanRequired}
    >
      <p>{reason ?? 'This needs a paid plan.'} Pick one to pay for it with a card; you can change or cancel it any time.</p>
      {plans.isPending ? (
        <LoadingState label="Loading plans…" />
      ) : (
        <fieldset className="plan-choice">
          <legend className="plan-choice__legend">Plans</legend>
          {offered.map((plan) =>
            isContactSales(plan) ? (
              <p key={plan.id} className="plan-choice__option">
                <strong>{plan.name}</strong>{' '}
                <a className="text-link" href={salesMailto()}>
                  Contact Sales
                </a>
              </p>
            ) : (
              <label key={plan.id} className="plan-choice__option">
                <input type="radio" name="plan-choice" value={plan.id} checked={plan.id === selectedPlanId} onChange={() => choosePlan(plan.id)} />
                <strong>{plan.name}</strong> <span>{priceLabel(plan)}</span>
              </label>
            ),
          )}
        </fieldset>
      )}
    </ConfirmDialog>
  );
}
