// /dashboard/settings/subscription: the team's plan.
import { Link } from '@tanstack/react-router';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';

export function SubscriptionScreen() {
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
