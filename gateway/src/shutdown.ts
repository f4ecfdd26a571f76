/**
 * Stopping on SIGTERM or SIGINT in whatever state the process is in. A signal while the
 * app starts (the database process opening — a first start creates the database, which
 * can take longer than a service manager waits — migrations) exits at once: nothing has
 * been served, the database process goes with its parent and a database being created
 * is left unused (pglite-process.ts). Once running, the app drains and closes (app.ts,
 * drain.ts): running requests finish, their usage is written, the database process is
 * closed. Either way the process exits 0; should closing hang, it exits 1 after
 * EXIT_DEADLINE_MS, inside the 10 s a service manager waits.
 */
import type { App } from './app.ts';

export const EXIT_DEADLINE_MS = 9_500;

export interface Stopping {
  /** Hands over the built app, which a signal from now on closes. */
  started(app: App): void;
}

export function stopOnSignals(): Stopping {
  let app: App | undefined;
  let signalled = false;
  const closeAndExit = async (running: App) => {
    try {
      await running.close();
      process.exit(0);
    } catch (error) {
      console.error('Spendgate did not close cleanly:', error);
      process.exit(1);
    }
  };
  const stop = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    if (!app) process.exit(0);
    setTimeout(() => {
      console.error(`Spendgate did not stop within ${EXIT_DEADLINE_MS} ms of ${signal}`);
      process.exit(1);
    }, EXIT_DEADLINE_MS).unref();
    void closeAndExit(app);
  };
  // Listening for both keeps Node from ending the process at once on either, also later ones.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, stop);
  return {
    started(built) {
      app = built;
    },
  };
}
