// /dashboard/billing/success: where a checkout returns after payment.
import { Link } from '@tanstack/react-router';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';

export function BillingSuccessScreen() {
  return (
    <ScreenFrame title="Payment complete" description="Thank you — your subscription is active.">
      <EmptyState
        icon="check"
        title="You're all set"
        text="Your plan change takes effect now. Invoices are in Settings → Subscription."
        action={
          <Link to="/dashboard" className="button button--primary">
            Back to the dashboard
          </Link>
        }
      />
    </ScreenFrame>
  );
}
