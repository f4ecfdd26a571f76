/**
 * Another gateway of a scaled-mode test Spendgate, as a real separate Node process
 * (`node --import tsx gateway-child.ts`): it shares the test Spendgate's PostgreSQL
 * database, Redis prefix and secrets (`RunningSpendgate.peer`), so the two gateways
 * share one spend ledger and one usage queue, as several gateways of a deployment do.
 * Stop it before the Spendgate it joined: closing that one drops the database.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PeerSettings } from './spendgate.ts';

export interface GatewayProcess {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** SIGTERM, then SIGKILL if it has not exited within 10 s; resolves once it has exited. */
  stop(): Promise<void>;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./gateway-child.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
/** How much of the child's stderr a start failure quotes. */
const STDERR_TAIL_CHARS = 4_000;

/**
 * @example
 * const spendgate = await startSpendgate('scaled', 'my-test');
 * const second = await startGatewayProcess(spendgate.peer!);
 * // ... send requests to spendgate.url and second.url ...
 * await second.stop();
 * await spendgate.close();
 */
export async function startGatewayProcess(peer: PeerSettings): Promise<GatewayProcess> {
  // Only the peer's settings, so both gateways run on the same configuration.
  const child = spawn(process.execPath, ['--import', TSX_LOADER, CHILD_SCRIPT], {
    env: { ...peer.env, SPENDGATE_REDIS_PREFIX: peer.redisPrefix },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderrTail = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(killer);
    }
  };

  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`gateway process did not start within ${START_TIMEOUT_MS} ms:\n${stderrTail}`)),
        START_TIMEOUT_MS,
      );
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`gateway process exited (${signal ?? `code ${code}`}) before listening:\n${stderrTail}`));
      });
      createInterface({ input: child.stdout }).on('line', (line) => {
        const listening = /^listening (\S+)$/.exec(line);
        if (listening === null) return;
        clearTimeout(timer);
        resolve(listening[1]!);
      });
    });
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
