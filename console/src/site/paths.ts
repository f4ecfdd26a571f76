/**
 * Every path the site's router shows a page for (router.tsx), as the server needs them:
 * the built console lists them in console-manifest.json, and the server answers any
 * other path with the 404 page and HTTP 404. paths.test.tsx keeps this list and the
 * router's route table equal. The dashboard's screens come from their table.
 */
import { DASHBOARD_SCREENS } from '../dashboard/screens.ts';

export const SITE_PATHS = [
  '/',
  '/help-center',
  '/pricing',
  '/about',
  '/privacy-policy',
  '/demo',
  ...Object.values(DASHBOARD_SCREENS).map((screen) => screen.path),
];
