/**
 * What the billing pages say about the checkout a payment provider sent the person back
 * from (`?session_id=`): only what the server answers for it. "Payment complete" only
 * when it says the checkout was paid; for no checkout, an unknown one (404), an unpaid
 * or expired one, that nothing was charged. A failed lookup offers Retry.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useRouterState } from '@tanstack/react-router';
import { ApiError } from '../../api/client.ts';
import { checkoutQuery } from '../../api/subscription/queries.ts';
import type { CheckoutSession } from '../../api/subscription/types.ts';
import type { IconName } from '../../shared/ui/Icon.tsx';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';
import { ErrorState, LoadingState } from '../ui/States.tsx';

/** The page the payment provider sent the person back to. */
export type CheckoutReturn = 'success' | 'cancel';

interface Outcome {
  title: string;
  description: string;
  icon: IconName;
  heading: string;
  text: string;
}

const NOTHING_CHARGED = 'Nothing was charged.';

function outcomeOf(checkout: CheckoutSession, returnedFrom: CheckoutReturn): Outcome {
  if (checkout.paymentStatus === 'paid') {
    return {
      title: 'Payment complete',
      description: 'Your payment was received.',
      icon: 'check',
      heading: "You're all set",
      text: 'Your plan change takes effect now. Invoices are in Settings → Subscription.',
    };
  }
  if (checkout.paymentStatus === 'no_payment_required' && checkout.status === 'complete') {
    return { title: 'No payment needed', description: NOTHING_CHARGED, icon: 'check', heading: 'Your plan is updated', text: 'This change needed no payment.' };
  }
  if (checkout.status === 'expired') {
    return { title: 'Checkout expired', description: NOTHING_CHARGED, icon: 'card', heading: 'This checkout has expired', text: 'Start again from Settings → Subscription whenever you are ready.' };
  }
  return returnedFrom === 'cancel'
    ? { title: 'Payment cancelled', description: NOTHING_CHARGED, icon: 'card', heading: 'Checkout was cancelled', text: 'Your plan has not changed. You can try again whenever you are ready.' }
    : { title: 'Payment not completed', description: NOTHING_CHARGED, icon: 'card', heading: 'The payment has not gone through', text: 'The checkout is still open: your plan has not changed yet.' };
}

/** When the server knows no such checkout, or none was named. */
function unknownCheckout(returnedFrom: CheckoutReturn, reason: string): Outcome {
  return {
    title: returnedFrom === 'cancel' ? 'Payment cancelled' : 'No payment was taken',
    description: NOTHING_CHARGED,
    icon: 'card',
    heading: 'Your plan has not changed',
    text: `${reason} ${NOTHING_CHARGED}`,
  };
}

function OutcomeView({ outcome }: { outcome: Outcome }) {
  return (
    <ScreenFrame title={outcome.title} description={outcome.description}>
      <EmptyState
        icon={outcome.icon}
        title={outcome.heading}
        text={outcome.text}
        action={
          <Link to="/dashboard/settings/subscription" className="button button--primary">
            Back to subscription
          </Link>
        }
      />
    </ScreenFrame>
  );
}

export function CheckoutResult({ returnedFrom }: { returnedFrom: CheckoutReturn }) {
  const sessionId = useRouterState({ select: (state) => (state.location.search as { session_id?: unknown }).session_id });
  const named = typeof sessionId === 'string' || typeof sessionId === 'number' ? String(sessionId) : '';
  const checkout = useQuery({ ...checkoutQuery(named), enabled: named !== '' });

  if (named === '') return <OutcomeView outcome={unknownCheckout(returnedFrom, 'No checkout was named.')} />;
  if (checkout.isPending) {
    return (
      <ScreenFrame title="Checking your payment" description="Asking the server what happened to this checkout.">
        <LoadingState label="Checking your payment…" />
      </ScreenFrame>
    );
  }
  if (checkout.isError) {
    if (checkout.error instanceof ApiError && checkout.error.status === 404) {
      return <OutcomeView outcome={unknownCheckout(returnedFrom, `The server answered: ${checkout.error.message}.`)} />;
    }
    return (
      <ScreenFrame title="Checking your payment" description="We could not find out what happened to this checkout.">
        <ErrorState error={checkout.error} title="The checkout could not be checked" onRetry={() => checkout.refetch()} retrying={checkout.isFetching} />
      </ScreenFrame>
    );
  }
  return <OutcomeView outcome={outcomeOf(checkout.data, returnedFrom)} />;
}
