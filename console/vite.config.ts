// Build of the Spendgate console: a React single-page app emitted to console/dist,
// served by the gateway from the site root.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: { outDir: 'dist' },
});
