/**
 * The site's routes. Public pages render in the site frame; dashboard screens
 * (sign-in screens and everything under /dashboard) come from the dashboard bundle, at
 * the paths their table (dashboard/screens.ts) gives.
 * /dashboard/* needs a stored token, else it redirects to /login, replacing history, and
 * a confirmed e-mail, else it redirects to /verify.
 */
import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, redirect } from '@tanstack/react-router';
import { faqListQuery } from '../api/faqs/queries.ts';
import { queryClient } from '../api/query-client.ts';
import { plansQuery } from '../api/subscription/queries.ts';
import { DASHBOARD_SCREENS, type DashboardScreenName, PRIVATE_SCREEN_NAMES, type PrivateScreenName } from '../dashboard/screens.ts';
import { internalPath } from '../shared/next-path.ts';
import { isSignedIn, readUser } from '../shared/session.ts';
import { Spinner } from '../shared/ui/Spinner.tsx';
import { PageError } from './components/PageError.tsx';
import { RootLayout, SiteLayout } from './layout/SiteLayout.tsx';
import { AboutPage } from './pages/AboutPage.tsx';
import { DemoPage } from './pages/DemoPage.tsx';
import { HelpCenterPage } from './pages/HelpCenterPage.tsx';
import { LandingPage } from './pages/LandingPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { PricingPage } from './pages/PricingPage.tsx';
import { PrivacyPolicyPage } from './pages/PrivacyPolicyPage.tsx';
import { DashboardLayout, RemoteScreen } from './remote/RemoteScreen.tsx';

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
  interface StaticDataRouteOption {
    /** The dashboard screen a route shows (its 502 message comes from it). */
    screen?: DashboardScreenName;
  }
}

const optionalString = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);

const rootRoute = createRootRouteWithContext<{ queryClient: QueryClient }>()({
  component: RootLayout,
  notFoundComponent: NotFoundPage,
});

const siteRoute = createRoute({ getParentRoute: () => rootRoute, id: 'site', component: SiteLayout });

const landingRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: '/',
  loader: ({ context }) => context.queryClient.ensureQueryData(faqListQuery()),
  component: LandingPage,
});
const helpCenterRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: 'help-center',
  loader: ({ context }) => context.queryClient.ensureQueryData(faqListQuery()),
  component: HelpCenterPage,
});
const pricingRoute = createRoute({
  getParentRoute: () => siteRoute,
  path: 'pricing',
  loader: ({ context }) => context.queryClient.ensureQueryData(plansQuery()),
  component: PricingPage,
});
const aboutRoute = createRoute({ getParentRoute: () => siteRoute, path: 'about', component: AboutPage });
const privacyPolicyRoute = createRoute({ getParentRoute: () => siteRoute, path: 'privacy-policy', component: PrivacyPolicyPage });
const demoRoute = createRoute({ getParentRoute: () => rootRoute, path: 'demo', component: DemoPage });

// ---- Public dashboard screens, in the site frame ----

/** A dashboard screen's path and component. */
const remote = <Name extends DashboardScreenName>(screen: Name) => ({
  // Inferred, the type is every screen's path; one with a parameter (a `$` segment) would
  // ask every Link for it, so those are left out (their routes are made apart, below).
  path: DASHBOARD_SCREENS[screen].path as Exclude<(typeof DASHBOARD_SCREENS)[DashboardScreenName]['path'], `${string}$${string}`>,
  staticData: { screen },
  component: () => <RemoteScreen screen={screen} />,
});

