// /dashboard/billing/cancel: where a cancelled checkout returns.
import { Link } from '@tanstack/react-router';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';

export function BillingCancelScreen() {
  return (
    <ScreenFrame title="Payment cancelled" description="Nothing was charged.">
      <EmptyState
        icon="card"
        title="Checkout was cancelled"
        text="Your plan has not changed. You can try again whenever you are ready."
        action={
          <Link to="/dashboard/settings/subscription" className="button button--primary">
            Back to subscription
          </Link>
        }
      />
    </ScreenFrame>
  );
}
