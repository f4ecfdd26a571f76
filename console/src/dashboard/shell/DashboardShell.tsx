/**
 * The dashboard's frame: a sidebar (open by default) with the screens the table
 * (screens.ts) gives an entry, a top bar with the sidebar toggle, the theme (the
 * system's until one is chosen, shared/theme.ts) and the account. When the session
 * ends (logout, a 401, another tab) it goes to /login.
 */
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type ReactNode, useEffect, useState } from 'react';
import { logout } from '../../api/auth/mutations.ts';
import { useSession } from '../../shared/session.ts';
import { useTheme } from '../../shared/theme.ts';
import { Icon } from '../../shared/ui/Icon.tsx';
import { Logo } from '../../shared/ui/Logo.tsx';
import { DASHBOARD_SCREENS, type DashboardScreen } from '../screens.ts';

/** The sidebar's entries: the screens with one, in the table's order. */
const NAVIGATION = Object.values(DASHBOARD_SCREENS).flatMap((screen: DashboardScreen) => (screen.nav ? [{ to: screen.path, ...screen.nav }] : []));

export function DashboardShell({ children }: { children: ReactNode }) {
  const [sidebarOpen, setSidebarOpen] = useState(true);
  const [theme, setTheme] = useTheme();
  const session = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!session.token) void navigate({ to: '/login', replace: true });
  }, [session.token, navigate]);

  return (
    <div className={`dashboard theme-${theme}${sidebarOpen ? ' dashboard--sidebar-open' : ''}`}>
      <aside className="dashboard__sidebar" aria-label="Dashboard" hidden={!sidebarOpen}>
        <Link to="/" className="dashboard__brand" aria-label="Spendgate home">
          <Logo />
        </Link>
        <nav className="dashboard__nav">
          {NAVIGATION.map((item) => (
            <Link
              key={item.to}
              to={item.to}
              className="dashboard__nav-link"
              activeOptions={{ exact: item.exact ?? false }}
              activeProps={{ className: 'is-active', 'aria-current': 'page' }}
            >
              <Icon name={item.icon} size={20} />
              {item.label}
            </Link>
          ))}
        </nav>
        <Link to="/help-center" className="dashboard__nav-link dashboard__help">
          <Icon name="bulb" size={20} />
          Documentation &amp; Support
        </Link>
      </aside>
      <div className="dashboard__main">
        <header className="dashboard__topbar">
          <button
            type="button"
            className="icon-button"
            aria-label={sidebarOpen ? 'Hide sidebar' : 'Show sidebar'}
            aria-expanded={sidebarOpen}
            onClick={() => setSidebarOpen(!sidebarOpen)}
          >
            <Icon name="menu" size={20} />
          </button>
          <div className="dashboard__topbar-end">
            <button
              type="button"
              className="icon-button"
              aria-label={theme === 'light' ? 'Use dark theme' : 'Use light theme'}
              onClick={() => setTheme(theme === 'light' ? 'dark' : 'light')}
            >
              <Icon name={theme === 'light' ? 'moon' : 'sun'} size={20} />
            </button>
            <span className="dashboard__user">{session.user?.email}</span>
            <button type="button" className="button button--ghost button--small" onClick={() => logout(queryClient)}>
              <Icon name="logout" size={18} /> Logout
            </button>
          </div>
        </header>
        <div className="dashboard__content">{children}</div>
      </div>
    </div>
  );
}
