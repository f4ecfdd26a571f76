// /dashboard/settings/subscription until the calls its panels read are served
// (GET /subscription/current, usage, payment-methods, billing): the free trial and a
// link to the plans. remote.ts names SubscriptionScreen instead once they are.
import { Link } from '@tanstack/react-router';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';

export function SubscriptionPlaceholder() {
  return (
    <ScreenFrame title="Subscription" description="Your plan, payment methods and invoices.">
      <EmptyState
        icon="card"
        title="Free trial"
        text="Your first 60 days are free. Choose a plan any time before the trial ends."
        action={
          <Link to="/pricing" className="button button--primary">
            Compare plans
          </Link>
        }
      />
    </ScreenFrame>
  );
}
