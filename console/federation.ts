// Module-federation settings shared by the site (host) and dashboard (remote) builds.
// The dashboard is served from DASHBOARD_BASE on the same server unless
// SPENDGATE_DASHBOARD_URL names another place for its remoteEntry.js at build time.

export const DASHBOARD_BASE = process.env.SPENDGATE_DASHBOARD_BASE ?? '/dashboard-app/';

export const DASHBOARD_REMOTE_ENTRY = process.env.SPENDGATE_DASHBOARD_URL ?? `${DASHBOARD_BASE}remoteEntry.js`;

/** One copy of each at run time: the dashboard uses the site's React, router and query cache. */
export const sharedModules = {
  react: { singleton: true, requiredVersion: '^19.3.0' },
  'react-dom': { singleton: true, requiredVersion: '^19.3.0' },
  '@tanstack/react-router': { singleton: true, requiredVersion: '^1.170.0' },
  '@tanstack/react-query': { singleton: true, requiredVersion: '^5.108.0' },
};

/**
 * The site's React and router serve the dashboard. 'loaded-first' also keeps the site
 * from fetching the dashboard's remoteEntry.js before its own first render: the bundle
 * loads only when a dashboard screen is opened.
 */
export const SHARE_STRATEGY = 'loaded-first' as const;
