/**
 * Bench process: the load generator, against one 127.0.0.1 URL for a bounded time.
 * Closed loop (autocannon: each connection sends its next request when the previous
 * answer is complete, no pipelining), or at a fixed rate (requests evenly spaced in
 * time, sent whether or not earlier ones have been answered, over an undici pool).
 * Answers counts and latency and time-to-first-byte percentiles computed from every
 * 2xx response's exact timings.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { beginChild } from '../child-side.ts';
import type { LoadResult, LoadRun } from '../load-types.ts';
import { cpuPercent, processStats } from '../protocol.ts';
import { Samples } from '../stats.ts';

const child = beginChild();
const MAX_DURATION_S = 1800;
const TIMEOUT_MS = 10_000;
let stopCurrent: (() => void) | undefined;

function assertLoopback(url: string): void {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1' && hostname !== 'localhost' && hostname !== '[::1]') {
    throw new Error(`the bench only sends load to this machine's loopback, not ${hostname}`);
  }
}

interface Outcome {
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
}

async function runLoad(run: LoadRun): Promise<LoadResult> {
  assertLoopback(run.url);
  if (!(run.durationS > 0 && run.durationS <= MAX_DURATION_S)) throw new Error(`duration must be in (0, ${MAX_DURATION_S}] s`);
  if (stopCurrent) throw new Error('a load run is already going');
  const latencies = new Samples();
  const ttfbs = new Samples();
  const before = processStats();
  const outcome = await (run.ratePerSec === undefined ? closedLoop : fixedRate)(run, latencies, ttfbs).finally(() => {
    stopCurrent = undefined;
  });
  const after = processStats();
  return {
    elapsedS: (after.atMs - before.atMs) / 1000,
    ok: latencies.length,
    ...outcome,
    latencyMs: latencies.summary(),
    ttfbMs: ttfbs.summary(),
    cpuPercent: cpuPercent(before, after),
  };
}

async function closedLoop(run: LoadRun, latencies: Samples, ttfbs: Samples): Promise<Outcome> {
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: run.url,
        method: run.method,
        headers: run.headers,
        body: run.body,
        connections: run.connections,
        duration: run.durationS,
        pipelining: 1,
        timeout: TIMEOUT_MS / 1000,
        ...(run.expectBody === undefined ? {} : { expectBody: run.expectBody }),
        // One request in flight per connection: its head's arrival is its time to first byte.
        setupClient: (client) => {
          let sentAt = 0;
          let headAt = 0;
          // 'request' (a request written) is emitted but missing from the client's typings.
          const events: NodeJS.EventEmitter = client;
          events.on('request', () => {
            sentAt = performance.now();
          });
          client.on('headers', () => {
            headAt = performance.now();
          });
          client.on('response', (statusCode: number) => {
            if (statusCode >= 200 && statusCode < 300) ttfbs.push(headAt - sentAt);
          });
        },
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    stopCurrent = () => instance.stop();
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  return { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, mismatches: result.mismatches };
}

async function fixedRate(run: LoadRun, latencies: Samples, ttfbs: Samples): Promise<Outcome> {
  const rate = run.ratePerSec!;
  if (!(rate > 0 && rate <= 100_000)) throw new Error('rate must be in (0, 100000] requests per second');
  const url = new URL(run.url);
  const pool = new Pool(url.origin, { connections: run.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const outcome: Outcome = { non2xx: 0, errors: 0, timeouts: 0, mismatches: 0 };
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  stopCurrent = () => {
    stopped = true;
  };

  const send = async () => {
    const sentAt = performance.now();
    try {
      const answer = await pool.request({
        path: url.pathname,
        method: run.method,
        headers: run.headers,
        body: run.body,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      let firstByteAt: number | undefined;
      const parts: Buffer[] = [];
      for await (const part of answer.body) {
        firstByteAt ??= performance.now();
        parts.push(part as Buffer);
      }
      const doneAt = performance.now();
      if (answer.statusCode < 200 || answer.statusCode >= 300) outcome.non2xx += 1;
      else if (run.expectBody !== undefined && Buffer.concat(parts).toString() !== run.expectBody) outcome.mismatches += 1;
      else {
        latencies.push(doneAt - sentAt);
        ttfbs.push((firstByteAt ?? doneAt) - sentAt);
      }
    } catch (error) {
      outcome.errors += 1;
      if (/TIMEOUT/.test((error as { code?: string }).code ?? '')) outcome.timeouts += 1;
    }
  };

  // Each request leaves at its slot, startedAt + i / rate, catching up after a late timer.
  const startedAt = performance.now();
  const total = Math.floor(rate * run.durationS);
  for (let sent = 0; sent < total && !stopped; ) {
    const dueAt = startedAt + (sent * 1000) / rate;
    const wait = dueAt - performance.now();
    if (wait > 0) await sleep(wait);
    while (sent < total && startedAt + (sent * 1000) / rate <= performance.now()) {
      const request = send();
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
      sent += 1;
    }
  }
  await Promise.all(inFlight);
  await pool.close();
  return outcome;
}

child.onClose(() => stopCurrent?.());
child.ready({ commands: { run: (args) => runLoad(args as LoadRun) } });
