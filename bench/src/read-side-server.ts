/**
 * The server a read-side bench (analytics, invoices) measures: the whole app's start-up
 * in a data folder of its own, on PGlite (`embedded`) or on a fresh PostgreSQL database of
 * DATABASE_URL's server with REDIS_URL (`scaled`); `close` stops it and removes both.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '@spendgate/gateway';
import { loadConfig } from '@spendgate/store';
import { createScaledServices, type ScaledServices } from './scaled.ts';

export type ReadSideMode = 'embedded' | 'scaled';

export async function startReadSideServer(mode: ReadSideMode) {
  let services: ScaledServices | undefined;
  if (mode === 'scaled') {
    const { DATABASE_URL, REDIS_URL } = process.env;
    if (!DATABASE_URL || !REDIS_URL) throw new Error('--mode scaled needs DATABASE_URL and REDIS_URL');
    services = await createScaledServices({ TEST_DATABASE_URL: DATABASE_URL, TEST_REDIS_URL: REDIS_URL });
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sg-bench-read-side-'));
  const config = await loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    DATABASE_URL: services?.databaseUrl,
    REDIS_URL: services?.redisUrl,
  });
  const app = await buildApp(config);
  return {
    app,
    async close() {
      await app.close();
      await services?.remove();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
