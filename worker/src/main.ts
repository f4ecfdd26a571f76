// `npm run worker`: BullMQ workers for the scaled mode (DATABASE_URL + REDIS_URL).
import { createLogger, loadConfigOrExit, lowerOwnPriority } from '@spendgate/store';
import { startWorker } from './index.ts';

const config = await loadConfigOrExit();
if (!config.redisUrl || !config.databaseUrl) {
  console.error('npm run worker needs DATABASE_URL and REDIS_URL (the embedded mode runs the worker inside npm start)');
  process.exit(1);
}
const log = createLogger(config.logLevel);
const stores = await startWorker(config, { log });
// Metering can wait a few milliseconds; requests served on the same machine cannot.
await lowerOwnPriority();
log.info('Spendgate worker running (BullMQ on REDIS_URL, PostgreSQL on DATABASE_URL)');

const shutdown = async () => {
  await stores.close();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
