/**
 * Bench process (scaled mode only): the BullMQ meter worker as `npm run worker` runs
 * it (at its lower CPU priority), on DATABASE_URL + REDIS_URL, with the gateway's
 * BENCH_REDIS_PREFIX.
 */
import { loadConfig, lowerOwnPriority } from '@spendgate/store';
import { startWorker } from '@spendgate/worker';
import { beginChild } from '../child-side.ts';

const child = beginChild();
const config = await loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
if (!config.databaseUrl || !config.redisUrl) throw new Error('the bench worker needs DATABASE_URL and REDIS_URL');
const stores = await startWorker(config, { redisPrefix: process.env.BENCH_REDIS_PREFIX });
await lowerOwnPriority();

child.onClose(() => stores.close());
child.ready();
