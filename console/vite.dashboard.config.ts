// Build of the dashboard (the remote): its own bundle under console/dist/dashboard-app,
// exposing the sign-in and dashboard screens that the site loads at run time.
import { federation } from '@module-federation/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { DASHBOARD_BASE, SHARE_STRATEGY, sharedModules } from './federation.ts';

export default defineConfig({
  root: import.meta.dirname,
  base: DASHBOARD_BASE,
  publicDir: false,
  plugins: [
    react(),
    federation({
      name: 'dashboard',
      filename: 'remoteEntry.js',
      exposes: { './screens': './src/dashboard/remote.ts' },
      shared: sharedModules,
      shareStrategy: SHARE_STRATEGY,
      dts: false,
      bundleAllCSS: true,
    }),
  ],
  build: {
    outDir: 'dist/dashboard-app',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: { input: 'src/dashboard/remote.ts' },
  },
});
