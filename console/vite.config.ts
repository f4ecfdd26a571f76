// Build of the Spendgate site (the host): the public pages, emitted to console/dist and
// served by the gateway from the site root. The dashboard is a separate bundle
// (vite.dashboard.config.ts) that the site loads at run time through module federation.
// Beside the site goes console-manifest.json, what the server needs to know of this
// build: the site's paths (its 404s) and the places pages load from (its CSP).
import { federation } from '@module-federation/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, loadEnv, type Plugin } from 'vite';
import { SITE_PATHS } from './src/site/paths.ts';
import { DASHBOARD_REMOTE_ENTRY, SHARE_STRATEGY, sharedModules } from './federation.ts';

/** What console-manifest.json holds; the gateway reads it (gateway/src/console.ts). */
function consoleManifest(mode: string): Plugin {
  const env = loadEnv(mode, import.meta.dirname, 'VITE_');
  const manifest = {
    paths: SITE_PATHS,
    dashboardRemoteEntry: DASHBOARD_REMOTE_ENTRY,
    mediaUrls: [env.VITE_DEMO_VIDEO_URL, env.VITE_DEMO_POSTER_URL, env.VITE_DEMO_CAPTIONS_URL].filter(Boolean),
  };
  return {
    name: 'spendgate-console-manifest',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'console-manifest.json', source: `${JSON.stringify(manifest, null, 2)}\n` });
    },
  };
}

export default defineConfig(({ mode }) => ({
  root: import.meta.dirname,
  base: '/',
  plugins: [
    react(),
    consoleManifest(mode),
    federation({
      name: 'site',
      remotes: {
        dashboard: { type: 'module', name: 'dashboard', entry: DASHBOARD_REMOTE_ENTRY, entryGlobalName: 'dashboard', shareScope: 'default' },
      },
      shared: sharedModules,
      shareStrategy: SHARE_STRATEGY,
      dts: false,
    }),
  ],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
}));