// ?invite= is a team invitation's token, from the link its e-mail carries: signing up or
// logging in with it accepts the invitation.
const loginRoute = createRoute({
  getParentRoute: () => siteRoute,
  validateSearch: (search: Record<string, unknown>): { invite?: string; next?: string } => ({
    invite: optionalString(search.invite),
    next: internalPath(search.next),
  }),
  ...remote('login'),
});
const registerRoute = createRoute({
  getParentRoute: () => siteRoute,
  validateSearch: (search: Record<string, unknown>): { plan?: string; invite?: string } => ({
    plan: optionalString(search.plan),
    invite: optionalString(search.invite),
  }),
  ...remote('register'),
});
const verifyRoute = createRoute({
  getParentRoute: () => siteRoute,
  validateSearch: (search: Record<string, unknown>): { email?: string; purpose?: 'register' | 'reset' } => ({
    email: optionalString(search.email),
    purpose: search.purpose === 'reset' ? 'reset' : search.purpose === 'register' ? 'register' : undefined,
  }),
  ...remote('verify'),
});
const forgotPasswordRoute = createRoute({ getParentRoute: () => siteRoute, ...remote('forgotPassword') });
const updatePasswordRoute = createRoute({
  getParentRoute: () => siteRoute,
  validateSearch: (search: Record<string, unknown>): { email?: string; otp?: string } => ({
    email: optionalString(search.email),
    otp: optionalString(search.otp),
  }),
  ...remote('updatePassword'),
});
const acceptInviteRoute = createRoute({
  getParentRoute: () => siteRoute,
  validateSearch: (search: Record<string, unknown>): { token?: string } => ({ token: optionalString(search.token) }),
  ...remote('acceptInvite'),
});
const ssoCallbackRoute = createRoute({ getParentRoute: () => siteRoute, ...remote('ssoCallback') });

// ---- Private dashboard, in the dashboard's own shell ----

const dashboardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: 'dashboard',
  // ?team= names the team a screen shows (URL state); without it, the first of yours.
  validateSearch: (search: Record<string, unknown>): { team?: string } => ({ team: optionalString(search.team) }),
  beforeLoad: () => {
    if (!isSignedIn()) throw redirect({ to: '/login', replace: true });
    // A session whose e-mail is not confirmed yet opens nothing here (the API answers 403): confirm it first.
    const user = readUser();
    if (user?.emailVerified === false) throw redirect({ to: '/verify', search: { email: user.email }, replace: true });
  },
  component: DashboardLayout,
});
/** A private screen's route: its path below /dashboard. */
type BelowDashboard<Path> = Path extends `/dashboard/${infer Rest}` ? Rest : '/';
const dashboardScreen = <Name extends PrivateScreenName>(screen: Name) => {
  const { path, ...rest } = remote(screen);
  const below = (path === '/dashboard' ? '/' : path.slice('/dashboard/'.length)) as BelowDashboard<typeof path>;
  return createRoute({ getParentRoute: () => dashboardRoute, path: below, ...rest });
};

/** Screens whose path has a parameter: each a route of its own. */
type ParameterScreenName = 'requestDetail';
const hasNoParameter = (name: PrivateScreenName): name is Exclude<PrivateScreenName, ParameterScreenName> => !DASHBOARD_SCREENS[name].path.includes('$');
const { path: _requestDetailPath, ...requestDetail } = remote('requestDetail');
const requestDetailRoute = createRoute({ getParentRoute: () => dashboardRoute, path: 'requests/$requestId', ...requestDetail });

const dashboardRoutes = [...PRIVATE_SCREEN_NAMES.filter(hasNoParameter).map(dashboardScreen), requestDetailRoute];

const routeTree = rootRoute.addChildren([
  siteRoute.addChildren([
    landingRoute,
    helpCenterRoute,
    pricingRoute,
    aboutRoute,
    privacyPolicyRoute,
    loginRoute,
    registerRoute,
    verifyRoute,
    forgotPasswordRoute,
    updatePasswordRoute,
    acceptInviteRoute,
    ssoCallbackRoute,
  ]),
  demoRoute,
  dashboardRoute.addChildren(dashboardRoutes),
]);

export const router = createRouter({
  routeTree,
  context: { queryClient },
  defaultPreload: 'intent',
  defaultPreloadStaleTime: 0,
  defaultPendingComponent: () => <Spinner page />,
  defaultErrorComponent: PageError,
});
