/**
 * Dashboard screens inside the site: a spinner while the dashboard bundle loads, the
 * 502 screen with the route's own message when it cannot be loaded, else the screen.
 * DashboardLayout wraps every /dashboard route in the dashboard's shell; when the
 * bundle fails there, the message is the one of the screen that was asked for.
 */
import { Outlet, useMatches } from '@tanstack/react-router';
import { DASHBOARD_SCREENS, type DashboardScreenName } from '../../dashboard/screens.ts';
import { Spinner } from '../../shared/ui/Spinner.tsx';
import { StatusScreen } from '../components/StatusScreen.tsx';
import { useDashboard } from './load-dashboard.ts';

/** What the site shows when the dashboard bundle cannot be loaded (spec §8). */
const REMOTE_FAILURE_STATUS = 502;

function RemoteFailure({ screen }: { screen: DashboardScreenName }) {
  return <StatusScreen code={REMOTE_FAILURE_STATUS} message={DASHBOARD_SCREENS[screen].failureMessage} />;
}

export function RemoteScreen({ screen }: { screen: DashboardScreenName }) {
  const dashboard = useDashboard();
  if (dashboard.status === 'loading') return <Spinner page label="Loading the dashboard…" />;
  if (dashboard.status === 'failed') return <RemoteFailure screen={screen} />;
  const Screen = dashboard.module.screens[screen];
  return <Screen />;
}

export function DashboardLayout() {
  const dashboard = useDashboard();
  const requested = useMatches({ select: (matches) => matches.at(-1)?.staticData.screen ?? 'overview' });
  if (dashboard.status === 'loading') return <Spinner page label="Loading the dashboard…" />;
  if (dashboard.status === 'failed') return <RemoteFailure screen={requested} />;
  const { DashboardShell } = dashboard.module;
  return (
    <DashboardShell>
      <Outlet />
    </DashboardShell>
  );
}
