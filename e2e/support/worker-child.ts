/**
 * A Spendgate worker in a Node process of its own, started by `startWorkerProcess`
 * (gateway-process.ts): `startWorker` configured from its environment, as `npm run worker`
 * is, with its Redis keys and queue under SPENDGATE_REDIS_PREFIX. It prints `ready` on
 * stdout once it consumes jobs, and closes on SIGTERM or when its stdin ends.
 */
import { loadConfig } from '@spendgate/store';
import { startWorker } from '@spendgate/worker';

const config = await loadConfig(process.env);
const worker = await startWorker(config, { redisPrefix: process.env.SPENDGATE_REDIS_PREFIX });

let closing = false;
async function closeAndExit(): Promise<void> {
  if (closing) return;
  closing = true;
  try {
    await worker.close();
    process.exit(0);
  } catch (error) {
    console.error('worker process did not close cleanly:', error);
    process.exit(1);
  }
}
process.once('SIGTERM', () => void closeAndExit());
process.stdin.once('end', () => void closeAndExit());
process.stdin.resume();

process.stdout.write('ready\n');
