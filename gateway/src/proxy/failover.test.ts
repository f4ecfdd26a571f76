import { UpstreamError, ValidationError } from '@spendgate/core';
import { describe, expect, it } from 'vitest';
import type { ProviderAdapter } from '../providers/types.ts';
import { forwardWithFailover } from './failover.ts';
import { type Attempt, createUpstreamHealth } from './routing.ts';
import { operatorAgent } from '../providers/operator-upstreams.ts';
import type { UpstreamResponse } from './upstream.ts';

const attempt = (providerId: string, model: string): Attempt => ({
  upstream: { connectionId: null, adapter: { id: providerId } as ProviderAdapter, baseUrl: 'http://fake', options: {}, secret: 's', active: true, dispatcher: operatorAgent },
  model,
});
const gpt4o = attempt('openai', 'gpt-4o');
const haiku = attempt('anthropic', 'claude-haiku-4-5');

/** A provider answer that records whether its body was discarded. */
function answer(statusCode: number, headers: Record<string, string> = {}) {
  const response = {
    statusCode,
    headers,
    dumped: false,
    dump() {
      response.dumped = true;
    },
  };
  return response as unknown as UpstreamResponse & { dumped: boolean };
}

/** A scripted provider: each send takes the next outcome for its model; a test clock moved by waits. */
function scenario(script: Record<string, (UpstreamResponse | Error)[]>) {
  let clock = 0;
  const sent: string[] = [];
  const waits: number[] = [];
  const health = createUpstreamHealth({ now: () => clock, breaker: { failureThreshold: 5, cooldownMs: 30_000 } });
  const send = async ({ model }: Attempt) => {
    sent.push(model);
    const outcome = script[model]!.shift()!;
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  const forward = (attempts: Attempt[], timeoutMs = 30_000) =>
    forwardWithFailover(attempts, send, {
      health,
      timeoutMs,
      startedAt: clock,
      reason: 'requested',
      now: () => clock,
      random: () => 0.5,
      wait: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
  return { sent, waits, health, forward, advance: (ms: number) => (clock += ms) };
}

describe('forwarding with retries and failover', () => {
  it('retries a 503 with jittered backoff and answers from the same model', async () => {
    const ok = answer(200);
    const { sent, waits, forward } = scenario({ 'gpt-4o': [answer(503), answer(503), ok] });
    const outcome = await forward([gpt4o, haiku]);
    expect(sent).toEqual(['gpt-4o', 'gpt-4o', 'gpt-4o']);
    expect(waits).toEqual([125, 250]); // half of 250 × 2^0 and 250 × 2^1
    expect(outcome).toMatchObject({ attempt: gpt4o, response: ok, route: 'requested; retried after gpt-4o 503 x2' });
  });

  it('fails over after two retries, discarding the failed answers', async () => {
    const failures = [answer(503), answer(503), answer(500)];
    const { sent, forward } = scenario({ 'gpt-4o': [...failures], 'claude-haiku-4-5': [answer(200)] });
    const outcome = await forward([gpt4o, haiku]);
    expect(sent).toEqual(['gpt-4o', 'gpt-4o', 'gpt-4o', 'claude-haiku-4-5']);
    expect(outcome.route).toBe('requested; failover: gpt-4o 503 x2, gpt-4o 500 -> claude-haiku-4-5');
    expect(failures.map((failure) => failure.dumped)).toEqual([true, true, true]);
  });

  it('honours a short retry-after and fails over at once on a long one', async () => {
    const short = scenario({ 'gpt-4o': [answer(429, { 'retry-after': '1' }), answer(200)] });
    await short.forward([gpt4o, haiku]);
    expect(short.waits).toEqual([1000]);

    const long = scenario({ 'gpt-4o': [answer(429, { 'retry-after': '60' })], 'claude-haiku-4-5': [answer(200)] });
    const outcome = await long.forward([gpt4o, haiku]);
    expect([long.sent, long.waits, outcome.route]).toEqual([
      ['gpt-4o', 'claude-haiku-4-5'],
      [],
      'requested; failover: gpt-4o 429 -> claude-haiku-4-5',
    ]);
  });

  it('answers a client error as it is, without retrying', async () => {
    const invalid = answer(400);
    const { sent, forward } = scenario({ 'gpt-4o': [invalid] });
    expect(await forward([gpt4o, haiku])).toMatchObject({ response: invalid, route: 'requested' });
    expect(sent).toEqual(['gpt-4o']);
  });

  it('throws a refusal that is not the provider’s at once, without retrying or failing over', async () => {
    const refusal = new ValidationError('n', 'This model returns one choice per request: n must be 1');
    const { sent, forward } = scenario({ 'gpt-4o': [refusal], 'claude-haiku-4-5': [answer(200)] });
    await expect(forward([gpt4o, haiku])).rejects.toBe(refusal);
    expect(sent).toEqual(['gpt-4o']);
  });

  it('returns the last failure, unread, when every attempt fails', async () => {
    const timeout = new UpstreamError(504, 'The provider did not answer in time');
    const last = answer(500);
    const { forward } = scenario({
      'gpt-4o': [new UpstreamError(502, 'The provider could not be reached'), timeout, timeout],
      'claude-haiku-4-5': [answer(529), answer(529), last],
    });
    const outcome = await forward([gpt4o, haiku]);
    expect(outcome).toMatchObject({
      attempt: haiku,
      response: last,
      route: 'requested; failed: gpt-4o unreachable, gpt-4o timeout x2, claude-haiku-4-5 529 x2, claude-haiku-4-5 500',
    });
    expect(last.dumped).toBe(false);
  });

  it('starts no new try once the timeout has passed', async () => {
    const { sent, forward, advance } = scenario({ 'gpt-4o': [answer(503)], 'claude-haiku-4-5': [answer(200)] });
    const outcome = forward([gpt4o, haiku], 1000);
    advance(1000); // the first try took the whole timeout
    expect(await outcome).toMatchObject({ attempt: gpt4o, route: 'requested; failed: gpt-4o 503' });
    expect(sent).toEqual(['gpt-4o']);
  });

  it('opens the circuit after 5 failures in a row, skips it while an alternative exists, probes after the cooldown', async () => {
    const { sent, forward, advance } = scenario({
      'gpt-4o': [answer(503), answer(503), answer(503), answer(503), answer(503), answer(200)],
      'claude-haiku-4-5': [answer(200), answer(200), answer(200)],
    });
    await forward([gpt4o, haiku]); // 3 failures, then haiku
    const second = await forward([gpt4o, haiku]); // 2 more: the circuit opens, no third retry
    expect(second.route).toBe('requested; failover: gpt-4o 503 x2 -> claude-haiku-4-5');
    sent.length = 0;
    const skipped = await forward([gpt4o, haiku]);
    expect([sent, skipped.route]).toEqual([['claude-haiku-4-5'], 'requested; failover: gpt-4o circuit open -> claude-haiku-4-5']);
    advance(30_000);
    sent.length = 0;
    const probe = await forward([gpt4o, haiku]);
    expect([sent, probe.route]).toEqual([['gpt-4o'], 'requested']);
  });
});
