// The private dashboard screens. Their data (usage, connections, groups, billing) is
// wired in the next console issue; until then each shows its frame and empty state.
import { Link } from '@tanstack/react-router';
import { useSession } from '../../shared/session.ts';
import { EmptyState, ScreenFrame } from './ScreenFrame.tsx';

export function OverviewScreen() {
  const { user } = useSession();
  return (
    <ScreenFrame title={`Welcome${user?.name ? `, ${user.name}` : ''}`} description="Usage, cost and forecasts across every provider your team uses.">
      <EmptyState
        icon="chart"
        title="No usage yet"
        text="Connect an AI provider and issue a key: requests made with it show up here within seconds."
        action={
          <Link to="/dashboard/ai-connection" className="button button--primary">
            Connect a provider
          </Link>
        }
      />
    </ScreenFrame>
  );
}

export function AiConnectionsScreen() {
  return (
    <ScreenFrame title="AI Connections" description="The provider accounts your team routes requests to.">
      <EmptyState icon="plug" title="No connections yet" text="Add an API key for OpenAI, Anthropic, Gemini or your own model endpoint." />
    </ScreenFrame>
  );
}

export function SyntheticGroupsScreen() {
  return (
    <ScreenFrame
      title="Synthetic Groups"
      description="Usage grouped by team, product or customer, each with its own members and keys."
      actions={
        <Link to="/dashboard/addgroup" className="button button--primary">
          Add group
        </Link>
      }
    >
      <EmptyState icon="layers" title="No groups yet" text="Create a group to attribute spend and issue keys to it." />
    </ScreenFrame>
  );
}

export function AddGroupScreen() {
  return (
    <ScreenFrame title="Add a synthetic group" description="Name the group, choose its members and their roles.">
      <EmptyState icon="plus" title="Create a group" text="Groups collect usage and keys for one team, product or customer." />
    </ScreenFrame>
  );
}

export function SettingsScreen() {
  return (
    <ScreenFrame title="Settings" description="Your account, your team and your subscription.">
      <div className="settings-links">
        <Link to="/dashboard/settings/account" className="settings-link">
          <strong>Account</strong>
          <span>Name, e-mail, password and avatar.</span>
        </Link>
        <Link to="/dashboard/settings/subscription" className="settings-link">
          <strong>Subscription</strong>
          <span>Plan, payment methods, invoices and usage.</span>
        </Link>
      </div>
    </ScreenFrame>
  );
}

export function AccountScreen() {
  const { user } = useSession();
  return (
    <ScreenFrame title="Account" description="How you sign in and how your team sees you.">
      <dl className="details">
        <div>
          <dt>Name</dt>
          <dd>{user?.name ?? '—'}</dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd>{user?.email ?? '—'}</dd>
        </div>
      </dl>
    </ScreenFrame>
  );
}

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
