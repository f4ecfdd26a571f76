// /dashboard/settings: links to the account, team and subscription settings.
import { Link } from '@tanstack/react-router';
import { ScreenFrame } from '../ui/ScreenFrame.tsx';

export function SettingsScreen() {
  return (
    <ScreenFrame title="Settings" description="Your account, your team and your subscription.">
      <div className="settings-links">
        <Link to="/dashboard/settings/account" className="settings-link">
          <strong>Account</strong>
          <span>Name, e-mail, password and avatar.</span>
        </Link>
        <Link to="/dashboard/settings/team" className="settings-link">
          <strong>Team</strong>
          <span>Members and roles, invitations, seats and the team budget.</span>
        </Link>
        <Link to="/dashboard/settings/subscription" className="settings-link">
          <strong>Subscription</strong>
          <span>Plan, payment methods, invoices and usage.</span>
        </Link>
      </div>
    </ScreenFrame>
  );
}
