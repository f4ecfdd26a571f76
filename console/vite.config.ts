// Build of the Spendgate site (the host): the public pages, emitted to console/dist and
// served by the gateway from the site root. The dashboard is a separate bundle
// (vite.dashboard.config.ts) that the site loads at run time through module federation.
import { federation } from '@module-federation/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { DASHBOARD_REMOTE_ENTRY, SHARE_STRATEGY, sharedModules } from './federation.ts';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [
    react(),
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
});
