/**
 * The child half of the harness protocol, used by every bench process (mock upstream,
 * bare proxy, gateway, worker, load generator):
 *
 *   const child = beginChild();            // first thing: exit paths are guarded
 *   child.onClose(() => rm(tempDir, …));   // cleanups run last-registered first
 *   … start the server …
 *   child.ready({ url, commands: { drain: () => … } });
 *
 * A child never outlives the harness: it runs its cleanups and exits when told to, on
 * SIGTERM, and when the IPC channel drops (the harness died, even by SIGKILL) — also
 * while it is still starting. It ignores SIGINT: Ctrl-C reaches the whole process
 * group, and the harness shuts its children down in order itself.
 */
import {
  type ChildReady,
  type CommandMessage,
  isMessage,
  processStats,
  type ReplyMessage,
  SHUTDOWN_COMMAND,
  STATS_COMMAND,
} from './protocol.ts';

export type CommandHandler = (args: unknown) => unknown;

export interface BenchChildSide {
  /** Registers a cleanup to run before the process exits. */
  onClose(cleanup: () => unknown): void;
  /** Tells the harness this process is ready, and starts answering its commands. */
  ready(options?: { url?: string; commands?: Record<string, CommandHandler> }): void;
}

const FORCED_EXIT_AFTER_MS = 15_000;

export function beginChild(): BenchChildSide {
  if (!process.send) throw new Error('a bench process must be started by the bench harness (no IPC channel)');
  const cleanups: (() => unknown)[] = [];
  let commands: Record<string, CommandHandler> = {};

  let exiting = false;
  const exit = async () => {
    if (exiting) return;
    exiting = true;
    setTimeout(() => process.exit(1), FORCED_EXIT_AFTER_MS).unref();
    let code = 0;
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        console.error('bench process did not close cleanly:', error);
        code = 1;
      }
    }
    process.exit(code);
  };

  process.on('SIGINT', () => {});
  process.once('SIGTERM', () => void exit());
  process.once('disconnect', () => void exit());
  process.on('message', async (message: unknown) => {
    if (!isMessage(message, 'command')) return;
    const { id, command, args } = message as CommandMessage;
    if (command === SHUTDOWN_COMMAND) {
      reply({ kind: 'reply', id, ok: true, result: null });
      void exit();
      return;
    }
    try {
      const handler = command === STATS_COMMAND ? processStats : commands[command];
      if (!handler) throw new Error(`unknown command ${command}`);
      reply({ kind: 'reply', id, ok: true, result: await handler(args) });
    } catch (error) {
      reply({ kind: 'reply', id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });

  return {
    onClose: (cleanup) => {
      cleanups.push(cleanup);
    },
    ready: (options = {}) => {
      commands = options.commands ?? {};
      const ready: ChildReady = { kind: 'ready', ...(options.url ? { url: options.url } : {}) };
      process.send?.(ready);
    },
  };
}

function reply(message: ReplyMessage): void {
  if (process.connected) process.send?.(message);
}
