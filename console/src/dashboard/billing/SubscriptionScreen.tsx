// /dashboard/settings/subscription: the account's plan and status, this period's usage
// against its allowances, its cards and its invoices, each panel loading on its own.
import { ScreenFrame } from '../ui/ScreenFrame.tsx';
import { InvoicesPanel } from './InvoicesPanel.tsx';
import { PaymentMethodsPanel } from './PaymentMethodsPanel.tsx';
import { PlanPanel } from './PlanPanel.tsx';
import { UsagePanel } from './UsagePanel.tsx';
import '../../styles/settings.css';
import './billing.css';

export function SubscriptionScreen() {
  return (
    <ScreenFrame title="Subscription" description="Your plan, this period's usage, payment methods and invoices.">
      <div className="billing-layout">
        <PlanPanel />
        <UsagePanel />
        <PaymentMethodsPanel />
        <InvoicesPanel />
      </div>
    </ScreenFrame>
  );
}
