/**
 * Another gateway, or worker, of a scaled-mode test Spendgate, as a real separate Node
 * process (`node --import tsx gateway-child.ts` / `worker-child.ts`): it shares the test
 * Spendgate's PostgreSQL database, Redis prefix and secrets (`RunningSpendgate.peer`), so
 * the gateways share one spend ledger and one usage queue, and the workers consume it,
 * as the processes of a deployment do. Stop it before the Spendgate it joined: closing
 * that one drops the database.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PeerSettings } from './spendgate.ts';

export interface PeerProcess {
  /** SIGTERM, then SIGKILL if it has not exited within 10 s; resolves once it has exited. */
  stop(): Promise<void>;
  /** SIGKILL at once, as a crash would; resolves once it has exited. */
  kill(): Promise<void>;
}

export interface GatewayProcess extends PeerProcess {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
}

const CHILD_SCRIPTS = {
  gateway: fileURLToPath(new URL('./gateway-child.ts', import.meta.url)),
  worker: fileURLToPath(new URL('./worker-child.ts', import.meta.url)),
};
/** The line each child prints once it serves. */
const LISTENING = /^listening (\S+)$/;
const READY = /^ready$/;
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
  const { process: child, readyLine } = await startPeerProcess('gateway', peer, LISTENING);
  return { ...child, url: LISTENING.exec(readyLine)![1]! };
}

/** A worker consuming the peer's queue; resolves once it does. */
export async function startWorkerProcess(peer: PeerSettings): Promise<PeerProcess> {
  return (await startPeerProcess('worker', peer, READY)).process;
}

/** Starts a child with the peer's settings; resolves with the first stdout line `ready` matches. */
async function startPeerProcess(name: keyof typeof CHILD_SCRIPTS, peer: PeerSettings, ready: RegExp): Promise<{ process: PeerProcess; readyLine: string }> {
  // Only the peer's settings, so every process runs on the same configuration.
  const child = spawn(process.execPath, ['--import', TSX_LOADER, CHILD_SCRIPTS[name]], {
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
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };

  try {
    const readyLine = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${name} process did not start within ${START_TIMEOUT_MS} ms:\n${stderrTail}`)),
        START_TIMEOUT_MS,
      );
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} process exited (${signal ?? `code ${code}`}) before it was ready:\n${stderrTail}`));
      });
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!ready.test(line)) return;
        clearTimeout(timer);
        resolve(line);
      });
    });
    return { process: { stop, kill }, readyLine };
  } catch (error) {
    await stop();
    throw error;
  }
}
