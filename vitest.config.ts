// One test run for the whole workspace: unit tests beside the code, integration
// and end-to-end tests under e2e/. Stores run embedded unless TEST_DATABASE_URL /
// TEST_REDIS_URL name real services, in which case those suites run against them too.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,store,worker,gateway,console,e2e,bench,tools}/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: ['./store/src/testing/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
