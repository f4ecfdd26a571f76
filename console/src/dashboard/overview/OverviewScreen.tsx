// /dashboard: the first screen after sign-in.
import { Link } from '@tanstack/react-router';
import { useSession } from '../../shared/session.ts';
import { EmptyState, ScreenFrame } from '../ui/ScreenFrame.tsx';

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
