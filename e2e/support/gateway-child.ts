/**
 * A Spendgate gateway in a Node process of its own, started by `startGatewayProcess`
 * (gateway-process.ts): `buildApp` configured from its environment like any deployment,
 * with its Redis keys and queue under SPENDGATE_REDIS_PREFIX. It listens on
 * 127.0.0.1:0, prints `listening <url>` on stdout, and closes on SIGTERM or when its
 * stdin ends (the test process is gone).
 */
import { buildApp } from '@spendgate/gateway';
import { loadConfig } from '@spendgate/store';

const config = await loadConfig(process.env);
const app = await buildApp(config, { redisPrefix: process.env.SPENDGATE_REDIS_PREFIX });
const url = await app.listen({ port: 0, host: '127.0.0.1' });

let closing = false;
async function closeAndExit(): Promise<void> {
  if (closing) return;
  closing = true;
  try {
    await app.close();
    process.exit(0);
  } catch (error) {
    console.error('gateway process did not close cleanly:', error);
    process.exit(1);
  }
}
process.once('SIGTERM', () => void closeAndExit());
process.stdin.once('end', () => void closeAndExit());
process.stdin.resume();

process.stdout.write(`listening ${url}\n`);
