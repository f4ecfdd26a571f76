/**
 * Draining the HTTP server when the app closes. Node's server.close() stops accepting
 * connections and closes the idle ones once; a keep-alive connection busy at that moment
 * stays open after its answer (for keepAliveTimeout, 72 s) and may carry more requests.
 * So once closing: every answer says `connection: close`, connections are closed as
 * soon as they are idle, and those still busy after the deadline are closed too (their
 * streams end, and what was generated is metered as for a caller who left).
 */
import type { Server, ServerResponse } from 'node:http';

/** How long requests running at close may take to finish. */
export const DRAIN_DEADLINE_MS = 5_000;
/** How often idle connections are looked for while draining. */
const IDLE_SWEEP_MS = 50;

export interface Drain {
  /** Called for each answer before it is handled: marks it the last on its connection once closing. */
  answer(response: ServerResponse): void;
  /** Starts draining `server` if it listens (Fastify's preClose); stops once it has closed. */
  begin(server: Server): void;
}

export function createDrain(deadlineMs = DRAIN_DEADLINE_MS): Drain {
  let closing = false;
  return {
    answer(response) {
      if (closing) response.shouldKeepAlive = false;
    },
    begin(server) {
      closing = true;
      if (!server.listening) return;
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      const deadline = setTimeout(() => server.closeAllConnections(), deadlineMs);
      server.once('close', () => {
        clearInterval(sweep);
        clearTimeout(deadline);
      });
    },
  };
}
