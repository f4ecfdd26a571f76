/**
 * The dashboard's frame: a sidebar with the screens the table (screens.ts) gives an
 * entry, a top bar with the sidebar toggle, the theme (the system's until one is
 * chosen, shared/theme.ts) and the account. When the session ends (logout, a 401,
 * another tab) it goes to /login.
 *
 * On a wide screen the sidebar is open beside the page and the toggle hides it. Below
 * NARROW_QUERY it is a drawer over the page: closed at first, opened by the menu
 * button, closed again by a link followed, Escape or the backdrop, with focus moved
 * into it and given back to the menu button; the page behind is inert meanwhile.
 *
 * An action refused for want of a plan (402 plan_limit) opens the plan-required modal
 * over whichever screen it came from.
 */
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useRouterState } from '@tanstack/react-router';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { logout } from '../../api/auth/mutations.ts';
import { useSession } from '../../shared/session.ts';
import { useTheme } from '../../shared/theme.ts';
import { Icon } from '../../shared/ui/Icon.tsx';
import { Logo } from '../../shared/ui/Logo.tsx';
import { PlanRequiredModal } from '../billing/PlanRequiredModal.tsx';
import { watchPlanLimits } from '../billing/plan-selection.ts';
import { DASHBOARD_SCREENS, type DashboardScreen } from '../screens.ts';
import { NARROW_QUERY, useMediaQuery } from './media-query.ts';

/** The sidebar's entries: the screens with one, in the table's order. */
const NAVIGATION = Object.values(DASHBOARD_SCREENS).flatMap((screen: DashboardScreen) => (screen.nav ? [{ to: screen.path, ...screen.nav }] : []));

const SIDEBAR_ID = 'dashboard-sidebar';

export function DashboardShell({ children }: { children: ReactNode }) {
  const narrow = useMediaQuery(NARROW_QUERY);
  const [wideSidebarOpen, setWideSidebarOpen] = useState(true);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const sidebarOpen = narrow ? drawerOpen : wideSidebarOpen;
  const [theme, setTheme] = useTheme();
  const session = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const menuButton = useRef<HTMLButtonElement>(null);
  const sidebar = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!session.token) void navigate({ to: '/login', replace: true });
  }, [session.token, navigate]);

  useEffect(() => watchPlanLimits(queryClient), [queryClient]);

  // A link followed in the drawer closes it.
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes on every change of page.
  useEffect(() => {
    setDrawerOpen(false);
  }, [pathname]);

  const drawerShown = narrow && drawerOpen;
  useEffect(() => {
    if (!drawerShown) return;
    sidebar.current?.querySelector<HTMLElement>('nav a[href]')?.focus();
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setDrawerOpen(false);
      // After the render that lifts `inert` from the page, where the menu button is.
      requestAnimationFrame(() => menuButton.current?.focus());
    };
    document.addEventListener('keydown', closeOnEscape);
    return () => document.removeEventListener('keydown', closeOnEscape);
  }, [drawerShown]);

  const toggleLabel = narrow ? 'Open menu' : wideSidebarOpen ? 'Hide sidebar' : 'Show sidebar';

  function closeDrawer() {
    setDrawerOpen(false);
    // After the render that lifts `inert` from the page, where the menu button is.
    requestAnimationFrame(() => menuButton.current?.focus());
  }

  return (
    <div className={`dashboard theme-${theme}${sidebarOpen ? ' dashboard--sidebar-open' : ''}`}>
      {drawerShown && <div className="dashboard__backdrop" aria-hidden="true" onClick={closeDrawer} />}
      <aside ref={sidebar} id={SIDEBAR_ID} className="dashboard__sidebar" aria-label="Dashboard" hidden={!sidebarOpen}>
        <div className="dashboard__sidebar-head">
          <Link to="/" className="dashboard__brand" aria-label="Spendgate home">
            <Logo />
          </Link>
          {drawerShown && (
            <button type="button" className="icon-button" aria-label="Close menu" onClick={closeDrawer}>
              <Icon name="close" size={20} />
            </button>
          )}
        </div>
        <nav className="dashboard__nav" aria-label="Dashboard screens">
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
      <div className="dashboard__main" inert={drawerShown}>
        <header className="dashboard__topbar">
          <button
            ref={menuButton}
            type="button"
            className="icon-button"
            aria-label={toggleLabel}
            aria-expanded={sidebarOpen}
            aria-controls={SIDEBAR_ID}
            onClick={() => (narrow ? setDrawerOpen(!drawerOpen) : setWideSidebarOpen(!wideSidebarOpen))}
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
      <PlanRequiredModal />
    </div>
  );
}
