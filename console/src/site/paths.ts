/**
 * Every path the site's router shows a page for (router.tsx), as the server needs them:
 * the built console lists them in console-manifest.json, and the server answers any
 * other path with the 404 page and HTTP 404. paths.test.tsx keeps this list and the
 * router's route table equal.
 */
export const SITE_PATHS = [
  '/',
  '/help-center',
  '/pricing',
  '/about',
  '/privacy-policy',
  '/demo',

  '/login',
  '/register',
  '/verify',
  '/forgot-password',
  '/update-password',
  '/groups/accept-invite',
  '/dashboard',
  '/dashboard/ai-connection',
  '/dashboard/synthetic-groups',
  '/dashboard/settings',
  '/dashboard/settings/account',
  '/dashboard/settings/subscription',
  '/dashboard/billing/success',
  '/dashboard/billing/cancel',
  '/dashboard/addgroup',
] as const;
