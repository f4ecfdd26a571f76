/**
 * The harness half of the protocol: starts each bench process as its own Node child
 * (its own event loop), talks to it over IPC, and guarantees that no child outlives
 * the harness — stopped in order on success, failure or Ctrl-C, and SIGKILLed when the
 * harness process exits any other way.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServer } from '../../gateway/bundle.mjs';
import {
  type CommandMessage,
  isMessage,
  type ProcessStats,
  type ReplyMessage,
  SHUTDOWN_COMMAND,
  STATS_COMMAND,
} from './protocol.ts';

const PROCESSES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'processes');
const REPO_ROOT = path.resolve(PROCESSES_DIR, '../../..');
/** Where the children's bundles go (inside the checkout, so their npm imports resolve). */
const BUNDLE_DIR = path.join(REPO_ROOT, 'dist/bench');

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const PROCESS_NAMES = ['mock-upstream', 'bare-proxy', 'gateway', 'worker', 'load'] as const;
export type ProcessName = (typeof PROCESS_NAMES)[number];

/**
 * Bundles every bench process into plain JavaScript, as `npm start` runs the gateway:
 * no TypeScript loader in any measured process. Call once before starting children.
 */
export function bundleBenchProcesses(): Promise<void> {
  return bundleServer(Object.fromEntries(PROCESS_NAMES.map((name) => [name, path.join(PROCESSES_DIR, `${name}.ts`)])), BUNDLE_DIR);
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Extra Node flags (e.g. --max-old-space-size). */
  nodeFlags?: string[];
  startTimeoutMs?: number;
  /** Aborting while the child is still starting stops it (SIGTERM: it cleans up and exits). */
  signal?: AbortSignal;
}

export class BenchChild {
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #exited: Promise<void>;

  private constructor(
    readonly name: ProcessName,
    readonly child: ChildProcess,
    readonly url: string | undefined,
  ) {
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        running.delete(child);
        for (const { reject } of this.#pending.values()) {
          reject(new Error(`${name} exited (${signal ?? `code ${code}`}) before answering`));
        }
        this.#pending.clear();
        resolve();
      });
    });
    child.on('message', (message: unknown) => {
      if (!isMessage(message, 'reply')) return;
      const reply = message as ReplyMessage;
      const pending = this.#pending.get(reply.id);
      if (!pending) return;
      this.#pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(new Error(`${name}: ${reply.error}`));
    });
  }

  /** Forks the bundle of bench/src/processes/<name>.ts and waits until it says it is ready. */
  static async start(name: ProcessName, options: StartOptions = {}): Promise<BenchChild> {
    const child = fork(path.join(BUNDLE_DIR, `${name}.mjs`), [], {
      cwd: REPO_ROOT,
      execArgv: options.nodeFlags ?? [],
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    running.add(child);
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    try {
      const url = await new Promise<string | undefined>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs} ms`)), timeoutMs);
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`${name} exited while starting (${signal ?? `code ${code}`})`));
        });
        child.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        if (options.signal?.aborted) reject(new Error(`${name} was stopped while starting`));
        options.signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(new Error(`${name} was stopped while starting`));
          },
          { once: true },
        );
        const onMessage = (message: unknown) => {
          if (!isMessage(message, 'ready')) return;
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve((message as { url?: string }).url);
        };
        child.on('message', onMessage);
      });
      if (options.signal?.aborted) throw new Error(`${name} was stopped while starting`);
      return new BenchChild(name, child, url);
    } catch (error) {
      // SIGTERM lets it remove what it created (e.g. a temporary data directory); SIGKILL if it hangs.
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      throw error;
    }
  }

  /** Sends a command and resolves to the child's answer. */
  call<T>(command: string, args?: unknown, timeoutMs = 120_000): Promise<T> {
    if (!this.child.connected) return Promise.reject(new Error(`${this.name} is not running`));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${this.name} did not answer ${command} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      const message: CommandMessage = { kind: 'command', id, command, ...(args === undefined ? {} : { args }) };
      this.child.send(message, (error) => {
        if (!error) return;
        this.#pending.get(id)?.reject(error);
        this.#pending.delete(id);
      });
    });
  }

  stats(): Promise<ProcessStats> {
    return this.call<ProcessStats>(STATS_COMMAND);
  }

  /** Asks the child to close and exit; SIGKILLs it if it has not exited within the time. */
  async stop(timeoutMs = 20_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const shutdown: CommandMessage = { kind: 'command', id: 0, command: SHUTDOWN_COMMAND };
    // The channel can close between the check and the send; SIGTERM closes the child the same way.
    if (this.child.connected) this.child.send(shutdown, (error) => error && this.child.kill('SIGTERM'));
    else this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        resolve();
      }, timeoutMs);
    });
    await Promise.race([this.#exited, killed]);
    clearTimeout(timer);
    await this.#exited;
  }
}
