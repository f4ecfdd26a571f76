/**
 * Forwarding with retries and failover, before any byte reaches the caller: each
 * attempt (upstream + model) in order; a 429, a 5xx, an unreachable provider or a
 * timeout is retried on the same attempt with jittered exponential backoff (a short
 * `retry-after` is honoured, a long one moves on), then the next attempt is tried.
 * Bounds: 2 retries per attempt, 6 tries in all, and no new try once the key's timeout
 * has passed since the request arrived (a try in flight keeps its own full timeout).
 * An attempt whose circuit is open is skipped while another remains. The outcome is
 * the first answer that is not retryable — or the last failure, body unread, to be
 * answered to the caller as it is.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseRetryAfterMs, retryDelayMs, UpstreamError } from '@spendgate/core';
import type { RequestObserver } from '../observability/request-observer.ts';
import type { Attempt, UpstreamHealth } from './routing.ts';
import type { UpstreamResponse } from './upstream.ts';

const MAX_RETRIES_PER_ATTEMPT = 2;
const MAX_TRIES = 6;

export type ForwardOutcome<A extends Attempt> =
  | { attempt: A; response: UpstreamResponse; route: string }
  | { attempt: A; error: UpstreamError; route: string };

export interface FailoverOptions {
  health: UpstreamHealth;
  /** The key's timeout: no new try starts after it has passed since `startedAt`. */
  timeoutMs: number;
  startedAt: number;
  /** Why the attempts were chosen; failures are appended to it. */
  reason: string;
  /** Told of each failed try (/metrics' upstream errors). */
  observer?: Pick<RequestObserver, 'upstreamFailed'> | undefined;
  now?: () => number;
  random?: () => number;
  wait?: (ms: number) => Promise<unknown>;
}

const isRetryableStatus = (status: number) => status === 429 || status >= 500;

interface Failure {
  model: string;
  /** `503`, `timeout`, `unreachable`, `circuit open`. */
  what: string;
}

function failureOf(model: string, outcome: { response?: UpstreamResponse; error?: UpstreamError }): Failure {
  if (outcome.response) return { model, what: String(outcome.response.statusCode) };
  return { model, what: outcome.error?.code === 'upstream_timeout' ? 'timeout' : 'unreachable' };
}

/** `gpt-4o 503 x3, claude-haiku-4-5 500`: repeats of one failure counted. */
function describeFailures(failures: readonly Failure[]): string {
  const counted: { failure: string; times: number }[] = [];
  for (const { model, what } of failures) {
    const failure = `${model} ${what}`;
    const last = counted.at(-1);
    if (last?.failure === failure) last.times += 1;
    else counted.push({ failure, times: 1 });
  }
  return counted.map(({ failure, times }) => (times > 1 ? `${failure} x${times}` : failure)).join(', ');
}

/** The route of an answered request: the reason, plus what was retried or failed over. */
function routeOf(reason: string, served: string, failures: readonly Failure[]): string {
  if (failures.length === 0) return reason;
  if (failures.every((failure) => failure.model === served)) return `${reason}; retried after ${describeFailures(failures)}`;
  return `${reason}; failover: ${describeFailures(failures)} -> ${served}`;
}

/**
 * Sends through the attempts until one answers something other than a retryable failure.
 * @example await forwardWithFailover(plan.attempts, (attempt) => sendUpstream(urlOf(attempt), init), { health, timeoutMs: 30_000, startedAt: Date.now(), reason: plan.reason })
 * // { attempt, response, route: 'requested; failover: gpt-4o 503 x3 -> claude-haiku-4-5' }
 */
export async function forwardWithFailover<A extends Attempt>(
  attempts: readonly A[],
  send: (attempt: A) => Promise<UpstreamResponse>,
  options: FailoverOptions,
): Promise<ForwardOutcome<A>> {
  const { health, now = Date.now, random = Math.random, wait = sleep } = options;
  const deadline = options.startedAt + options.timeoutMs;
  const failures: Failure[] = [];
  let last: { attempt: A; response?: UpstreamResponse; error?: UpstreamError } | undefined;
  let tries = 0;

  for (const [index, attempt] of attempts.entries()) {
    if (!health.allows(attempt) && (index < attempts.length - 1 || last !== undefined)) {
      failures.push({ model: attempt.model, what: 'circuit open' });
      continue;
    }
    for (let retry = 0; tries < MAX_TRIES && (tries === 0 || now() < deadline); retry++) {
      // The failure this try replaces is not answered: free its connection.
      last?.response?.dump();
      health.started(attempt);
      const sentAt = now();
      tries += 1;
      try {
        last = { attempt, response: await send(attempt) };
      } catch (error) {
        // Anything else (e.g. a request the translator refuses) is the caller's to hear at once.
        if (!(error instanceof UpstreamError)) throw error;
        last = { attempt, error };
      }
      if (last.response && !isRetryableStatus(last.response.statusCode)) {
        health.succeeded(attempt, now() - sentAt);
        return { attempt, response: last.response, route: routeOf(options.reason, attempt.model, failures) };
      }
      health.failed(attempt);
      const failure = failureOf(attempt.model, last);
      failures.push(failure);
      options.observer?.upstreamFailed(attempt.upstream.adapter.catalogProvider, attempt.model, failure.what);
      if (retry >= MAX_RETRIES_PER_ATTEMPT || !health.allows(attempt)) break;
      const retryAfter = last.response?.headers['retry-after'];
      const retryAfterMs = parseRetryAfterMs(typeof retryAfter === 'string' ? retryAfter : undefined, now());
      const delay = retryDelayMs({ retry, random, retryAfterMs });
      if (delay === undefined || now() + delay >= deadline) break;
      await wait(delay);
    }
  }

  if (!last) throw new Error('forwardWithFailover needs at least one attempt');
  const route = `${options.reason}; failed: ${describeFailures(failures)}`;
  return last.response ? { attempt: last.attempt, response: last.response, route } : { attempt: last.attempt, error: last.error!, route };
}
