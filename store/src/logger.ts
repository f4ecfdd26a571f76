/**
 * The one logger of the background parts (queue, ledger, jobs): pino. A process hands in
 * its own — the gateway its Fastify logger, the worker `createLogger(config.logLevel)` —
 * and a part opened without one (tests, tools) writes to a shared pino logger at `info`.
 */
import { type BaseLogger, pino } from 'pino';

/** pino's logging methods: a pino logger and Fastify's both are one. */
export type Logger = Pick<BaseLogger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'>;

export function createLogger(level: string): Logger {
  return pino({ level });
}

let shared: Logger | undefined;

/** The logger of parts opened without one. */
export function sharedLogger(): Logger {
  shared ??= createLogger('info');
  return shared;
}
