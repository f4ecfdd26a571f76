/**
 * Every dashboard screen, one row each: its name, the path the site shows it at, its
 * sidebar entry (label and icon; screens without one are reached by links), and what the
 * 502 screen says when the dashboard bundle cannot be loaded for it (spec §8). Screens
 * under /dashboard render in the dashboard's shell, the others in the site's frame.
 *
 * The site's router, its path list (paths.ts), the 502 screen and the dashboard's sidebar
 * read this table. Its components are keyed by the same names in the dashboard bundle's
 * exposed module (remote.ts), which the compiler holds to one per row: a table the site
 * imports cannot hold them without putting the dashboard in the site's bundle.
 */
import type { IconName } from '../shared/ui/Icon.tsx';

export interface DashboardScreen {
  path: string;
  /** Its entry in the sidebar; `exact`: highlighted only on its own path, not below it. */
  nav?: { label: string; icon: IconName; exact?: boolean };
  failureMessage: string;
}

export const DASHBOARD_SCREENS = {
  login: { path: '/login', failureMessage: 'Unable to load the login screen. Please try again.' },
  register: { path: '/register', failureMessage: 'Registration page failed to load. Refresh to retry.' },
  verify: { path: '/verify', failureMessage: 'Verification page failed to load.' },
  forgotPassword: { path: '/forgot-password', failureMessage: "We're having trouble loading the password reset page." },
  updatePassword: { path: '/update-password', failureMessage: 'Could not load the password update page.' },
  acceptInvite: { path: '/groups/accept-invite', failureMessage: 'The invitation page failed to load. Please try again later.' },
  ssoCallback: { path: '/sso/callback', failureMessage: 'Single sign-on could not be finished. Please try again.' },
  overview: {
    path: '/dashboard',
    nav: { label: 'Overview', icon: 'chart', exact: true },
    failureMessage: 'Dashboard failed to load. Please check your connection.',
  },
  aiConnections: {
    path: '/dashboard/ai-connection',
    nav: { label: 'AI Connections', icon: 'plug' },
    failureMessage: "AI Connections couldn't be loaded at the moment.",
  },
  syntheticGroups: {
    path: '/dashboard/synthetic-groups',
    nav: { label: 'Synthetic Groups', icon: 'layers' },
    failureMessage: 'Failed to load the synthetic groups interface.',
  },
  addGroup: { path: '/dashboard/addgroup', nav: { label: 'Add Group', icon: 'plus' }, failureMessage: 'Error loading group creation page.' },
  advisor: { path: '/dashboard/advisor', nav: { label: 'AI Advisor', icon: 'spark' }, failureMessage: 'The AI advisor failed to load. Please try again.' },
  alerts: { path: '/dashboard/alerts', nav: { label: 'Alerts', icon: 'bell' }, failureMessage: 'Alerts failed to load. Please try again.' },
  gpu: { path: '/dashboard/gpu', nav: { label: 'GPU Infrastructure', icon: 'server' }, failureMessage: 'GPU infrastructure failed to load. Please try again.' },
  settings: {
    path: '/dashboard/settings',
    nav: { label: 'Settings', icon: 'settings', exact: true },
    failureMessage: 'Settings page is currently unavailable.',
  },
  account: { path: '/dashboard/settings/account', nav: { label: 'Account', icon: 'user' }, failureMessage: 'Unable to load account settings.' },
  team: { path: '/dashboard/settings/team', nav: { label: 'Team', icon: 'users' }, failureMessage: 'Team settings failed to load.' },
  auditLog: { path: '/dashboard/settings/audit', nav: { label: 'Audit log', icon: 'shield' }, failureMessage: 'The audit log failed to load. Please try again.' },
  subscription: {
    path: '/dashboard/settings/subscription',
    nav: { label: 'Subscription', icon: 'card' },
    failureMessage: 'Subscription settings failed to load.',
  },
  requestDetail: { path: '/dashboard/requests/$requestId', failureMessage: 'The request failed to load.' },
  billingSuccess: { path: '/dashboard/billing/success', failureMessage: 'Billing success page failed to load.' },
  billingCancel: { path: '/dashboard/billing/cancel', failureMessage: 'Billing cancel page failed to load.' },
} as const satisfies Record<string, DashboardScreen>;

export type DashboardScreenName = keyof typeof DASHBOARD_SCREENS;

/** The screens shown inside the dashboard's shell: those under /dashboard. */
export type PrivateScreenName = {
  [Name in DashboardScreenName]: (typeof DASHBOARD_SCREENS)[Name]['path'] extends `/dashboard${string}` ? Name : never;
}[DashboardScreenName];

export const PRIVATE_SCREEN_NAMES = (Object.keys(DASHBOARD_SCREENS) as DashboardScreenName[]).filter(
  (name): name is PrivateScreenName => DASHBOARD_SCREENS[name].path.startsWith('/dashboard'),
);
